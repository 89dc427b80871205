import EarshotDevice
import Testing

/// Every message survives the wire (encoded, cut into BLE-sized frames, decoded) unchanged, and a message that is
/// short, long, or carries an invalid value is refused with the field it got wrong.
@Suite struct MessageTests {
    static let digest = (0..<32).map { UInt8($0 * 5) }
    static let recording = DeviceRecording(
        id: 7, startedAtMs: 1_764_000_000_000, durationMs: 61_500, size: 123_456, codec: .opus, sha256: digest)

    static let requests: [DeviceRequest] = [
        .hello(HelloRequest(maximumFrameSize: 244, clockMs: 1_764_000_000_123, client: "earshot-sdk/1.0")),
        .info,
        .bind(code: "493 027", owner: "acme/ada"),
        .authenticate(owner: "acme/ada", proof: Array(repeating: 0xAB, count: 32)),
        .unbind(clear: true),
        .list(after: 3, limit: 50),
        .read(recording: 7, offset: 65_536, length: 32_768),
        .acknowledge(recording: 7, sha256: digest),
        .upload(
            UploadPlan(
                recording: 7, expiresAtMs: 1_764_000_900_000,
                parts: [
                    .init(number: 1, offset: 0, length: 100_000, url: "http://127.0.0.1:8080/upload/part?n=1&sig=ä"),
                    .init(number: 2, offset: 100_000, length: 23_456, url: "http://127.0.0.1:8080/upload/part?n=2"),
                ])),
        .uploadBatch(batch(3)),
        .uploadBatch(batch(UploadPlan.batchLimit)),
        .record(.start),
    ]

    static let responses: [(DeviceResponse, Opcode)] = [
        (
            .hello(
                HelloReply(
                    version: 1, maximumFrameSize: 244, serial: "ES1-000123", model: "Earshot S1 (simulated)",
                    firmware: "1.0.0", bound: false, challenge: Array(0..<16))), .hello
        ),
        (
            .info(
                DeviceStatus(
                    batteryPercent: 81, charging: false, storageUsed: 1 << 30, storageTotal: 8 << 30,
                    recordingCount: 12, bound: true, recording: false)), .info
        ),
        (.bound(secret: Array(repeating: 9, count: 32)), .bind),
        (.done, .unbind),
        (.done, .uploadBatch),
        (.recordings(RecordingPage(recordings: [recording, recording], more: true)), .list),
        (.chunk(RecordingChunk(recording: 7, offset: 4_096, final: true, bytes: [1, 2, 3, 4])), .read),
        (.acknowledged(freed: 123_456, storageUsed: 1 << 20), .acknowledge),
        (.failed(DeviceProtocolError(.bindOccupied, "bound to another account: unbind it there first")), .bind),
    ]

    static let events: [DeviceEvent] = [
        .recordingStarted(id: 8), .recordingStopped(recording), .storageLevel(percent: 90, used: 9, total: 10),
        .storageFull(used: 10, total: 10), .batteryLow(percent: 15),
        .uploadProgress(recording: 7, sent: 1_000, total: 123_456),
        .uploadFinished(recording: 7, etags: [1: "\"etag-one\"", 2: "\"etag-two\""]),
        .uploadFailed(recording: 7, reason: "HTTP 403 from the part URL: the plan expired"),
    ]

    /// `count` one-part plans for recordings 1, 2, …
    static func batch(_ count: Int) -> [UploadPlan] {
        (1...count).map { id in
            UploadPlan(
                recording: UInt32(id), expiresAtMs: 1_764_000_900_000,
                parts: [.init(number: 1, offset: 0, length: 33_073, url: "http://127.0.0.1:8080/upload/upl_\(id)/1")])
        }
    }

    /// Sends `envelope` over a link of 20-byte frames and returns what arrives.
    func overTheWire(_ envelope: Envelope) throws -> DeviceMessage {
        var decoder = FrameDecoder()
        var assembler = MessageAssembler()
        decoder.append(envelope.encoded(maximumFrameSize: Frame.minimumSize))
        while let frame = try decoder.next() {
            if let message = try assembler.add(frame) { return try DeviceMessage(message) }
        }
        throw DeviceProtocolError(.malformed, "the message did not arrive")
    }

    @Test(arguments: requests)
    func requestsRoundTrip(_ request: DeviceRequest) throws {
        #expect(try overTheWire(request.envelope(sequence: 300)) == .request(request, sequence: 300))
    }

