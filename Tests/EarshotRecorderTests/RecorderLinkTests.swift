import EarshotCrypto
import EarshotDevice
import EarshotRecorder
import EarshotTestSupport
import Foundation
import Testing

/// The recorder over its BLE-like link, driven by the client side of the protocol (`DeviceConnection`): the whole
/// sync of a recording at the link's frame size and no faster than its rate, garbage and bad requests answered
/// without harm, and a reconnecting app taking the device over.
@Suite struct RecorderLinkTests {
    /// Runs `body` with a recorder served on a loopback port.
    func withLink(
        bytesPerSecond: Int = 0, _ body: (Recorder, Int, URL) async throws -> Void
    ) async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("recorder-link")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Recorder.Configuration(
            identity: RecorderIdentity(serial: "ES1-LINK01"), directory: directory)
        configuration.bindCodeFile = directory.appendingPathComponent("bind-code")
        let recorder = try Recorder(configuration: configuration)
        var linkConfiguration = RecorderLink.Configuration()
        linkConfiguration.bytesPerSecond = bytesPerSecond
        let link = RecorderLink(recorder: recorder, configuration: linkConfiguration)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await link.run { continuation.yield($0) } }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(recorder, port, directory)
        serving.cancel()
        _ = await serving.result
    }

    /// Connects, says hello and binds as `owner`; returns the connection and the secret.
    func bound(_ recorder: Recorder, port: Int, owner: String = "acme/ada") async throws -> (DeviceConnection, [UInt8])
    {
        let connection = try DeviceConnection(port: port)
        let hello = try await connection.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "tests"))
        #expect(hello.serial == "ES1-LINK01" && connection.maximumFrameSize == 244)
        let code = try #require(await recorder.bindCode)
        guard case .bound(let secret) = try await connection.single(.bind(code: code, owner: owner)) else {
            throw DeviceProtocolError(.unexpected, "not bound")
        }
        return (connection, secret)
    }

    func tone(seconds: Int) -> [Float] {
        (0..<(seconds * 16_000)).map { Float(sin(Double($0) * 0.07) * 0.4) }
    }

    @Test func aRecordingSyncsWholeOverTheLinkAndIsFreedByItsDigest() async throws {
        try await withLink { recorder, port, _ in
            let (connection, _) = try await bound(recorder, port: port)
            defer { connection.close() }
            try await recorder.startRecording()
            try await recorder.record(tone(seconds: 3))
            let recording = try await recorder.stopRecording()

            guard case .recordings(let page) = try await connection.single(.list(after: 0, limit: 10)) else {
                Issue.record("no page")
                return
            }
            #expect(page.recordings == [recording])
            var bytes: [UInt8] = []
            while UInt64(bytes.count) < recording.size {
                bytes += try await connection.read(recording: recording.id, offset: UInt64(bytes.count), length: 4_096)
            }
            #expect(DigestAlgorithm.sha256.hash(bytes).bytes == recording.sha256)
            let freed = try await connection.single(.acknowledge(recording: recording.id, sha256: recording.sha256))
            #expect(freed == .acknowledged(freed: recording.size, storageUsed: 0))
            await #expect(
                throws: DeviceProtocolError(
                    .notFound, "no recording \(recording.id) on this device (already acknowledged?)")
            ) {
                _ = try await connection.single(.acknowledge(recording: recording.id, sha256: recording.sha256))
            }
        }
    }

    @Test func theLinkIsNeverFasterThanItsRate() async throws {
        try await withLink(bytesPerSecond: 64_000) { recorder, port, _ in
            let (connection, _) = try await bound(recorder, port: port)
            defer { connection.close() }
            try await recorder.startRecording()
            try await recorder.record(tone(seconds: 20))
            let recording = try await recorder.stopRecording()
            let started = ContinuousClock.now
            var received = 0
            while UInt64(received) < recording.size {
                received += try await connection.read(
                    recording: recording.id, offset: UInt64(received), length: 32_768, timeoutSeconds: 60
                ).count
            }
            let seconds =
                Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - started).components.seconds)
            // Frame headers add about 10 %; the payload rate can only be lower than the link's, never higher.
            #expect(Double(received) / seconds <= 64_000 * 1.05, "\(received) bytes in \(seconds) s")
        }
    }

    @Test func garbageAndBadRequestsAreAnsweredAndTheDeviceKeepsServing() async throws {
        try await withLink { recorder, port, _ in
            let raw = try StreamSocket.connect(port: port)
            defer { raw.close() }
            // Noise, a frame with a broken CRC, then a request of an unknown type and a truncated bind.
            var corrupted = DeviceRequest.info.envelope(sequence: 1).encoded(maximumFrameSize: 20)
            corrupted[corrupted.count - 1] ^= 0xFF
            try raw.send([0x00, 0xFF, 0xEA, 0x13] + corrupted)
            try raw.send(Envelope(type: 0x5A, flags: [], sequence: 2, payload: []).encoded(maximumFrameSize: 20))
            try raw.send(
                DeviceRequest.hello(HelloRequest(maximumFrameSize: 20, clockMs: 0, client: "raw"))
                    .envelope(sequence: 3).encoded(maximumFrameSize: 20))
            try raw.send(
                Envelope(type: Opcode.bind.rawValue, flags: [], sequence: 4, payload: [9, 1]).encoded(
                    maximumFrameSize: 20))
            var decoder = FrameDecoder()
            var assembler = MessageAssembler()
            var answers: [UInt16: DeviceResponse] = [:]
            while answers.count < 2 {
                let bytes = try raw.receive()
                try #require(!bytes.isEmpty)
                decoder.append(bytes)
                while let frame = try decoder.next() {
                    if let envelope = try assembler.add(frame),
                        case .response(let response, _, let sequence) = try DeviceMessage(envelope)
                    {
                        answers[sequence] = response
                    }
                }
            }
            if case .hello(let hello) = answers[3] {
                #expect(hello.serial == "ES1-LINK01")
            } else {
                Issue.record("\(answers)")
            }
            if case .failed(let error) = answers[4] {
                #expect(error.code == .malformed)
            } else {
                Issue.record("\(answers)")
            }
            #expect(answers[1] == nil && answers[2] == nil)  // a damaged frame and an unknown type get no answer
            // A proper client still gets served.
            let (connection, _) = try await bound(recorder, port: port)
            connection.close()
        }
    }

    @Test func aReconnectingAppTakesTheDeviceOver() async throws {
        try await withLink { recorder, port, _ in
            let (first, secret) = try await bound(recorder, port: port)
            let second = try DeviceConnection(port: port)
            defer { second.close() }
            let hello = try await second.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "tests"))
            let proof = HMAC.authenticationCode(key: secret, message: hello.challenge).bytes
            #expect(try await second.single(.authenticate(owner: "acme/ada", proof: proof)) == .done)
            await #expect(throws: DeviceProtocolError.self) { _ = try await first.single(.info, timeoutSeconds: 5) }
        }
    }
}
