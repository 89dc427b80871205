import EarshotAPI
import EarshotDevice
import Foundation

/// Syncs a device's recordings to the platform, oldest first, so that none is ever lost:
///
/// 1. A recording the server already holds (same id and SHA-256) is only acknowledged.
/// 2. Otherwise it is uploaded with the platform's multipart upload: each part is read from the device in windows
///    (spooled to disk, so a restart continues at the first byte it lacks), PUT, and its ETag journalled, so a
///    restarted app continues from the first missing part. Large backlogs go over Wi-Fi: the device PUTs the
///    parts itself.
/// 3. complete-upload, then the server registers it and checks its SHA-256 against the device's.
/// 4. Only then is it acknowledged on the device, which frees it.
///
/// Every step is idempotent, so a crash between any two of them repeats at most the last one.
///
/// **Two lanes.** The device's link (or its Wi-Fi) is the slow part, so it never waits for the platform: the
/// *transfer lane* moves one recording's bytes at a time (with the next window already requested while the last one
/// is spooled, and the next recording's upload planned while this one is read), and hands each transferred
/// recording to the *finishing lane*, which PUTs its last part, completes, registers and acknowledges it (a few at
/// once) while the transfer lane goes on with the next. Each recording's journal is owned by one lane at a time.
struct DeviceSyncEngine: Sendable {
    struct Options: Sendable {
        var stateDirectory: URL
        /// Bytes asked per `read` (the protocol suggests 32–64 KiB).
        var window: UInt32 = 32 << 10
        /// Reads requested ahead of the one being spooled (the link is never idle between windows).
        var readAhead = 1
        /// Recordings the finishing lane works on at once.
        var finishing = 2
        /// Recordings the finishing lane works on at once when a device takes Wi-Fi batches: the device then hands
        /// recordings over faster than the platform completes and registers them (measured: 20 small recordings
        /// uploaded in 0.46 s, finished two at a time in 1.06 s), so the platform's work is what to spread.
        var wifiFinishing = 6
        var wifi: DeviceManager.WiFiPolicy = .never
        /// Longest silence of a Wi-Fi upload before it counts as failed.
        var wifiStallSeconds: Double = 60
    }

    let device: any SyncDevice
    let platform: any SyncPlatform
    let options: Options
    let events: AsyncStream<DeviceSyncEvent>.Continuation
    let gate: PauseGate
    let wifiState: WiFiUploads

    /// A recording whose bytes are on the server (all parts but perhaps the last, which is in its spool), or that
    /// the server already holds: what the finishing lane completes, registers and acknowledges.
    private struct Transferred: Sendable {
        var recording: EarshotDevice.DeviceRecording
        var journal: DeviceSyncJournal?
        var held: EarshotAPI.DeviceRecording?
        var url: URL
        var resumed: Bool
    }

    /// What the finishing lane did, by recording id.
    private final class Outcomes: Sendable {
        let state = Locked((synced: [UInt32: SyncedRecording](), failed: [UInt32: String]()))
    }

