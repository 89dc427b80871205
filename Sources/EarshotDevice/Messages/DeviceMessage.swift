/// A request from a client (an app, the SDK's `DeviceManager`) to a device.
public enum DeviceRequest: Hashable, Sendable {
    case hello(HelloRequest)
    case info
    /// Bind with the one-time code the device shows; `owner` names the account (opaque to the device).
    case bind(code: String, owner: String)
    /// Prove ownership: `proof` is HMAC-SHA256(binding secret, the session's challenge).
    case authenticate(owner: String, proof: [UInt8])
    /// Forget the owner; with `clear`, erase every recording too.
    case unbind(clear: Bool)
    /// Up to `limit` recordings with ids above `after`.
    case list(after: UInt32, limit: UInt16)
    /// `length` bytes of a recording from `offset` (fewer at its end).
    case read(recording: UInt32, offset: UInt64, length: UInt32)
    /// The platform holds the recording with this SHA-256: free it.
    case acknowledge(recording: UInt32, sha256: [UInt8])
    /// Upload a recording over Wi-Fi with this plan.
    case upload(UploadPlan)
    /// Upload several recordings over Wi-Fi, one after another in this order (protocol version 2; at most
    /// ``UploadPlan/batchLimit`` plans, each for a different recording).
    case uploadBatch([UploadPlan])
    case record(RecordAction)

    /// The message type.
    public var opcode: Opcode {
        switch self {
        case .hello: .hello
        case .info: .info
        case .bind: .bind
        case .authenticate: .authenticate
        case .unbind: .unbind
        case .list: .list
        case .read: .read
        case .acknowledge: .acknowledge
        case .upload: .upload
        case .uploadBatch: .uploadBatch
        case .record: .record
        }
    }

    /// The request as a message with `sequence`.
    public func envelope(sequence: UInt16) -> Envelope {
        var writer = ByteWriter()
        switch self {
        case .hello(let hello):
            writer.u8(hello.minimumVersion)
            writer.u8(hello.maximumVersion)
            writer.u16(hello.maximumFrameSize)
            writer.u64(hello.clockMs)
            writer.shortString(hello.client)
        case .info:
            break
        case .bind(let code, let owner):
            writer.shortString(code)
            writer.shortString(owner)
        case .authenticate(let owner, let proof):
            writer.shortString(owner)
            writer.fixed(proof, count: 32)
        case .unbind(let clear):
            writer.bool(clear)
        case .list(let after, let limit):
            writer.u32(after)
            writer.u16(limit)
        case .read(let recording, let offset, let length):
            writer.u32(recording)
            writer.u64(offset)
            writer.u32(length)
        case .acknowledge(let recording, let sha256):
            writer.u32(recording)
            writer.fixed(sha256, count: 32)
        case .upload(let plan):
            writer.plan(plan)
        case .uploadBatch(let plans):
            writer.u8(UInt8(clamping: plans.count))
            for plan in plans.prefix(Int(UInt8.max)) { writer.plan(plan) }
        case .record(let action):
            writer.u8(action.rawValue)
        }
        return Envelope(type: opcode.rawValue, flags: [], sequence: sequence, payload: writer.bytes)
    }

    /// Decodes a request message.
    ///
    /// - Throws: ``DeviceProtocolError`` `unknownType` or `malformed` (naming the field).
    public init(_ envelope: Envelope) throws(DeviceProtocolError) {
        guard let opcode = Opcode(rawValue: envelope.type), opcode != .event else {
            throw DeviceProtocolError(.unknownType, "no request of type \(envelope.type)")
        }
        var reader = ByteReader(envelope.payload[...])
        switch opcode {
        case .hello:
            self = .hello(
                HelloRequest(
                    minimumVersion: try reader.u8("hello.minimum_version"),
                    maximumVersion: try reader.u8("hello.maximum_version"),
                    maximumFrameSize: try reader.u16("hello.maximum_frame"), clockMs: try reader.u64("hello.clock_ms"),
                    client: try reader.shortString("hello.client")))
        case .info:
            self = .info
        case .bind:
            self = .bind(code: try reader.shortString("bind.code"), owner: try reader.shortString("bind.owner"))
        case .authenticate:
            self = .authenticate(
                owner: try reader.shortString("authenticate.owner"), proof: try reader.fixed(32, "authenticate.proof"))
        case .unbind:
            self = .unbind(clear: try reader.bool("unbind.clear"))
        case .list:
            self = .list(after: try reader.u32("list.after"), limit: try reader.u16("list.limit"))
        case .read:
            self = .read(
                recording: try reader.u32("read.recording"), offset: try reader.u64("read.offset"),
                length: try reader.u32("read.length"))
        case .acknowledge:
            self = .acknowledge(
                recording: try reader.u32("acknowledge.recording"), sha256: try reader.fixed(32, "acknowledge.sha256"))
        case .upload:
            self = .upload(try reader.plan("upload"))
        case .uploadBatch:
            let count = try reader.u8("upload_batch.count")
            guard (1...UploadPlan.batchLimit).contains(Int(count)) else {
                throw DeviceProtocolError(
                    .malformed,
                    "upload_batch.count: \(count) plans; a batch holds 1 to \(UploadPlan.batchLimit)")
            }
            var plans: [UploadPlan] = []
            for _ in 0..<count { plans.append(try reader.plan("upload_batch.plan")) }
            self = .uploadBatch(plans)
        case .record:
            let raw = try reader.u8("record.action")
            guard let action = RecordAction(rawValue: raw) else {
                throw DeviceProtocolError(.malformed, "record.action: \(raw) is neither start (1) nor stop (2)")
            }
            self = .record(action)
        case .event:
            fatalError("unreachable: events are refused above")
        }
        try reader.finish("\(opcode) request")
    }
}

