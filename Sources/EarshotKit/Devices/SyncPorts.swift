import EarshotAPI
import EarshotDevice
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the sync engine needs from a connected, authenticated device. ``LinkedDevice`` is the real one (the
/// protocol over a ``DeviceConnection``); tests drive the engine with their own.
protocol SyncDevice: Sendable {
    var serial: String { get }
    /// Every recording on the device, oldest first.
    func recordings() async throws -> [EarshotDevice.DeviceRecording]
    /// Up to `length` bytes from `offset`.
    func read(_ id: UInt32, offset: UInt64, length: UInt32) async throws -> [UInt8]
    /// Reads consecutive `windows` of a recording in order, handing each one's bytes to `body` (which may throw to
    /// stop), with up to `ahead` more windows already requested while `body` runs, so the link never idles.
    ///
    /// `then` is the first window of the recording to be read next, when it is known: once every window of this read
    /// is requested, it is requested too, so the link carries it while this recording is finished; the next `read`
    /// whose first window it is takes its answer. A prefetch nobody takes is dropped by the next `read` or by
    /// ``dropPrefetch()``.
    func read(
        _ id: UInt32, windows: [Range<UInt64>], ahead: Int, then: (id: UInt32, window: Range<UInt64>)?,
        into body: (Range<UInt64>, [UInt8]) async throws -> Void
    ) async throws
    /// Drops a read requested by `then` that no `read` took (the sync ended or went another way).
    func dropPrefetch()
    /// Frees a recording; nil when it was already freed (an earlier acknowledgement got through).
    func acknowledge(_ id: UInt32, sha256: [UInt8]) async throws -> UInt64?
    /// Hands the device a Wi-Fi upload plan (events report the outcome).
    func upload(_ plan: EarshotDevice.UploadPlan) async throws
    /// Plans one ``upload(batch:)`` may hand over: 1 for a device that takes one plan at a time (protocol version 1).
    var uploadBatchLimit: Int { get }
    /// Hands the device several recordings' Wi-Fi plans at once (`upload batch`); it uploads them in this order and
    /// events report each one's outcome.
    func upload(batch: [EarshotDevice.UploadPlan]) async throws
}

/// What the sync engine needs from the platform. ``PlatformSync`` is the real one.
protocol SyncPlatform: Sendable {
    /// Identifies the server in journal keys.
    var baseURL: String { get }
    /// Device recording id → what the server holds for `serial`, ids above `after`.
    func heldRecordings(serial: String, after: Int64) async throws -> [Int64: EarshotAPI.DeviceRecording]
    func plan(size: Int64, filetype: String) async throws -> EarshotAPI.UploadPlan
    /// The device's own Wi-Fi upload plan.
    func wifiPlan(serial: String, recording: Int64, size: Int64, filetype: String) async throws
        -> EarshotAPI.UploadPlan
    /// The device's own Wi-Fi plans of several recordings (at most `DeviceUploadPlansRequest.limit`), in order.
    func wifiPlans(serial: String, _ recordings: [DeviceUploadPlanRequest]) async throws -> [EarshotAPI.UploadPlan]
    /// The server's view of an upload; nil when it no longer exists.
    func status(uploadID: String) async throws -> UploadStatus?
    /// PUTs one part and returns its ETag once the server holds exactly `body` (``PartPut``).
    func put(_ body: Data, to url: String, part: Int) async throws -> String
    /// complete-upload (idempotent); returns the file id.
    func complete(fileID: String, uploadID: String, etags: [Int: String], filetype: String) async throws -> String
    /// Registers the recording: the server checks the digest and makes the record once.
    func register(_ request: DeviceRecordingRequest, serial: String) async throws -> EarshotAPI.DeviceRecording
}

extension SyncDevice {
    /// One window at a time, for devices that cannot queue requests (no prefetch).
    func read(
        _ id: UInt32, windows: [Range<UInt64>], ahead: Int, then: (id: UInt32, window: Range<UInt64>)?,
        into body: (Range<UInt64>, [UInt8]) async throws -> Void
    ) async throws {
        for window in windows {
            try await body(window, try await read(id, offset: window.lowerBound, length: UInt32(window.count)))
        }
    }

    func dropPrefetch() {}

    var uploadBatchLimit: Int { 1 }

    func upload(batch: [EarshotDevice.UploadPlan]) async throws {
        throw EarshotError(.device, "this device takes one Wi-Fi plan at a time")
    }
}

extension SyncPlatform {
    /// One plan at a time, for platforms without the batch route.
    func wifiPlans(serial: String, _ recordings: [DeviceUploadPlanRequest]) async throws -> [EarshotAPI.UploadPlan] {
        var plans: [EarshotAPI.UploadPlan] = []
        for recording in recordings {
            plans.append(
                try await wifiPlan(
                    serial: serial, recording: recording.recordingID, size: recording.size, filetype: recording.codec))
        }
        return plans
    }
}

/// The device protocol over a connection, as the sync engine wants it: device errors as ``EarshotError``.
struct LinkedDevice: SyncDevice {
    let connection: DeviceConnection
    let serial: String
    var timeoutSeconds: Double = 30
    /// The protocol version `hello` negotiated: 2 and later take `upload batch`.
    var version: UInt8 = ProtocolVersion.first
    /// The read a `then` requested ahead of its recording's own `read`.
    private let prefetched = Locked<DeviceConnection.PendingRead?>(nil)

    init(
        connection: DeviceConnection, serial: String, timeoutSeconds: Double = 30,
        version: UInt8 = ProtocolVersion.first
    ) {
        self.connection = connection
        self.serial = serial
        self.timeoutSeconds = timeoutSeconds
        self.version = version
    }

    func recordings() async throws -> [EarshotDevice.DeviceRecording] {
        var all: [EarshotDevice.DeviceRecording] = []
        var after: UInt32 = 0
        while true {
            guard case .recordings(let page) = try await call(.list(after: after, limit: 64)) else {
                throw EarshotError(.device, "the device answered list with something else")
            }
            all += page.recordings
            guard page.more, let last = page.recordings.last else { return all }
            after = last.id
        }
    }

    func read(_ id: UInt32, offset: UInt64, length: UInt32) async throws -> [UInt8] {
        do {
            return try await connection.read(
                recording: id, offset: offset, length: length, timeoutSeconds: timeoutSeconds)
        } catch let error as DeviceProtocolError {
            throw DeviceErrors.wrap(error, "read of recording \(id) at \(offset)")
        }
    }

    /// Pipelined: the device answers requests in the order they were sent, so `ahead` reads wait in its queue while
    /// one is spooled, and the next recording's first window (`then`) follows this one's last. A read whose answer is
    /// no longer wanted (an error, a cancelled sync) is dropped.
    func read(
        _ id: UInt32, windows: [Range<UInt64>], ahead: Int, then: (id: UInt32, window: Range<UInt64>)?,
        into body: (Range<UInt64>, [UInt8]) async throws -> Void
    ) async throws {
        var started: [DeviceConnection.PendingRead] = []
        var next = 0
        var follow = then
        defer { for read in started { connection.cancel(read) } }
        if let early = prefetched.withLock({ pending in defer { pending = nil }; return pending }) {
            if let first = windows.first, early.recording == id, early.offset == first.lowerBound,
                early.length == UInt32(first.count)
            {
                started.append(early)
                next = 1
            } else {
                connection.cancel(early)
            }
        }
        do {
            while next < windows.count || !started.isEmpty {
                while started.count <= max(ahead, 0), next < windows.count {
                    let window = windows[next]
                    started.append(
                        try connection.startRead(
                            recording: id, offset: window.lowerBound, length: UInt32(window.count)))
                    next += 1
                }
                if next == windows.count, started.count <= max(ahead, 0), let (nextID, window) = follow {
                    let early = try connection.startRead(
                        recording: nextID, offset: window.lowerBound, length: UInt32(window.count))
                    prefetched.withLock { $0 = early }
                    follow = nil
                }
                let read = started.removeFirst()
                let bytes = try await connection.bytes(of: read, timeoutSeconds: timeoutSeconds)
                try await body(read.offset..<read.offset + UInt64(read.length), bytes)
            }
        } catch let error as DeviceProtocolError {
            throw DeviceErrors.wrap(error, "read of recording \(id)")
        }
    }

    func dropPrefetch() {
        if let early = prefetched.withLock({ pending in defer { pending = nil }; return pending }) {
            connection.cancel(early)
        }
    }

    func acknowledge(_ id: UInt32, sha256: [UInt8]) async throws -> UInt64? {
        do {
            guard case .acknowledged(let freed, _) = try await connection.single(
                .acknowledge(recording: id, sha256: sha256), timeoutSeconds: timeoutSeconds)
            else { throw EarshotError(.device, "the device answered acknowledge with something else") }
            return freed
        } catch let error as DeviceProtocolError where error.code == .notFound {
            return nil  // freed by an earlier acknowledgement whose answer was lost
        } catch let error as DeviceProtocolError {
            throw DeviceErrors.wrap(error, "acknowledge of recording \(id)")
        }
    }

    func upload(_ plan: EarshotDevice.UploadPlan) async throws {
        _ = try await call(.upload(plan))
    }

    var uploadBatchLimit: Int { version >= ProtocolVersion.uploadBatch ? EarshotDevice.UploadPlan.batchLimit : 1 }

    func upload(batch: [EarshotDevice.UploadPlan]) async throws {
        _ = try await call(.uploadBatch(batch))
    }

    func call(_ request: DeviceRequest) async throws -> DeviceResponse {
        do {
            return try await connection.single(request, timeoutSeconds: timeoutSeconds)
        } catch let error as DeviceProtocolError {
            throw DeviceErrors.wrap(error, "\(request.opcode)")
        }
    }
}

enum DeviceErrors {
    /// A device protocol error as the SDK's error: `BIND_OCCUPIED` keeps the platform's code, everything else is
    /// ``EarshotError/Code/device`` with the device's error underneath.
    static func wrap(_ error: DeviceProtocolError, _ what: String) -> EarshotError {
        let code: EarshotError.Code = error.code == .bindOccupied ? .bindOccupied : .device
        return EarshotError(code, "the device refused \(what): \(error.message)", underlying: error)
    }
}

/// The platform side of a sync over ``EarshotClient``.
struct PlatformSync: SyncPlatform {
    let client: EarshotClient
    var retry = RetryPolicy()

    var baseURL: String { client.configuration.baseURL.absoluteString }

    func heldRecordings(serial: String, after: Int64) async throws -> [Int64: EarshotAPI.DeviceRecording] {
        let all = try await DevicesClient(client: client).recordings(serial: serial, after: after)
        return Dictionary(all.map { ($0.recordingID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func plan(size: Int64, filetype: String) async throws -> EarshotAPI.UploadPlan {
        try await client.send(
            .post(APIPath.generatePresignedURLs, json: UploadPlanRequest(filesize: Int(size), filetype: filetype)))
    }

    func wifiPlan(serial: String, recording: Int64, size: Int64, filetype: String) async throws
        -> EarshotAPI.UploadPlan
    {
        try await DevicesClient(client: client).uploadPlan(
            DeviceUploadPlanRequest(recordingID: recording, size: size, codec: filetype), serial: serial)
    }

    func wifiPlans(serial: String, _ recordings: [DeviceUploadPlanRequest]) async throws -> [EarshotAPI.UploadPlan] {
        try await DevicesClient(client: client).uploadPlans(
            DeviceUploadPlansRequest(recordings: recordings), serial: serial)
    }

    func status(uploadID: String) async throws -> UploadStatus? {
        do { return try await client.uploadStatus(uploadID) } catch let error as EarshotError
            where error.code == .notFound
        {
            return nil
        }
    }

    func put(_ body: Data, to url: String, part: Int) async throws -> String {
        let checksum = CRC32.checksum(body)
        var attempt = 1
        while true {
            try Task.checkCancellation()
            do {
                return try await PartPut.send(body, checksum: checksum, to: url, part: part, client: client)
            } catch let error as EarshotError
                where (error.isTransient || error.code == .integrity) && attempt < retry.maxAttempts
            {
                try await retry.pause(afterAttempt: attempt)
                attempt += 1
            }
        }
    }

    func complete(fileID: String, uploadID: String, etags: [Int: String], filetype: String) async throws -> String {
        let parts = etags.sorted { $0.key < $1.key }.map {
            CompleteUploadRequest.Part(partNumber: $0.key, etag: $0.value)
        }
        let response: CompleteUploadResponse = try await client.send(
            .post(
                APIPath.completeUpload,
                // No filetype: the server keeps its plan's (a Wi-Fi plan names Opus `ogg`).
                json: CompleteUploadRequest(fileID: fileID, uploadID: uploadID, partList: parts),
                idempotent: true))
        return response.fileID
    }

    func register(_ request: DeviceRecordingRequest, serial: String) async throws -> EarshotAPI.DeviceRecording {
        try await DevicesClient(client: client).register(request, serial: serial)
    }
}

/// The device's recording type (EarshotAPI has a `DeviceRecording` too: the server's record of one).
typealias EarshotDeviceRecording = EarshotDevice.DeviceRecording