    /// Syncs the backlog; per-recording failures are reported and skipped, link and server failures end the run
    /// (what was transferred by then is still finished first, so its journal says how far it got).
    func run() async throws -> DeviceSyncSummary {
        let started = ProcessInfo.processInfo.systemUptime
        let backlog = try await device.recordings()
        let oldest = Int64(backlog.first?.id ?? 1)
        let held = backlog.isEmpty ? [:] : try await platform.heldRecordings(serial: device.serial, after: oldest - 1)
        let meter = RateMeter(total: backlog.reduce(0) { $0 + Int64($1.size) }, count: backlog.count)
        let outcomes = Outcomes()
        events.yield(.progress(meter.progress(current: nil)))
        let (handoffs, handoff) = AsyncStream.makeStream(of: Transferred.self)
        var transferError: (any Error)?
        try await withThrowingTaskGroup(of: (any Error)?.self) { group in
            let lanes =
                options.wifi.useWiFi(backlogBytes: meter.total) && device.uploadBatchLimit > 1
                ? max(options.finishing, options.wifiFinishing) : options.finishing
            group.addTask {
                try await finishLane(handoffs, lanes: lanes, meter: meter, outcomes: outcomes)
                return nil
            }
            group.addTask {
                defer {
                    device.dropPrefetch()
                    handoff.finish()
                }
                do {
                    try await transferLane(backlog, held: held, meter: meter, outcomes: outcomes, handoff: handoff)
                    return nil
                } catch {
                    return error  // the finishing lane still finishes what was handed over
                }
            }
            // A failure of the finishing lane (the server is down) ends the group, cancelling the transfers.
            while let result = try await group.next() {
                if let result { transferError = result }
            }
        }
        if let transferError { throw transferError }
        let order = Dictionary(backlog.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let (synced, failed) = outcomes.state.withLock { $0 }
        return DeviceSyncSummary(
            synced: synced.values.sorted { order[$0.id, default: 0] < order[$1.id, default: 0] }, failed: failed,
            bytesOverLink: meter.linkBytes, bytesOverWiFi: meter.wifiBytes,
            seconds: ProcessInfo.processInfo.systemUptime - started - gate.pausedSeconds)
    }

    // MARK: Transfer lane

    /// Moves each recording's bytes (link or Wi-Fi), one recording at a time, planning the next one's upload while
    /// the current one moves; hands each to the finishing lane.
    private func transferLane(
        _ backlog: [EarshotDevice.DeviceRecording], held: [Int64: EarshotAPI.DeviceRecording], meter: RateMeter,
        outcomes: Outcomes, handoff: AsyncStream<Transferred>.Continuation
    ) async throws {
        let wifi = Locked(options.wifi.useWiFi(backlogBytes: meter.total))
        var prepared: (journal: DeviceSyncJournal, resumed: Bool)?
        var position = 0
        // Recordings a Wi-Fi batch gave back (its Wi-Fi failed): they go over the link first, in order.
        var fallenBack: [EarshotDevice.DeviceRecording] = []
        while position < backlog.count || !fallenBack.isEmpty {
            try await gate.wait()
            let recording: EarshotDevice.DeviceRecording
            let givenBack = !fallenBack.isEmpty
            if givenBack {
                recording = fallenBack.removeFirst()
            } else {
                recording = backlog[position]
                position += 1
            }
            let url = journalURL(recording)
            if let known = held[Int64(recording.id)] {
                // Held since an earlier run died before acknowledging: acknowledge it here, before anything else.
                try await finish(
                    Transferred(recording: recording, held: known, url: url, resumed: true), meter: meter,
                    outcomes: outcomes)
                prepared = nil
                continue
            }
            if wifi.withLock({ $0 }), device.uploadBatchLimit > 1, !givenBack {
                // Several recordings handed to the device at once: one plan call, one message, and the device
                // uploads them back to back while each finished one is completed, registered and acknowledged.
                let group = [recording] + backlog[position...].prefix { held[Int64($0.id)] == nil }
                    .prefix(min(device.uploadBatchLimit, DeviceUploadPlansRequest.limit) - 1)
                position += group.count - 1
                prepared = nil
                fallenBack = try await uploadBatchOverWiFi(group, wifi: wifi, meter: meter, handoff: handoff)
                continue
            }
            let upcoming = fallenBack.first ?? (position < backlog.count ? backlog[position] : nil)
            let planNext = upcoming.map { held[Int64($0.id)] == nil } ?? false
            // The next recording's upload is planned while this one moves (the link does not wait for the platform).
            async let next: (journal: DeviceSyncJournal, resumed: Bool)? =
                planNext ? try await prepare(upcoming!, wifi: wifi.withLock { $0 }) : nil
            let planned: (journal: DeviceSyncJournal, resumed: Bool)
            if let prepared { planned = prepared } else { planned = try await prepare(recording, wifi: wifi.withLock { $0 }) }
            var journal = planned.journal
            if journal.stage == .uploading {
                if journal.viaWiFi && !wifi.withLock({ $0 }) {
                    journal.viaWiFi = false  // planned before the Wi-Fi fell back: the app PUTs these parts itself
                    try journal.save(to: url)
                }
                meter.begin(recording, done: journal.storedBytes, viaWiFi: journal.viaWiFi)
                if journal.viaWiFi {
                    do {
                        try await uploadOverWiFi(recording, journal: &journal, url: url, meter: meter)
                    } catch let error as EarshotError where error.code == .device || error.code == .deviceOffline {
                        // No Wi-Fi on this device (or it failed): the link carries this one and the rest.
                        wifi.withLock { $0 = false }
                        journal.viaWiFi = false
                        try journal.save(to: url)
                        meter.begin(recording, done: journal.storedBytes, viaWiFi: false)
                    }
                }
                if !journal.viaWiFi {
                    // A fresh next recording over the link starts at byte 0 in a part of this upload's size: its
                    // first window follows this one's last on the link.
                    // (A guess that turns out wrong costs one window of link time, never correctness.)
                    let then = upcoming.flatMap { next -> (id: UInt32, window: Range<UInt64>)? in
                        let saved = DeviceSyncJournal.load(from: journalURL(next))
                        guard planNext, !wifi.withLock({ $0 }), next.size > 0,
                            saved.map({ !$0.viaWiFi && $0.etags.isEmpty && $0.spoolPart == nil }) ?? true
                        else { return nil }
                        let part = UInt64(saved?.chunkSize ?? journal.chunkSize)
                        return (next.id, 0..<min(UInt64(options.window), part, next.size))
                    }
                    try await uploadOverLink(recording, journal: &journal, url: url, meter: meter, then: then)
                }
            }
            handoff.yield(Transferred(recording: recording, journal: journal, url: url, resumed: planned.resumed))
            prepared = try await next
        }
    }

    private func journalURL(_ recording: EarshotDevice.DeviceRecording) -> URL {
        DeviceSyncJournal.location(
            in: options.stateDirectory, baseURL: platform.baseURL, serial: device.serial, recording: recording.id,
            sha256: recording.sha256Hex)
    }

    // MARK: Finishing lane

    /// Finishes handed-over recordings, up to `lanes` at once (``Options/finishing``, or ``Options/wifiFinishing``
    /// for Wi-Fi batches).
    private func finishLane(
        _ handoffs: AsyncStream<Transferred>, lanes: Int, meter: RateMeter, outcomes: Outcomes
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for await item in handoffs {
                if running >= max(lanes, 1) {
                    try await group.next()
                    running -= 1
                }
                group.addTask { try await finish(item, meter: meter, outcomes: outcomes) }
                running += 1
            }
            try await group.waitForAll()
        }
    }