/// A device's answer to a request (the request's type and sequence number, flagged ``Frame/Flags/response``).
public enum DeviceResponse: Hashable, Sendable {
    case hello(HelloReply)
    case info(DeviceStatus)
    /// Bound: the 32-byte binding secret, sent once; the owner keeps it to authenticate later sessions.
    case bound(secret: [UInt8])
    /// Done: the answer to `authenticate`, `unbind`, `upload` (accepted; events report progress) and `record`.
    case done
    case recordings(RecordingPage)
    /// One chunk of a `read`; the last one is flagged `final`.
    case chunk(RecordingChunk)
    /// Freed `freed` bytes; `storageUsed` is what is left in use.
    case acknowledged(freed: UInt64, storageUsed: UInt64)
    /// The request failed (flagged ``Frame/Flags/error``).
    case failed(DeviceProtocolError)

    /// The response to a request of type `opcode` with `sequence`, as a message.
    public func envelope(to opcode: Opcode, sequence: UInt16) -> Envelope {
        var writer = ByteWriter()
        var flags: Frame.Flags = .response
        switch self {
        case .hello(let reply):
            writer.u8(reply.version)
            writer.u16(reply.maximumFrameSize)
            writer.shortString(reply.serial)
            writer.shortString(reply.model)
            writer.shortString(reply.firmware)
            writer.bool(reply.bound)
            writer.fixed(reply.challenge, count: 16)
        case .info(let status):
            writer.u8(status.batteryPercent)
            writer.bool(status.charging)
            writer.u64(status.storageUsed)
            writer.u64(status.storageTotal)
            writer.u32(status.recordingCount)
            writer.bool(status.bound)
            writer.bool(status.recording)
        case .bound(let secret):
            writer.fixed(secret, count: 32)
        case .done:
            break
        case .recordings(let page):
            writer.u16(UInt16(clamping: page.recordings.count))
            for recording in page.recordings.prefix(Int(UInt16.max)) { writer.recording(recording) }
            writer.bool(page.more)
        case .chunk(let chunk):
            writer.u32(chunk.recording)
            writer.u64(chunk.offset)
            writer.bool(chunk.final)
            writer.rest(chunk.bytes)
        case .acknowledged(let freed, let used):
            writer.u64(freed)
            writer.u64(used)
        case .failed(let error):
            flags.insert(.error)
            writer.u16(error.code.rawValue)
            writer.longString(error.message)
        }
        return Envelope(type: opcode.rawValue, flags: flags, sequence: sequence, payload: writer.bytes)
    }