    @Test(arguments: responses)
    func responsesRoundTrip(_ response: DeviceResponse, to opcode: Opcode) throws {
        #expect(
            try overTheWire(response.envelope(to: opcode, sequence: 9)) == .response(response, to: opcode, sequence: 9))
    }

    @Test(arguments: events)
    func eventsRoundTrip(_ event: DeviceEvent) throws {
        let envelope = event.envelope(sequence: 65_535)
        #expect(envelope.flags == .event)
        #expect(try overTheWire(envelope) == .event(event, sequence: 65_535))
    }

    @Test func theRecordingDigestReadsAsHex() {
        #expect(Self.recording.sha256Hex.count == 64)
        #expect(Self.recording.sha256Hex.hasPrefix("00050a0f14"))
    }

    @Test func truncatedAndOverlongMessagesNameTheField() {
        let read = DeviceRequest.read(recording: 1, offset: 2, length: 3).envelope(sequence: 1)
        var short = read
        short.payload.removeLast()
        #expect(throws: DeviceProtocolError(.malformed, "read.length: needs 4 byte(s), 3 left in the message")) {
            try DeviceRequest(short)
        }
        var long = read
        long.payload.append(0)
        #expect(throws: DeviceProtocolError(.malformed, "read request: 1 unexpected byte(s) after the last field")) {
            try DeviceRequest(long)
        }
    }

    @Test func aBatchThatIsEmptyTooLargeOrCutShortIsRefused() {
        func refused(_ envelope: Envelope, _ message: String) {
            #expect(throws: DeviceProtocolError(.malformed, message)) { try DeviceRequest(envelope) }
        }
        var empty = DeviceRequest.uploadBatch(Self.batch(1)).envelope(sequence: 1)
        empty.payload = [0]
        refused(empty, "upload_batch.count: 0 plans; a batch holds 1 to 16")
        // 17 plans: the count byte is checked before any plan is read.
        refused(
            DeviceRequest.uploadBatch(Self.batch(UploadPlan.batchLimit + 1)).envelope(sequence: 1),
            "upload_batch.count: 17 plans; a batch holds 1 to 16")
        // A count that promises more plans than the message holds.
        var promised = DeviceRequest.uploadBatch(Self.batch(2)).envelope(sequence: 1)
        promised.payload[0] = 3
        refused(promised, "upload_batch.plan.recording: needs 4 byte(s), 0 left in the message")
        // Cut inside the last plan's URL, and one byte too many.
        var short = DeviceRequest.uploadBatch(Self.batch(2)).envelope(sequence: 1)
        short.payload.removeLast(3)
        #expect {
            try DeviceRequest(short)
        } throws: {
            ($0 as? DeviceProtocolError)?.code == .malformed
                && ($0 as? DeviceProtocolError)?.message.hasPrefix("upload_batch.plan.part.url") == true
        }
        var long = DeviceRequest.uploadBatch(Self.batch(2)).envelope(sequence: 1)
        long.payload.append(0)
        refused(long, "uploadBatch request: 1 unexpected byte(s) after the last field")
    }

    @Test func invalidValuesAreRefused() {
        func refused(_ envelope: Envelope, _ message: String) {
            #expect(throws: DeviceProtocolError(.malformed, message)) { try DeviceMessage(envelope) }
        }
        refused(
            Envelope(type: Opcode.unbind.rawValue, flags: [], sequence: 1, payload: [2]),
            "unbind.clear: 2 is not a boolean (0 or 1)")
        refused(
            Envelope(type: Opcode.record.rawValue, flags: [], sequence: 1, payload: [3]),
            "record.action: 3 is neither start (1) nor stop (2)")
        refused(
            Envelope(type: Opcode.bind.rawValue, flags: [], sequence: 1, payload: [2, 0xC3, 0x28, 0]),
            "bind.code is not valid UTF-8")
        var page = DeviceResponse.recordings(RecordingPage(recordings: [Self.recording], more: false))
            .envelope(to: .list, sequence: 1)
        page.payload[2 + 4 + 8 + 4 + 8] = 9  // the codec byte
        refused(page, "recording.codec: 9 is neither Opus (1) nor WAV (2)")
    }

    @Test func unknownTypesAndEventKindsAreRefused() {
        #expect {
            try DeviceMessage(Envelope(type: 0x55, flags: [], sequence: 1, payload: []))
        } throws: { ($0 as? DeviceProtocolError)?.code == .unknownType }
        #expect {
            try DeviceMessage(Envelope(type: Opcode.event.rawValue, flags: .event, sequence: 1, payload: [99]))
        } throws: { ($0 as? DeviceProtocolError)?.code == .unknownType }
        #expect {
            try DeviceMessage(Envelope(type: Opcode.event.rawValue, flags: [], sequence: 1, payload: []))
        } throws: { ($0 as? DeviceProtocolError)?.code == .unknownType }
    }
}