    /// PUTs what is left, completes, registers and acknowledges one recording; a refused one is reported and kept.
    private func finish(_ item: Transferred, meter: RateMeter, outcomes: Outcomes) async throws {
        let recording = item.recording
        do {
            let synced = try await finishing(item, meter: meter)
            outcomes.state.withLock { $0.synced[recording.id] = synced }
            events.yield(.synced(synced))
        } catch let error as EarshotError where error.code == .integrity || error.code == .conflict {
            // This recording's bytes or digest were refused: it stays on the device; go on with the next.
            outcomes.state.withLock { $0.failed[recording.id] = error.message }
            events.yield(.failed(recording: recording.id, error))
            meter.skip(recording)
        }
        events.yield(.progress(meter.progress(current: nil)))
    }

    private func finishing(_ item: Transferred, meter: RateMeter) async throws -> SyncedRecording {
        let recording = item.recording
        let sha = recording.sha256Hex
        let url = item.url
        var viaWiFi = false
        var recordID: String
        if let held = item.held {
            guard held.sha256.lowercased() == sha else {
                throw EarshotError(
                    .conflict,
                    "recording \(recording.id): the server holds a different file (SHA-256 \(held.sha256)) than the "
                        + "device's (\(sha)); it is kept on the device")
            }
            recordID = held.recordID
        } else {
            guard var journal = item.journal else {
                throw EarshotError(.invalidResponse, "recording \(recording.id) was handed over without a journal")
            }
            viaWiFi = journal.viaWiFi
            if journal.stage == .uploading {
                try await putSpooledParts(recording, journal: &journal, url: url, meter: meter)
                journal.fileID = try await platform.complete(
                    fileID: journal.fileID, uploadID: journal.uploadID, etags: journal.etags,
                    filetype: journal.filetype)
                journal.stage = .completed
                try journal.save(to: url)
            }
            if journal.stage == .completed {
                let registered: EarshotAPI.DeviceRecording
                do {
                    registered = try await platform.register(
                        DeviceRecordingRequest(
                            recordingID: Int64(recording.id), startedAtMs: Int64(recording.startedAtMs),
                            durationMs: Int64(recording.durationMs), size: Int64(recording.size),
                            codec: Self.codec(recording.codec), sha256: sha, fileID: journal.fileID),
                        serial: device.serial)
                } catch let error as EarshotError
                    where error.code == .invalidArgument || error.code == .conflict || error.code == .integrity
                {
                    // The uploaded file is not the device's recording (its digest differs) or is taken: start this
                    // recording over next time, and keep it on the device.
                    DeviceSyncJournal.remove(url)
                    throw EarshotError(
                        .integrity, "recording \(recording.id) was refused by the server: \(error.message)",
                        status: error.status, requestID: error.requestID, underlying: error)
                }
                guard registered.sha256.lowercased() == sha else {
                    throw EarshotError(
                        .integrity, "recording \(recording.id): the server registered SHA-256 \(registered.sha256)")
                }
                journal.stage = .registered
                journal.recordID = registered.recordID
                try journal.save(to: url)
            }
            recordID = journal.recordID ?? ""
        }
        // The server confirmed it holds this digest: now, and only now, the device may free it.
        let freed = try await device.acknowledge(recording.id, sha256: recording.sha256)
        DeviceSyncJournal.remove(url)
        meter.finish(recording)
        return SyncedRecording(
            id: recording.id, recordID: recordID, sha256: sha, size: Int64(recording.size),
            durationMs: Int(recording.durationMs), startedAtMs: Int64(recording.startedAtMs),
            freedBytes: Int64(freed ?? 0), resumed: item.resumed, viaWiFi: viaWiFi)
    }