    /// Decodes a response message (its type says which request it answers).
    ///
    /// - Throws: ``DeviceProtocolError`` `unknownType` or `malformed` (naming the field).
    public init(_ envelope: Envelope) throws(DeviceProtocolError) {
        guard let opcode = Opcode(rawValue: envelope.type), opcode != .event else {
            throw DeviceProtocolError(.unknownType, "no response of type \(envelope.type)")
        }
        var reader = ByteReader(envelope.payload[...])
        if envelope.flags.contains(.error) {
            let code = DeviceProtocolError.Code(rawValue: try reader.u16("error.code"))
            self = .failed(DeviceProtocolError(code, try reader.longString("error.message")))
            try reader.finish("error response")
            return
        }
        switch opcode {
        case .hello:
            self = .hello(
                HelloReply(
                    version: try reader.u8("hello.version"), maximumFrameSize: try reader.u16("hello.maximum_frame"),
                    serial: try reader.shortString("hello.serial"), model: try reader.shortString("hello.model"),
                    firmware: try reader.shortString("hello.firmware"), bound: try reader.bool("hello.bound"),
                    challenge: try reader.fixed(16, "hello.challenge")))
        case .info:
            self = .info(
                DeviceStatus(
                    batteryPercent: try reader.u8("info.battery"), charging: try reader.bool("info.charging"),
                    storageUsed: try reader.u64("info.storage_used"),
                    storageTotal: try reader.u64("info.storage_total"),
                    recordingCount: try reader.u32("info.recording_count"), bound: try reader.bool("info.bound"),
                    recording: try reader.bool("info.recording")))
        case .bind:
            self = .bound(secret: try reader.fixed(32, "bind.secret"))
        case .authenticate, .unbind, .upload, .uploadBatch, .record:
            self = .done
        case .list:
            let count = try reader.u16("list.count")
            var recordings: [DeviceRecording] = []
            for _ in 0..<count { recordings.append(try reader.recording()) }
            self = .recordings(RecordingPage(recordings: recordings, more: try reader.bool("list.more")))
        case .read:
            self = .chunk(
                RecordingChunk(
                    recording: try reader.u32("chunk.recording"), offset: try reader.u64("chunk.offset"),
                    final: try reader.bool("chunk.final"), bytes: reader.rest()))
        case .acknowledge:
            self = .acknowledged(
                freed: try reader.u64("acknowledged.freed"), storageUsed: try reader.u64("acknowledged.storage_used"))
        case .event:
            fatalError("unreachable: events are refused above")
        }
        try reader.finish("\(opcode) response")
    }
}

extension DeviceEvent {
    /// Event kinds inside an event message (first payload byte); never renumber.
    enum Kind: UInt8 {
        case recordingStarted = 1, recordingStopped, storageLevel, storageFull, batteryLow, uploadProgress
        case uploadFinished, uploadFailed
    }

    /// The event as a message with the device's event counter `sequence`.
    public func envelope(sequence: UInt16) -> Envelope {
        var writer = ByteWriter()
        switch self {
        case .recordingStarted(let id):
            writer.u8(Kind.recordingStarted.rawValue)
            writer.u32(id)
        case .recordingStopped(let recording):
            writer.u8(Kind.recordingStopped.rawValue)
            writer.recording(recording)
        case .storageLevel(let percent, let used, let total):
            writer.u8(Kind.storageLevel.rawValue)
            writer.u8(percent)
            writer.u64(used)
            writer.u64(total)
        case .storageFull(let used, let total):
            writer.u8(Kind.storageFull.rawValue)
            writer.u64(used)
            writer.u64(total)
        case .batteryLow(let percent):
            writer.u8(Kind.batteryLow.rawValue)
            writer.u8(percent)
        case .uploadProgress(let recording, let sent, let total):
            writer.u8(Kind.uploadProgress.rawValue)
            writer.u32(recording)
            writer.u64(sent)
            writer.u64(total)
        case .uploadFinished(let recording, let etags):
            writer.u8(Kind.uploadFinished.rawValue)
            writer.u32(recording)
            writer.u16(UInt16(clamping: etags.count))
            for (number, etag) in etags.sorted(by: { $0.key < $1.key }) {
                writer.u16(number)
                writer.shortString(etag)
            }
        case .uploadFailed(let recording, let reason):
            writer.u8(Kind.uploadFailed.rawValue)
            writer.u32(recording)
            writer.longString(reason)
        }
        return Envelope(type: Opcode.event.rawValue, flags: .event, sequence: sequence, payload: writer.bytes)
    }

