public import EarshotAudio
internal import EarshotCore
internal import EarshotCrypto
public import EarshotDevice
public import Foundation

/// A recorder device that really runs: it records (Opus in Ogg on its card), keeps battery and storage state,
/// enforces binding, and answers the device protocol (``handle(_:session:)``) the way a firmware would.
///
/// Transports (``RecorderLink``) turn bytes into requests and responses into frames; the microphone
/// (``record(_:)``) feeds it samples. Everything a client can observe follows `docs/device-protocol.md`.
public actor Recorder {
    /// Settings of a recorder.
    public struct Configuration: Sendable {
        /// Serial, model, firmware and capacity (used when the card is new).
        public var identity: RecorderIdentity
        /// The card: state and recordings.
        public var directory: URL
        /// Wrong bind codes allowed before the device locks binding for ``bindLockout``.
        public var bindAttempts = 5
        /// How long binding stays locked after too many wrong codes.
        public var bindLockout: Duration = .seconds(60)
        /// Recorded audio that uses one percent of battery: 18 minutes, so a full battery records 30 hours, as card
        /// recorders on the market do.
        public var audioPerBatteryPercent: Duration = .seconds(18 * 60)
        /// The encoder's settings.
        public var encoding = OggOpusStream.Configuration()
        /// Where the device shows its bind code (a file a test or a person reads), besides ``bindCode``.
        public var bindCodeFile: URL?
        /// The device's Wi-Fi for handed-over uploads; nil for a device without Wi-Fi (`upload` answers `busy`).
        public var wifi: WiFiUploader.Configuration? = WiFiUploader.Configuration()

        public init(identity: RecorderIdentity, directory: URL) {
            self.identity = identity
            self.directory = directory
        }
    }

    /// What one connection has negotiated and proved.
    public struct Session: Sendable {
        /// The challenge `hello` handed out; `authenticate` proves the secret against it.
        public fileprivate(set) var challenge: [UInt8] = []
        /// Whether `hello` has run.
        public fileprivate(set) var greeted = false
        /// Whether the owner has proved itself (or just bound) on this connection.
        public fileprivate(set) var authenticated = false
        /// The frame size both sides use (the minimum until `hello`).
        public fileprivate(set) var maximumFrameSize = Frame.minimumSize
        /// The protocol version `hello` negotiated.
        public fileprivate(set) var version = ProtocolVersion.first
        /// The largest frame this device's link carries.
        public let linkFrameSize: Int

        /// A new connection over a link whose frames hold at most `linkFrameSize` bytes.
        public init(linkFrameSize: Int) {
            self.linkFrameSize = linkFrameSize
        }
    }

    /// Log lines of the device (binds, recordings, acknowledgements).
    let logger = Logger(label: "recorder")
    private let configuration: Configuration
    private let storage: RecorderStorage
    private var stream: OggOpusStream?
    private var failedBindAttempts = 0
    private var bindLockedUntil: ContinuousClock.Instant?
    private var reportedStorageLevel: UInt8 = 0
    private var batteryBudget: Duration = .zero
    private var subscribers: [UInt64: AsyncStream<DeviceEvent>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0
    private let wifi: WiFiUploader?
    /// The Wi-Fi upload in progress (one at a time), cancelled when the device stops or unbinds.
    private var upload: (recording: UInt32, task: Task<Void, Never>)?
    private var uploadGeneration: UInt64 = 0
    /// Plans handed over by `upload batch`, uploaded in order after the one in progress.
    private var uploadQueue: [UploadPlan] = []
    /// Plans queued at most (in progress not counted): a firmware's fixed buffer.
    static let uploadQueueLimit = 32

    /// Opens (or creates) the recorder's card and recovers what an interrupted run left.
    ///
    /// - Throws: when the directory cannot be used.
    public init(configuration: Configuration) throws {
        let storage = try RecorderStorage(directory: configuration.directory, identity: configuration.identity)
        if storage.state.binding == nil, storage.state.bindCode == nil {
            try storage.update { $0.bindCode = Self.newBindCode() }
        }
        try Self.show(storage.state.bindCode, in: configuration.bindCodeFile)
        self.configuration = configuration
        self.storage = storage
        self.wifi = configuration.wifi.map { WiFiUploader(configuration: $0) }
        self.reportedStorageLevel = Self.level(used: storage.used, total: storage.state.identity.capacity)
    }

    /// The device's identity.
    public var identity: RecorderIdentity { storage.state.identity }
    /// The code an unbound device shows; nil while bound.
    public var bindCode: String? { storage.state.bindCode }
    /// The owner, when bound.
    public var owner: String? { storage.state.binding?.owner }
    /// Battery, storage and state.
    public var status: DeviceStatus {
        DeviceStatus(
            batteryPercent: storage.state.batteryPercent, charging: false, storageUsed: storage.used,
            storageTotal: storage.state.identity.capacity, recordingCount: UInt32(storage.recordings.count),
            bound: storage.state.binding != nil, recording: storage.isRecording)
    }
    /// The finished recordings, oldest first.
    public var recordings: [DeviceRecording] { storage.list(after: 0) }

    /// Events for one connection, until it unsubscribes.
    public func subscribe() -> (id: UInt64, events: AsyncStream<DeviceEvent>) {
        let (events, continuation) = AsyncStream.makeStream(
            of: DeviceEvent.self, bufferingPolicy: .bufferingNewest(256))
        nextSubscriber += 1
        subscribers[nextSubscriber] = continuation
        return (nextSubscriber, events)
    }

    /// Ends a connection's events.
    public func unsubscribe(_ id: UInt64) {
        subscribers.removeValue(forKey: id)?.finish()
    }

    // MARK: The protocol

    /// Answers one request on `session` (updated: `hello` and `authenticate` change it). A `read` is answered by
    /// several chunks, everything else by one response; a refused request by `.failed` with the reason.
    public func handle(_ request: DeviceRequest, session: inout Session) -> [DeviceResponse] {
        do {
            return try answer(request, session: &session)
        } catch let error as DeviceProtocolError {
            return [.failed(error)]
        } catch {
            logger.error("request failed", metadata: ["request": "\(request.opcode)", "error": "\(error)"])
            return [.failed(DeviceProtocolError(.deviceFault, "the device failed: \(error)"))]
        }
    }

    private func answer(_ request: DeviceRequest, session: inout Session) throws -> [DeviceResponse] {
        if case .hello(let hello) = request { return [try greet(hello, session: &session)] }
        guard session.greeted else { throw DeviceProtocolError(.unexpected, "say hello first") }
        switch request {
        case .hello:
            return []  // handled above
        case .info:
            return [.info(status)]
        case .bind(let code, let owner):
            return [try bind(code: code, owner: owner, session: &session)]
        case .authenticate(let owner, let proof):
            guard let binding = storage.state.binding else {
                throw DeviceProtocolError(.notBound, "this device is not bound: bind it with the code it shows")
            }
            let expected = HMAC.authenticationCode(
                key: Digest(hex: binding.secret)?.bytes ?? [], message: session.challenge
            ).bytes
            guard owner == binding.owner, ConstantTime.equals(expected, proof) else {
                throw DeviceProtocolError(.notAuthenticated, "the proof does not match this device's owner")
            }
            session.authenticated = true
            return [.done]
        default:
            break
        }
        try requireOwner(session)
        switch request {
        case .unbind(let clear):
            cancelUpload()
            if clear {
                stream = nil
                try storage.eraseAll()
            } else if storage.isRecording {
                _ = try stopRecording()
            }
            let code = Self.newBindCode()
            try storage.update {
                $0.binding = nil
                $0.bindCode = code
            }
            try Self.show(code, in: configuration.bindCodeFile)
            session.authenticated = false
            logger.notice("unbound", metadata: ["cleared": "\(clear)"])
            return [.done]
        case .list(let after, let limit):
            let all = storage.list(after: after)
            let page = Array(all.prefix(Int(max(limit, 1))))
            return [.recordings(RecordingPage(recordings: page, more: all.count > page.count))]
        case .read(let id, let offset, let length):
            let bytes = try storage.read(id, offset: offset, length: Int(min(length, 1 << 20)))
            // A chunk is one message of up to `framesPerChunk` fragments: its 13-byte header is paid once per chunk,
            // not once per frame (on a 244-byte link, 95 % of the bytes are audio instead of 90 %).
            let chunk = max(
                (session.maximumFrameSize - Frame.overhead) * Self.framesPerChunk - RecordingChunk.headerSize, 1)
            guard !bytes.isEmpty else {
                return [.chunk(RecordingChunk(recording: id, offset: offset, final: true, bytes: []))]
            }
            return stride(from: 0, to: bytes.count, by: chunk).map { start in
                let end = min(start + chunk, bytes.count)
                return .chunk(
                    RecordingChunk(
                        recording: id, offset: offset + UInt64(start), final: end == bytes.count,
                        bytes: Array(bytes[start..<end])))
            }
        case .acknowledge(let id, let sha256):
            let freed = try storage.acknowledge(id, sha256: sha256)
            logger.info("recording acknowledged and freed", metadata: ["recording": "\(id)", "bytes": "\(freed)"])
            reportedStorageLevel = Self.level(used: storage.used, total: storage.state.identity.capacity)
            return [.acknowledged(freed: freed, storageUsed: storage.used)]
        case .record(.start):
            try startRecording()
            return [.done]
        case .record(.stop):
            _ = try stopRecording()
            return [.done]
        case .upload(let plan):
            try startUpload(plan)
            return [.done]
        case .uploadBatch(let plans):
            guard session.version >= ProtocolVersion.uploadBatch else {
                throw DeviceProtocolError(
                    .unexpected,
                    "upload batch needs protocol version \(ProtocolVersion.uploadBatch); say hello with it")
            }
            try queueUploads(plans)
            return [.done]
        case .hello, .info, .bind, .authenticate:
            return []  // handled above
        }
    }

    private func greet(_ hello: HelloRequest, session: inout Session) throws -> DeviceResponse {
        guard hello.minimumVersion <= ProtocolVersion.newest, hello.maximumVersion >= ProtocolVersion.first,
            hello.minimumVersion <= hello.maximumVersion
        else {
            throw DeviceProtocolError(
                .unsupportedVersion,
                "this device speaks protocol versions \(ProtocolVersion.first)–\(ProtocolVersion.newest); the client "
                    + "speaks \(hello.minimumVersion)–\(hello.maximumVersion)")
        }
        session.version = min(hello.maximumVersion, ProtocolVersion.newest)
        session.greeted = true
        session.authenticated = false
        session.challenge = try SecureRandom.bytes(16)
        session.maximumFrameSize = max(
            Frame.minimumSize, min(Int(hello.maximumFrameSize), session.linkFrameSize))
        let identity = storage.state.identity
        return .hello(
            HelloReply(
                version: session.version, maximumFrameSize: UInt16(session.maximumFrameSize), serial: identity.serial,
                model: identity.model, firmware: identity.firmware, bound: storage.state.binding != nil,
                challenge: session.challenge))
    }

    private func bind(code: String, owner: String, session: inout Session) throws -> DeviceResponse {
        if let binding = storage.state.binding {
            throw DeviceProtocolError(
                .bindOccupied,
                binding.owner == owner
                    ? "this device is already bound to you: authenticate instead"
                    : "this device is bound to another account: unbind it there first")
        }
        if let until = bindLockedUntil, ContinuousClock.now < until {
            throw DeviceProtocolError(.rateLimited, "too many wrong codes: binding is locked for a while")
        }
        guard !owner.isEmpty, let expected = storage.state.bindCode,
            ConstantTime.equals(Array(expected.utf8), Array(code.filter(\.isNumber).utf8))
        else {
            failedBindAttempts += 1
            if failedBindAttempts >= configuration.bindAttempts {
                failedBindAttempts = 0
                bindLockedUntil = ContinuousClock.now + configuration.bindLockout
            }
            throw DeviceProtocolError(.badBindCode, "wrong bind code: use the code the device shows")
        }
        failedBindAttempts = 0
        let secret = try SecureRandom.bytes(32)
        try storage.update {
            $0.binding = .init(owner: owner, secret: Digest(bytes: secret).hex)
            $0.bindCode = nil  // a used code is never valid again
        }
        try Self.show(nil, in: configuration.bindCodeFile)
        session.authenticated = true
        logger.notice("bound", metadata: ["owner": "\(owner)"])
        return .bound(secret: secret)
    }

    private func requireOwner(_ session: Session) throws {
        guard storage.state.binding != nil else {
            throw DeviceProtocolError(.notBound, "this device is not bound: bind it with the code it shows")
        }
        guard session.authenticated else {
            throw DeviceProtocolError(.notAuthenticated, "authenticate as the device's owner first")
        }
    }

    // MARK: Wi-Fi handover

    private func startUpload(_ plan: UploadPlan) throws {
        guard wifi != nil else { throw DeviceProtocolError(.busy, "this device has no Wi-Fi link configured") }
        if let upload, upload.recording != plan.recording {
            throw DeviceProtocolError(.busy, "recording \(upload.recording) is uploading over Wi-Fi; try again after it")
        }
        if let queued = uploadQueue.first {
            throw DeviceProtocolError(.busy, "recording \(queued.recording) is queued for Wi-Fi; try again after it")
        }
        try check(plan)
        begin(plan)  // a fresh plan for the same recording replaces the old one
    }

    /// `upload batch`: checks every plan before queueing any (a refused batch queues nothing), then queues them after
    /// what is queued; a plan for a recording already queued or uploading replaces that one.
    private func queueUploads(_ plans: [UploadPlan]) throws {
        guard wifi != nil else { throw DeviceProtocolError(.busy, "this device has no Wi-Fi link configured") }
        let ids = plans.map(\.recording)
        guard Set(ids).count == ids.count else {
            throw DeviceProtocolError(.malformed, "upload batch: a recording appears twice")
        }
        for plan in plans { try check(plan) }
        let kept = uploadQueue.filter { !ids.contains($0.recording) }
        guard kept.count + plans.count <= Self.uploadQueueLimit else {
            throw DeviceProtocolError(
                .busy,
                "\(kept.count) uploads are queued and the device holds \(Self.uploadQueueLimit): hand these over after "
                    + "some finish")
        }
        uploadQueue = kept + plans
        if let upload, ids.contains(upload.recording) { cancelCurrentUpload() }
        if upload == nil { startNextUpload() }
        logger.info("Wi-Fi uploads queued", metadata: ["recordings": "\(ids)", "queued": "\(uploadQueue.count)"])
    }

    /// Checks a plan against its recording.
    private func check(_ plan: UploadPlan) throws {
        guard let recording = storage.list(after: plan.recording &- 1).first(where: { $0.id == plan.recording }) else {
            throw DeviceProtocolError(.notFound, "no recording \(plan.recording) on this device")
        }
        try WiFiUploader.validate(plan, size: recording.size, nowMs: UInt64(Date().timeIntervalSince1970 * 1000))
    }

    private func startNextUpload() {
        guard upload == nil, !uploadQueue.isEmpty else { return }
        begin(uploadQueue.removeFirst())
    }

    /// Starts uploading `plan` now, replacing the upload in progress.
    private func begin(_ plan: UploadPlan) {
        guard let wifi else { return }
        upload?.task.cancel()
        let id = plan.recording
        uploadGeneration &+= 1
        let generation = uploadGeneration
        // The task runs on this actor between its awaits; it is cancelled by unbind or a newer plan.
        let task = Task {
            do {
                let etags = try await wifi.upload(
                    plan, read: { part in try await self.readForUpload(id, part) },
                    progress: { sent, total in
                        await self.broadcast(.uploadProgress(recording: id, sent: sent, total: total))
                    })
                self.uploadEnded(generation, id, .uploadFinished(recording: id, etags: etags))
            } catch is CancellationError {
                self.uploadEnded(generation, id, nil)
            } catch {
                let reason = (error as? DeviceProtocolError)?.message ?? "\(error)"
                self.uploadEnded(generation, id, .uploadFailed(recording: id, reason: reason))
            }
        }
        upload = (id, task)
        logger.info("Wi-Fi upload started", metadata: ["recording": "\(id)", "parts": "\(plan.parts.count)"])
    }

    private func readForUpload(_ id: UInt32, _ part: UploadPlan.Part) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < Int(part.length) {
            let piece = try storage.read(
                id, offset: part.offset + UInt64(bytes.count), length: min(Int(part.length) - bytes.count, 1 << 20))
            if piece.isEmpty { break }
            bytes += piece
        }
        return bytes
    }

    private func uploadEnded(_ generation: UInt64, _ id: UInt32, _ event: DeviceEvent?) {
        if let event {
            broadcast(event)
            logger.info("Wi-Fi upload ended", metadata: ["recording": "\(id)", "event": "\(event)"])
        }
        if generation == uploadGeneration {
            upload = nil
            startNextUpload()
        }
    }

    /// Stops the upload in progress (its plan is dropped: no event reports it).
    private func cancelCurrentUpload() {
        upload?.task.cancel()
        upload = nil
        uploadGeneration &+= 1
    }

    /// Stops every Wi-Fi upload, queued ones too (unbind).
    private func cancelUpload() {
        uploadQueue.removeAll()
        cancelCurrentUpload()
    }

    /// Waits until the Wi-Fi upload in progress and every queued one ended (tests and a graceful stop).
    public func waitForUpload() async {
        while let upload {
            await upload.task.value
        }
    }

    // MARK: Recording

    /// Starts recording (the device's button, or `record start`).
    ///
    /// - Throws: ``DeviceProtocolError`` `busy` while recording, `storageFull` when the card is full, `deviceFault`
    ///   on a flat battery.
    public func startRecording() throws {
        guard !storage.isRecording else { throw DeviceProtocolError(.busy, "already recording") }
        guard storage.state.batteryPercent > 0 else { throw DeviceProtocolError(.deviceFault, "the battery is flat") }
        // Room for at least the headers and a second of audio.
        guard storage.used + 8_192 <= storage.state.identity.capacity else {
            broadcast(.storageFull(used: storage.used, total: storage.state.identity.capacity))
            throw DeviceProtocolError(.storageFull, "storage is full: sync and acknowledge recordings to free it")
        }
        let stream = try OggOpusStream(configuration: configuration.encoding)
        let id = try storage.begin(startedAtMs: UInt64(Date().timeIntervalSince1970 * 1000))
        try storage.append(stream.start())
        self.stream = stream
        broadcast(.recordingStarted(id: id))
        logger.info("recording started", metadata: ["recording": "\(id)"])
    }

    /// Feeds microphone samples (16 kHz mono) to the recording in progress; ignored when not recording.
    ///
    /// When the card fills up, the recording stops with what fits and `storage full` is reported: audio is never
    /// dropped silently.
    public func record(_ samples: [Float]) throws {
        guard let stream else { return }
        let pages = try stream.append(samples)
        if storage.used + UInt64(pages.count) + 4_096 > storage.state.identity.capacity {
            _ = try stopRecording()
            broadcast(.storageFull(used: storage.used, total: storage.state.identity.capacity))
            logger.warning("storage full: recording stopped")
            return
        }
        try storage.append(pages)
        drainBattery(samples.count)
        reportStorageLevel()
    }

    /// Stops recording and lists the recording; returns it.
    @discardableResult
    public func stopRecording() throws -> DeviceRecording {
        guard let stream else { throw DeviceProtocolError(.busy, "not recording") }
        self.stream = nil
        try storage.append(stream.finish())
        let recording = try storage.finish(durationMs: UInt32(clamping: stream.durationMs))
        broadcast(.recordingStopped(recording))
        logger.info(
            "recording stopped",
            metadata: [
                "recording": "\(recording.id)", "duration_ms": "\(recording.durationMs)", "bytes": "\(recording.size)",
            ])
        return recording
    }

    // MARK: Private

    private func broadcast(_ event: DeviceEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    private func reportStorageLevel() {
        let level = Self.level(used: storage.used, total: storage.state.identity.capacity)
        if level > reportedStorageLevel {
            broadcast(.storageLevel(percent: level, used: storage.used, total: storage.state.identity.capacity))
        }
        reportedStorageLevel = level
    }

    private func drainBattery(_ samples: Int) {
        batteryBudget += .milliseconds(samples / 16)
        guard batteryBudget >= configuration.audioPerBatteryPercent, storage.state.batteryPercent > 0 else { return }
        batteryBudget = .zero
        try? storage.update { $0.batteryPercent -= 1 }
        if [15, 10, 5].contains(storage.state.batteryPercent) {
            broadcast(.batteryLow(percent: storage.state.batteryPercent))
        }
    }

    /// The highest of 80, 90 and 95 % that `used` reaches (0 below 80 %).
    /// Frames per `read` chunk: a chunk is one message cut into this many fragments at most (16 × 232 bytes on a
    /// 244-byte link), small enough for a firmware to buffer, large enough that its header costs nothing.
    static let framesPerChunk = 16

    private static func level(used: UInt64, total: UInt64) -> UInt8 {
        let percent = total == 0 ? 100 : Double(used) * 100 / Double(total)
        return [95, 90, 80].first { percent >= Double($0) }.map(UInt8.init) ?? 0
    }

    private static func newBindCode() -> String {
        let bytes = (try? SecureRandom.bytes(4)) ?? [0, 0, 0, 0]
        let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// Writes the code the device shows (or removes it once bound).
    private static func show(_ code: String?, in file: URL?) throws {
        guard let file else { return }
        if let code {
            try Data((code + "\n").utf8).write(to: file, options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