    /// PUTs the parts the transfer lane left in the spool (the last part read over the link).
    private func putSpooledParts(
        _ recording: EarshotDevice.DeviceRecording, journal: inout DeviceSyncJournal, url: URL, meter: RateMeter
    ) async throws {
        for number in 1...max(journal.partCount, 1) where journal.etags[number] == nil {
            let spool = PartSpool(url: DeviceSyncJournal.spool(for: url))
            guard journal.spoolPart == number, spool.count == Int64(journal.range(of: number).count) else {
                throw EarshotError(
                    .device, "recording \(recording.id): part \(number) was not read from the device; sync again")
            }
            journal.etags[number] = try await put(try spool.read(), part: number, journal: &journal, url: url)
            journal.spoolPart = nil
            try journal.save(to: url)
            try? FileManager.default.removeItem(at: spool.url)
        }
    }

    /// The journal to continue with: the saved one when the server still has its upload, else a new plan.
    private func prepare(_ recording: EarshotDevice.DeviceRecording, wifi: Bool) async throws
        -> (journal: DeviceSyncJournal, resumed: Bool)
    {
        let url = journalURL(recording)
        let saved = DeviceSyncJournal.load(from: url)
        return (try await prepare(recording, saved: saved, url: url, wifi: wifi), saved != nil)
    }

    private func prepare(
        _ recording: EarshotDevice.DeviceRecording, saved: DeviceSyncJournal?, url: URL, wifi: Bool
    ) async throws -> DeviceSyncJournal {
        if var journal = saved {
            if journal.stage != .uploading { return journal }
            if let status = try await platform.status(uploadID: journal.uploadID),
                status.chunkSize == journal.chunkSize, status.partCount == journal.partCount
            {
                if status.state == "completed" {
                    journal.stage = .completed
                    try journal.save(to: url)
                    return journal
                }
                // Keep only parts the server holds with the ETag we recorded (a device's Wi-Fi parts: any ETag).
                var kept: [Int: String] = [:]
                for part in status.parts {
                    if let mine = journal.etags[part.partNumber],
                        FilePart.normalize(mine) == FilePart.normalize(part.etag)
                    {
                        kept[part.partNumber] = mine
                    } else if journal.viaWiFi {
                        kept[part.partNumber] = part.etag
                    }
                }
                journal.etags = kept
                for part in status.pending { journal.partURLs[part.partNumber] = part.presignedURL }
                try journal.save(to: url)
                return journal
            }
            DeviceSyncJournal.remove(url)  // the server forgot the upload (expired): plan again
        }
        let size = Int64(recording.size)
        let filetype = Self.codec(recording.codec)
        let plan: EarshotAPI.UploadPlan
        var viaWiFi = false
        if wifi {
            do {
                plan = try await platform.wifiPlan(
                    serial: device.serial, recording: Int64(recording.id), size: size, filetype: filetype)
                viaWiFi = true
            } catch let error as EarshotError where error.code == .deviceOffline {
                plan = try await platform.plan(size: size, filetype: filetype)
            }
        } else {
            plan = try await platform.plan(size: size, filetype: filetype)
        }
        let journal = DeviceSyncJournal(
            baseURL: platform.baseURL, serial: device.serial, recording: recording.id, sha256: recording.sha256Hex,
            size: size, filetype: filetype, uploadID: plan.uploadID, fileID: plan.fileID, chunkSize: plan.chunkSize,
            partURLs: Dictionary(plan.parts.map { ($0.partNumber, $0.presignedURL) }, uniquingKeysWith: { a, _ in a }),
            viaWiFi: viaWiFi)
        try journal.save(to: url)
        return journal
    }

