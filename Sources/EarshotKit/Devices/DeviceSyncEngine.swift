import EarshotAPI
import EarshotDevice
import Foundation

/// Syncs a device's recordings to the platform, one at a time, oldest first, so that none is ever lost:
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
struct DeviceSyncEngine: Sendable {
    struct Options: Sendable {
        var stateDirectory: URL
        /// Bytes asked per `read` (the protocol suggests 32–64 KiB).
        var window: UInt32 = 32 << 10
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

    /// Syncs the backlog; per-recording failures are reported and skipped, link and server failures end the run.
    func run() async throws -> DeviceSyncSummary {
        let started = ProcessInfo.processInfo.systemUptime
        let backlog = try await device.recordings()
        let oldest = Int64(backlog.first?.id ?? 1)
        let held = backlog.isEmpty ? [:] : try await platform.heldRecordings(serial: device.serial, after: oldest - 1)
        let meter = RateMeter(total: backlog.reduce(0) { $0 + Int64($1.size) }, count: backlog.count)
        var wifi = options.wifi.useWiFi(backlogBytes: meter.total)
        var summary = DeviceSyncSummary(synced: [], failed: [:], bytesOverLink: 0, bytesOverWiFi: 0, seconds: 0)
        events.yield(.progress(meter.progress(current: nil)))
        for recording in backlog {
            try await gate.wait()
            do {
                let synced = try await sync(recording, held: held[Int64(recording.id)], wifi: &wifi, meter: meter)
                summary.synced.append(synced)
                events.yield(.synced(synced))
            } catch let error as EarshotError where error.code == .integrity || error.code == .conflict {
                // This recording's bytes or digest were refused: it stays on the device; go on with the next.
                summary.failed[recording.id] = error.message
                events.yield(.failed(recording: recording.id, error))
                meter.skip(recording)
            }
            events.yield(.progress(meter.progress(current: nil)))
        }
        summary.bytesOverLink = meter.linkBytes
        summary.bytesOverWiFi = meter.wifiBytes
        summary.seconds = ProcessInfo.processInfo.systemUptime - started - gate.pausedSeconds
        return summary
    }

    // MARK: One recording

    private func sync(
        _ recording: EarshotDevice.DeviceRecording, held: EarshotAPI.DeviceRecording?, wifi: inout Bool,
        meter: RateMeter
    ) async throws -> SyncedRecording {
        let sha = recording.sha256Hex
        let journalURL = DeviceSyncJournal.location(
            in: options.stateDirectory, baseURL: platform.baseURL, serial: device.serial, recording: recording.id,
            sha256: sha)
        let saved = DeviceSyncJournal.load(from: journalURL)
        var resumed = saved != nil
        var viaWiFi = saved?.viaWiFi ?? false
        var recordID: String

        if let held {
            guard held.sha256.lowercased() == sha else {
                throw EarshotError(
                    .conflict,
                    "recording \(recording.id): the server holds a different file (SHA-256 \(held.sha256)) than the "
                        + "device's (\(sha)); it is kept on the device")
            }
            recordID = held.recordID
            resumed = true
        } else {
            var journal = try await prepare(recording, saved: saved, url: journalURL, wifi: wifi)
            if journal.stage == .uploading {
                meter.begin(recording, done: journal.storedBytes, viaWiFi: journal.viaWiFi)
                if journal.viaWiFi {
                    do {
                        try await uploadOverWiFi(recording, journal: &journal, url: journalURL, meter: meter)
                    } catch let error as EarshotError where error.code == .device || error.code == .deviceOffline {
                        // No Wi-Fi on this device (or it failed): the link carries this one and the rest.
                        wifi = false
                        journal.viaWiFi = false
                        try journal.save(to: journalURL)
                        meter.begin(recording, done: journal.storedBytes, viaWiFi: false)
                    }
                }
                if !journal.viaWiFi {
                    try await uploadOverLink(recording, journal: &journal, url: journalURL, meter: meter)
                }
                viaWiFi = journal.viaWiFi
                journal.fileID = try await platform.complete(
                    fileID: journal.fileID, uploadID: journal.uploadID, etags: journal.etags,
                    filetype: journal.filetype)
                journal.stage = .completed
                try journal.save(to: journalURL)
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
                    DeviceSyncJournal.remove(journalURL)
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
                try journal.save(to: journalURL)
            }
            recordID = journal.recordID ?? ""
        }
        // The server confirmed it holds this digest: now, and only now, the device may free it.
        let freed = try await device.acknowledge(recording.id, sha256: recording.sha256)
        DeviceSyncJournal.remove(journalURL)
        meter.finish(recording)
        return SyncedRecording(
            id: recording.id, recordID: recordID, sha256: sha, size: Int64(recording.size),
            durationMs: Int(recording.durationMs), startedAtMs: Int64(recording.startedAtMs),
            freedBytes: Int64(freed ?? 0), resumed: resumed, viaWiFi: viaWiFi)
    }

    /// The journal to continue with: the saved one when the server still has its upload, else a new plan.
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

    /// Reads each missing part from the device in windows, spooling it, then PUTs it.
    private func uploadOverLink(
        _ recording: EarshotDevice.DeviceRecording, journal: inout DeviceSyncJournal, url: URL, meter: RateMeter
    ) async throws {
        let spool = PartSpool(url: DeviceSyncJournal.spool(for: url))
        for number in 1...max(journal.partCount, 1) where journal.etags[number] == nil {
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
            while have < length {
                try await gate.wait()
                let ask = UInt32(min(Int64(options.window), length - have))
                let bytes = try await device.read(recording.id, offset: UInt64(range.lowerBound + have), length: ask)
                guard !bytes.isEmpty else {
                    throw EarshotError(
                        .device, "recording \(recording.id) ended at byte \(range.lowerBound + have) of \(range.upperBound)")
                }
                let take = bytes.prefix(Int(length - have))
                try spool.append(Array(take))
                have += Int64(take.count)
                meter.advance(recording, done: journal.storedBytes + have, linkBytes: Int64(take.count))
                events.yield(.progress(meter.progress(current: recording)))
            }
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
        let missing = (1...max(journal.partCount, 1)).filter { journal.etags[$0] == nil }
        guard !missing.isEmpty else { return }
        let parts = try missing.map { number -> EarshotDevice.UploadPlan.Part in
            guard let target = journal.partURLs[number] else {
                throw EarshotError(.invalidResponse, "the upload plan has no URL for part \(number)")
            }
            let range = journal.range(of: number)
            return .init(
                number: UInt16(number), offset: UInt64(range.lowerBound), length: UInt32(range.count), url: target)
        }
        let expires = UInt64(Date().timeIntervalSince1970 * 1000) + 15 * 60 * 1000
        let before = journal.storedBytes
        wifiState.start(recording.id)
        try await device.upload(EarshotDevice.UploadPlan(recording: recording.id, expiresAtMs: expires, parts: parts))
        var lastChange = ProcessInfo.processInfo.systemUptime
        var lastSent: UInt64 = 0
        while true {
            try await Task.sleep(nanoseconds: 100_000_000)
            let state = wifiState.state(of: recording.id)
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
