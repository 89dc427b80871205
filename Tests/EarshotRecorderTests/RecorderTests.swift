import EarshotCrypto
import EarshotDevice
import EarshotRecorder
import EarshotTestSupport
import Foundation
import Testing

/// The simulated recorder as a firmware would behave: binding and its refusals, proof of ownership, listing,
/// resumable reads, freeing only on an acknowledgement with the right digest, storage limits, and recordings that
/// survive a kill mid-recording.
@Suite struct RecorderTests {
    /// A recorder on a fresh card in a temporary directory.
    struct Card {
        let directory: URL
        let recorder: Recorder

        init(capacity: UInt64 = 8 << 20, directory: URL? = nil) throws {
            let directory = try directory ?? TestEnvironment.makeTemporaryDirectory("recorder")
            var configuration = Recorder.Configuration(
                identity: RecorderIdentity(serial: "ES1-TEST01", capacity: capacity), directory: directory)
            configuration.bindCodeFile = directory.appendingPathComponent("bind-code")
            configuration.audioPerBatteryPercent = .seconds(1)
            self.directory = directory
            self.recorder = try Recorder(configuration: configuration)
        }

        func reopen() throws -> Card { try Card(directory: directory) }
    }

    /// A connection that has said hello.
    func connect(_ recorder: Recorder) async throws -> (Recorder.Session, HelloReply) {
        var session = Recorder.Session(linkFrameSize: 244)
        let responses = await recorder.handle(
            .hello(HelloRequest(maximumFrameSize: 512, clockMs: 0, client: "tests")), session: &session)
        guard case .hello(let reply) = try #require(responses.first) else {
            throw DeviceProtocolError(.unexpected, "\(responses)")
        }
        return (session, reply)
    }

    func failure(_ responses: [DeviceResponse]) -> DeviceProtocolError.Code? {
        if case .failed(let error) = responses.first { return error.code }
        return nil
    }

    /// Records `seconds` of a tone through the microphone path.
    func record(_ recorder: Recorder, seconds: Double) async throws -> DeviceRecording {
        try await recorder.startRecording()
        let samples = (0..<Int(seconds * 16_000)).map { Float(sin(Double($0) * 0.1) * 0.3) }
        for start in stride(from: 0, to: samples.count, by: 1_600) {
            try await recorder.record(Array(samples[start..<min(start + 1_600, samples.count)]))
        }
        return try await recorder.stopRecording()
    }

    /// Binds `owner` with the code the device shows; returns the binding secret.
    func bind(_ card: Card, owner: String = "acme/ada") async throws -> [UInt8] {
        var (session, _) = try await connect(card.recorder)
        let code = try String(contentsOf: card.directory.appendingPathComponent("bind-code"), encoding: .utf8)
        let responses = await card.recorder.handle(.bind(code: code, owner: owner), session: &session)
        guard case .bound(let secret) = try #require(responses.first) else {
            throw DeviceProtocolError(.unexpected, "\(responses)")
        }
        return secret
    }

    @Test func bindingTakesTheShownCodeOnceAndRefusesAnotherOwner() async throws {
        let card = try Card()
        var (session, hello) = try await connect(card.recorder)
        #expect(hello.serial == "ES1-TEST01" && !hello.bound && hello.maximumFrameSize == 244)
        #expect(failure(await card.recorder.handle(.list(after: 0, limit: 10), session: &session)) == .notBound)
        #expect(
            failure(await card.recorder.handle(.bind(code: "000000x", owner: "acme/ada"), session: &session))
                == .badBindCode)

        let code = try #require(await card.recorder.bindCode)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        let secret = try await bind(card)
        #expect(secret.count == 32)
        #expect(await card.recorder.bindCode == nil)
        #expect(!FileManager.default.fileExists(atPath: card.directory.appendingPathComponent("bind-code").path))

        var (other, _) = try await connect(card.recorder)
        #expect(
            failure(await card.recorder.handle(.bind(code: code, owner: "acme/bob"), session: &other)) == .bindOccupied)
        #expect(failure(await card.recorder.handle(.list(after: 0, limit: 10), session: &other)) == .notAuthenticated)
    }

    @Test func wrongCodesLockBindingAfterFiveTries() async throws {
        let card = try Card()
        var (session, _) = try await connect(card.recorder)
        let code = try #require(await card.recorder.bindCode)
        let wrong = code == "123456" ? "654321" : "123456"
        for _ in 0..<5 {
            #expect(
                failure(await card.recorder.handle(.bind(code: wrong, owner: "x/y"), session: &session)) == .badBindCode
            )
        }
        // Locked: even the right code is refused now.
        #expect(failure(await card.recorder.handle(.bind(code: code, owner: "x/y"), session: &session)) == .rateLimited)
    }

    @Test func theOwnerProvesItselfWithTheSecretAgainstEachChallenge() async throws {
        let card = try Card()
        let secret = try await bind(card)
        var (session, hello) = try await connect(card.recorder)
        #expect(hello.bound)
        let stale = HMAC.authenticationCode(key: secret, message: [UInt8](repeating: 0, count: 16)).bytes
        #expect(
            failure(await card.recorder.handle(.authenticate(owner: "acme/ada", proof: stale), session: &session))
                == .notAuthenticated)
        let proof = HMAC.authenticationCode(key: secret, message: hello.challenge).bytes
        #expect(
            failure(await card.recorder.handle(.authenticate(owner: "acme/bob", proof: proof), session: &session))
                == .notAuthenticated)
        #expect(
            await card.recorder.handle(.authenticate(owner: "acme/ada", proof: proof), session: &session) == [.done])
        #expect(
            await card.recorder.handle(.list(after: 0, limit: 10), session: &session) == [
                .recordings(RecordingPage(recordings: [], more: false))
            ])
    }

    @Test func recordingsAreListedReadFromAnyOffsetAndFreedOnlyByTheirDigest() async throws {
        let card = try Card()
        let secret = try await bind(card)
        let first = try await record(card.recorder, seconds: 2)
        let second = try await record(card.recorder, seconds: 1)
        #expect(second.id == first.id + 1 && first.codec == .opus && first.durationMs == 2_000)
        var (session, hello) = try await connect(card.recorder)
        _ = await card.recorder.handle(
            .authenticate(
                owner: "acme/ada", proof: HMAC.authenticationCode(key: secret, message: hello.challenge).bytes),
            session: &session)

        let page = await card.recorder.handle(.list(after: 0, limit: 1), session: &session)
        #expect(page == [.recordings(RecordingPage(recordings: [first], more: true))])

        // Read it in two windows, the second resuming at an arbitrary offset, and check the digest end to end.
        var bytes: [UInt8] = []
        for (offset, length) in [(UInt64(0), UInt32(1_000)), (UInt64(1_000), UInt32(1 << 20))] {
            let chunks = await card.recorder.handle(
                .read(recording: first.id, offset: offset, length: length), session: &session)
            for case .chunk(let chunk) in chunks {
                #expect(chunk.offset == UInt64(bytes.count))
                // A chunk is one message of at most 16 frames: its header is paid once per chunk, not per frame.
                #expect(chunk.bytes.count <= 16 * (244 - Frame.overhead) - RecordingChunk.headerSize)
                bytes += chunk.bytes
            }
            if case .chunk(let last) = chunks.last { #expect(last.final) }
        }
        #expect(UInt64(bytes.count) == first.size)
        #expect(DigestAlgorithm.sha256.hash(bytes).bytes == first.sha256)
        #expect(
            failure(
                await card.recorder.handle(
                    .read(recording: first.id, offset: first.size + 1, length: 1), session: &session)) == .outOfRange)

        // A wrong digest frees nothing; the right one frees it once; a replay is refused and touches nothing.
        #expect(
            failure(
                await card.recorder.handle(.acknowledge(recording: first.id, sha256: second.sha256), session: &session))
                == .digestMismatch)
        #expect(await card.recorder.recordings.count == 2)
        let freed = await card.recorder.handle(
            .acknowledge(recording: first.id, sha256: first.sha256), session: &session)
        #expect(freed == [.acknowledged(freed: first.size, storageUsed: second.size)])
        #expect(
            failure(
                await card.recorder.handle(.acknowledge(recording: first.id, sha256: first.sha256), session: &session))
                == .notFound)
        #expect(await card.recorder.recordings == [second])
        // After a restart the freed recording stays freed and ids are not reused.
        let reopened = try card.reopen()
        #expect(await reopened.recorder.recordings == [second])
        #expect(try await record(reopened.recorder, seconds: 0.5).id == second.id + 1)
    }

    @Test func aKillMidRecordingKeepsTheAudioRecordedSoFar() async throws {
        let card = try Card()
        try await card.recorder.startRecording()
        let samples = (0..<(5 * 16_000)).map { Float(sin(Double($0) * 0.05) * 0.3) }
        try await card.recorder.record(samples)
        // The process dies here: no stopRecording. The card is opened again by the next run.
        let reopened = try card.reopen()
        let recordings = await reopened.recorder.recordings
        let recovered = try #require(recordings.first)
        #expect(recordings.count == 1)
        #expect((3_900...5_000).contains(Int(recovered.durationMs)), "\(recovered.durationMs) ms")
        #expect(recovered.startedAtMs > 0)
        let file = card.directory.appendingPathComponent(String(format: "recordings/%08u.ogg", recovered.id))
        let data = try Data(contentsOf: file)
        #expect(UInt64(data.count) == recovered.size)
        #expect(DigestAlgorithm.sha256.hash(data).bytes == recovered.sha256)
    }

    @Test func aFullCardStopsTheRecordingAndSaysSo() async throws {
        let card = try Card(capacity: 40_000)
        let (_, events) = await card.recorder.subscribe()
        try await card.recorder.startRecording()
        let second = (0..<16_000).map { Float(sin(Double($0) * 0.1) * 0.3) }
        for _ in 0..<30 { try await card.recorder.record(second) }
        // The device stopped by itself: nothing is recording and the recording is listed.
        #expect(await !card.recorder.status.recording)
        let recording = try #require(await card.recorder.recordings.first)
        #expect(recording.size <= 40_000)
        #expect(recording.durationMs < 30_000, "stopped early: \(recording.durationMs) ms")
        var seen: [DeviceEvent] = []
        for await event in events {
            seen.append(event)
            if case .storageFull = event { break }
        }
        #expect(seen.contains { if case .storageLevel(80, _, _) = $0 { true } else { false } })
        #expect(seen.contains { if case .recordingStopped = $0 { true } else { false } })
        await #expect(throws: DeviceProtocolError.self) { try await card.recorder.startRecording() }
    }

    @Test func unbindWithClearEmptiesTheDeviceAndShowsANewCode() async throws {
        let card = try Card()
        let secret = try await bind(card)
        _ = try await record(card.recorder, seconds: 1)
        var (session, hello) = try await connect(card.recorder)
        _ = await card.recorder.handle(
            .authenticate(
                owner: "acme/ada", proof: HMAC.authenticationCode(key: secret, message: hello.challenge).bytes),
            session: &session)
        #expect(await card.recorder.handle(.unbind(clear: true), session: &session) == [.done])
        let status = await card.recorder.status
        let owner = await card.recorder.owner
        let code = await card.recorder.bindCode
        #expect(status.recordingCount == 0 && status.storageUsed == 0)
        #expect(owner == nil && code != nil)
        #expect(failure(await card.recorder.handle(.list(after: 0, limit: 1), session: &session)) == .notBound)
    }
}