    /// Reads each missing part from the device in windows (``Options/readAhead`` more requested while one is
    /// spooled), spooling it, then PUTs it; the last part stays in the spool for the finishing lane to PUT.
    private func uploadOverLink(
        _ recording: EarshotDevice.DeviceRecording, journal: inout DeviceSyncJournal, url: URL, meter: RateMeter,
        then: (id: UInt32, window: Range<UInt64>)?
    ) async throws {
        let spool = PartSpool(url: DeviceSyncJournal.spool(for: url))
        let missing = (1...max(journal.partCount, 1)).filter { journal.etags[$0] == nil }
        for number in missing {
            let range = journal.range(of: number)
            let length = Int64(range.count)
            var have: Int64 = 0
            if journal.spoolPart == number {
                have = min(spool.count, length)
                if spool.count > length { try spool.truncate(to: length) }
            } else {
                try spool.reset()
                journal.spoolPart = number
                try journal.save(to: url)
            }
            meter.advance(recording, done: journal.storedBytes + have, linkBytes: 0)
            let step = Int64(options.window)
            var windows: [Range<UInt64>] = []
            var at = range.lowerBound + have
            while at < range.upperBound {
                let end = min(at + step, range.upperBound)
                windows.append(UInt64(at)..<UInt64(end))
                at = end
            }
            try await gate.wait()
            let stored = journal.storedBytes
            try await device.read(
                recording.id, windows: windows, ahead: options.readAhead, then: number == missing.last ? then : nil
            ) { window, bytes in
                guard bytes.count == window.count else {
                    throw EarshotError(
                        .device,
                        "recording \(recording.id) ended at byte \(Int(window.lowerBound) + bytes.count) of "
                            + "\(range.upperBound)")
                }
                try spool.append(bytes)
                have += Int64(bytes.count)
                meter.advance(recording, done: stored + have, linkBytes: Int64(bytes.count))
                events.yield(.progress(meter.progress(current: recording)))
                try await gate.wait()
            }
            if number == missing.last { return }  // the finishing lane PUTs it while the next recording is read
            let body = try spool.read()
            let etag = try await put(body, part: number, journal: &journal, url: url)
            journal.etags[number] = etag
            journal.spoolPart = nil
            try journal.save(to: url)
            try? FileManager.default.removeItem(at: spool.url)
            meter.advance(recording, done: journal.storedBytes, linkBytes: 0)
            events.yield(.progress(meter.progress(current: recording)))
        }
    }

    /// PUTs a part; an expired URL (403) is re-signed once through the upload's status.
    private func put(_ body: Data, part: Int, journal: inout DeviceSyncJournal, url: URL) async throws -> String {
        guard let target = journal.partURLs[part] else {
            throw EarshotError(.invalidResponse, "the upload plan has no URL for part \(part)")
        }
        do {
            return try await platform.put(body, to: target, part: part)
        } catch let error as EarshotError where error.code == .forbidden {
            guard let status = try await platform.status(uploadID: journal.uploadID),
                let fresh = status.pending.first(where: { $0.partNumber == part })
            else { throw error }
            journal.partURLs[part] = fresh.presignedURL
            try journal.save(to: url)
            return try await platform.put(body, to: fresh.presignedURL, part: part)
        }
    }

    /// Hands the missing parts to the device and waits for its `upload finished` (or failed, or silence).
    private func uploadOverWiFi(
        _ recording: EarshotDevice.DeviceRecording, journal: inout DeviceSyncJournal, url: URL, meter: RateMeter
    ) async throws {
        guard let plan = try devicePlan(recording, journal: journal) else { return }
        wifiState.start(recording.id)
        try await device.upload(plan)
        try await awaitWiFi(recording, journal: &journal, url: url, meter: meter)
    }