    /// Decodes an event message.
    ///
    /// - Throws: ``DeviceProtocolError`` `unknownType` (not an event, or an unknown kind) or `malformed`.
    public init(_ envelope: Envelope) throws(DeviceProtocolError) {
        guard envelope.type == Opcode.event.rawValue else {
            throw DeviceProtocolError(.unknownType, "type \(envelope.type) is not an event")
        }
        var reader = ByteReader(envelope.payload[...])
        let raw = try reader.u8("event.kind")
        guard let kind = Kind(rawValue: raw) else {
            throw DeviceProtocolError(.unknownType, "no event of kind \(raw)")
        }
        switch kind {
        case .recordingStarted:
            self = .recordingStarted(id: try reader.u32("event.recording"))
        case .recordingStopped:
            self = .recordingStopped(try reader.recording())
        case .storageLevel:
            self = .storageLevel(
                percent: try reader.u8("event.percent"), used: try reader.u64("event.used"),
                total: try reader.u64("event.total"))
        case .storageFull:
            self = .storageFull(used: try reader.u64("event.used"), total: try reader.u64("event.total"))
        case .batteryLow:
            self = .batteryLow(percent: try reader.u8("event.percent"))
        case .uploadProgress:
            self = .uploadProgress(
                recording: try reader.u32("event.recording"), sent: try reader.u64("event.sent"),
                total: try reader.u64("event.total"))
        case .uploadFinished:
            let recording = try reader.u32("event.recording")
            var etags: [UInt16: String] = [:]
            for _ in 0..<(try reader.u16("event.part_count")) {
                etags[try reader.u16("event.part.number")] = try reader.shortString("event.part.etag")
            }
            self = .uploadFinished(recording: recording, etags: etags)
        case .uploadFailed:
            self = .uploadFailed(
                recording: try reader.u32("event.recording"), reason: try reader.longString("event.reason"))
        }
        try reader.finish("\(kind) event")
    }
}

/// Anything that arrives: a request (at a device), a response or an event (at a client).
public enum DeviceMessage: Hashable, Sendable {
    case request(DeviceRequest, sequence: UInt16)
    case response(DeviceResponse, to: Opcode, sequence: UInt16)
    case event(DeviceEvent, sequence: UInt16)

    /// Decodes a message by its flags and type.
    ///
    /// - Throws: ``DeviceProtocolError`` `unknownType` or `malformed`.
    public init(_ envelope: Envelope) throws(DeviceProtocolError) {
        if envelope.flags.contains(.event) {
            self = .event(try DeviceEvent(envelope), sequence: envelope.sequence)
        } else if envelope.flags.contains(.response) {
            guard let opcode = Opcode(rawValue: envelope.type) else {
                throw DeviceProtocolError(.unknownType, "no response of type \(envelope.type)")
            }
            self = .response(try DeviceResponse(envelope), to: opcode, sequence: envelope.sequence)
        } else {
            self = .request(try DeviceRequest(envelope), sequence: envelope.sequence)
        }
    }
}

extension ByteWriter {
    /// An upload plan: recording, expiry, then its parts (`upload`, and each plan of `upload batch`).
    fileprivate mutating func plan(_ plan: UploadPlan) {
        u32(plan.recording)
        u64(plan.expiresAtMs)
        u16(UInt16(clamping: plan.parts.count))
        for part in plan.parts.prefix(Int(UInt16.max)) {
            u16(part.number)
            u64(part.offset)
            u32(part.length)
            longString(part.url)
        }
    }

    fileprivate mutating func recording(_ recording: DeviceRecording) {
        u32(recording.id)
        u64(recording.startedAtMs)
        u32(recording.durationMs)
        u64(recording.size)
        u8(recording.codec.rawValue)
        fixed(recording.sha256, count: 32)
    }
}

extension ByteReader {
    /// An upload plan; `field` prefixes the names in errors (`upload`, `upload_batch.plan`).
    fileprivate mutating func plan(_ field: String) throws(DeviceProtocolError) -> UploadPlan {
        let recording = try u32("\(field).recording")
        let expires = try u64("\(field).expires_at_ms")
        let count = try u16("\(field).part_count")
        var parts: [UploadPlan.Part] = []
        for _ in 0..<count {
            parts.append(
                UploadPlan.Part(
                    number: try u16("\(field).part.number"), offset: try u64("\(field).part.offset"),
                    length: try u32("\(field).part.length"), url: try longString("\(field).part.url")))
        }
        return UploadPlan(recording: recording, expiresAtMs: expires, parts: parts)
    }

    fileprivate mutating func recording() throws(DeviceProtocolError) -> DeviceRecording {
        let id = try u32("recording.id")
        let started = try u64("recording.started_at_ms")
        let duration = try u32("recording.duration_ms")
        let size = try u64("recording.size")
        let raw = try u8("recording.codec")
        guard let codec = AudioCodec(rawValue: raw) else {
            throw DeviceProtocolError(.malformed, "recording.codec: \(raw) is neither Opus (1) nor WAV (2)")
        }
        return DeviceRecording(
            id: id, startedAtMs: started, durationMs: duration, size: size, codec: codec,
            sha256: try fixed(32, "recording.sha256"))
    }
}