    /// The device's plan for the parts `journal` still lacks; nil when it lacks none.
    private func devicePlan(_ recording: EarshotDevice.DeviceRecording, journal: DeviceSyncJournal) throws
        -> EarshotDevice.UploadPlan?
    {
        let missing = (1...max(journal.partCount, 1)).filter { journal.etags[$0] == nil }
        guard !missing.isEmpty else { return nil }
        let parts = try missing.map { number -> EarshotDevice.UploadPlan.Part in
            guard let target = journal.partURLs[number] else {
                throw EarshotError(.invalidResponse, "the upload plan has no URL for part \(number)")
            }
            let range = journal.range(of: number)
            return .init(
                number: UInt16(number), offset: UInt64(range.lowerBound), length: UInt32(range.count), url: target)
        }
        let expires = UInt64(Date().timeIntervalSince1970 * 1000) + 15 * 60 * 1000
        return EarshotDevice.UploadPlan(recording: recording.id, expiresAtMs: expires, parts: parts)
    }

    /// Moves a group of recordings over Wi-Fi with one plan call and one `upload batch` (several when the plans are
    /// long), handing each to the finishing lane as the device reports it finished. Returns the recordings that must
    /// go over the link instead (the Wi-Fi failed, or they were planned for the link by an earlier run).
    private func uploadBatchOverWiFi(
        _ group: [EarshotDevice.DeviceRecording], wifi: Locked<Bool>, meter: RateMeter,
        handoff: AsyncStream<Transferred>.Continuation
    ) async throws -> [EarshotDevice.DeviceRecording] {
        // Journals: a saved one continues (as far as the server has its upload); the others are planned in one call.
        var journals: [UInt32: (journal: DeviceSyncJournal, resumed: Bool)] = [:]
        var fresh: [EarshotDevice.DeviceRecording] = []
        for recording in group {
            let url = journalURL(recording)
            if let saved = DeviceSyncJournal.load(from: url) {
                journals[recording.id] = (try await prepare(recording, saved: saved, url: url, wifi: true), true)
            } else {
                fresh.append(recording)
            }
        }
        if !fresh.isEmpty {
            let plans: [EarshotAPI.UploadPlan]
            do {
                plans = try await platform.wifiPlans(
                    serial: device.serial,
                    fresh.map {
                        DeviceUploadPlanRequest(
                            recordingID: Int64($0.id), size: Int64($0.size), codec: Self.codec($0.codec))
                    })
            } catch let error as EarshotError where error.code == .deviceOffline {
                wifi.withLock { $0 = false }  // the server does not see the device: the link carries the backlog
                return group
            }
            guard plans.count == fresh.count else {
                throw EarshotError(.invalidResponse, "the server answered \(plans.count) plans for \(fresh.count)")
            }
            for (recording, plan) in zip(fresh, plans) {
                let journal = DeviceSyncJournal(
                    baseURL: platform.baseURL, serial: device.serial, recording: recording.id,
                    sha256: recording.sha256Hex, size: Int64(recording.size), filetype: Self.codec(recording.codec),
                    uploadID: plan.uploadID, fileID: plan.fileID, chunkSize: plan.chunkSize,
                    partURLs: Dictionary(
                        plan.parts.map { ($0.partNumber, $0.presignedURL) }, uniquingKeysWith: { a, _ in a }),
                    viaWiFi: true)
                try journal.save(to: journalURL(recording))
                journals[recording.id] = (journal, false)
            }
        }
        // What the device must upload; what is already on the server goes straight to the finishing lane.
        var linkOnly: [EarshotDevice.DeviceRecording] = []
        var waiting: [(recording: EarshotDevice.DeviceRecording, journal: DeviceSyncJournal, resumed: Bool)] = []
        var plans: [EarshotDevice.UploadPlan] = []
        for recording in group {
            guard let (journal, resumed) = journals[recording.id] else { continue }
            if journal.stage == .uploading && !journal.viaWiFi {
                linkOnly.append(recording)
            } else if journal.stage == .uploading, let plan = try devicePlan(recording, journal: journal) {
                plans.append(plan)
                waiting.append((recording, journal, resumed))
            } else {
                meter.begin(recording, done: journal.storedBytes, viaWiFi: journal.viaWiFi)
                handoff.yield(
                    Transferred(recording: recording, journal: journal, url: journalURL(recording), resumed: resumed))
            }
        }
        guard !plans.isEmpty else { return linkOnly }
        for item in waiting { wifiState.start(item.recording.id) }
        do {
            for batch in Self.messages(plans) { try await device.upload(batch: batch) }
        } catch let error as EarshotError where error.code == .device {
            wifi.withLock { $0 = false }  // refused (no Wi-Fi, busy): the link carries these and the rest
            return linkOnly + waiting.map(\.recording)
        }
        var failed: [EarshotDevice.DeviceRecording] = []
        for item in waiting {
            var journal = item.journal
            let url = journalURL(item.recording)
            meter.begin(item.recording, done: journal.storedBytes, viaWiFi: true)
            do {
                try await awaitWiFi(item.recording, journal: &journal, url: url, meter: meter)
                handoff.yield(Transferred(recording: item.recording, journal: journal, url: url, resumed: item.resumed))
            } catch let error as EarshotError where error.code == .device {
                // This one failed (or stalled); the ones queued after it may still finish: wait for them too.
                wifi.withLock { $0 = false }
                journal.viaWiFi = false
                try journal.save(to: url)
                meter.begin(item.recording, done: journal.storedBytes, viaWiFi: false)
                failed.append(item.recording)
            }
        }
        return linkOnly + failed
    }

    /// Plans cut into `upload batch` messages of at most ``EarshotDevice/UploadPlan/batchLimit`` plans and about
    /// 32 KiB (a device buffers a whole message; long plans of large recordings take several messages).
    static func messages(_ plans: [EarshotDevice.UploadPlan]) -> [[EarshotDevice.UploadPlan]] {
        var messages: [[EarshotDevice.UploadPlan]] = []
        var current: [EarshotDevice.UploadPlan] = []
        var bytes = 1
        for plan in plans {
            let size = 14 + plan.parts.reduce(0) { $0 + 16 + $1.url.utf8.count }
            if !current.isEmpty && (current.count == EarshotDevice.UploadPlan.batchLimit || bytes + size > 32 << 10) {
                messages.append(current)
                current = []
                bytes = 1
            }
            current.append(plan)
            bytes += size
        }
        if !current.isEmpty { messages.append(current) }
        return messages
    }

    /// Waits for the device's `upload finished` of a handed-over recording (or failed, or silence), feeding its
    /// progress to the meter; journals the ETags.
    private func awaitWiFi(
        _ recording: EarshotDevice.DeviceRecording, journal: inout DeviceSyncJournal, url: URL, meter: RateMeter
    ) async throws {
        let before = journal.storedBytes
        var lastChange = ProcessInfo.processInfo.systemUptime
        var lastSent: UInt64 = 0
        var seen = -1
        while true {
            try Task.checkCancellation()
            let state = wifiState.state(of: recording.id)
            if state.version == seen {
                // Nothing new: wait for the device's next event (or a second, to notice a stall).
                await wifiState.change(of: recording.id, after: seen, timeoutSeconds: 1)
                if ProcessInfo.processInfo.systemUptime - lastChange > options.wifiStallSeconds {
                    throw EarshotError(.device, "the device's Wi-Fi upload of recording \(recording.id) stalled")
                }
                continue
            }
            seen = state.version
            if let reason = state.failed {
                throw EarshotError(.device, "the device's Wi-Fi upload of recording \(recording.id) failed: \(reason)")
            }
            if let etags = state.finished {
                for (number, etag) in etags { journal.etags[Int(number)] = etag }
                try journal.save(to: url)
                meter.advance(
                    recording, done: journal.storedBytes,
                    wifiBytes: max(0, journal.storedBytes - before - Int64(lastSent)))
                events.yield(.progress(meter.progress(current: recording)))
                return
            }
            if state.sent > lastSent {
                let delta = Int64(state.sent - lastSent)
                lastSent = state.sent
                lastChange = ProcessInfo.processInfo.systemUptime
                meter.advance(recording, done: before + Int64(state.sent), wifiBytes: delta)
                events.yield(.progress(meter.progress(current: recording)))
            }
            if ProcessInfo.processInfo.systemUptime - lastChange > options.wifiStallSeconds {
                throw EarshotError(.device, "the device's Wi-Fi upload of recording \(recording.id) stalled")
            }
        }
    }

    static func codec(_ codec: AudioCodec) -> String {
        codec == .wav ? "wav" : "opus"
    }
}
