import EarshotAPI
import EarshotEval
import EarshotKit
import EarshotServer
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `LiveSession` against the real server in this process with real speech (JFK's clip): streamed with server VAD it
/// gives partials then finals matching the offline transcript, and becomes the record its `created` event names; a
/// client secret opens a manual 16 kHz session; bad credentials, refused settings, refused client events, a full
/// server and a server shutting down each surface clearly. It waits its turn at the platform gate like the server's
/// live suites; its time limit is a hang guard.
@Suite(.serialized, .enabled(if: RealAudio.available, RealAudio.missingReason), .timeLimit(.minutes(30)))
struct LiveSessionTests {
    /// JFK's clip as raw PCM16 mono at `rate`.
    static func pcm(_ rate: Int) throws -> Data {
        let directory = try TestEnvironment.makeTemporaryDirectory("livekit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("jfk.pcm")
        try FFmpeg.convert(RealAudio.jfk, to: output, ["-f", "s16le", "-ac", "1", "-ar", String(rate)])
        return try Data(contentsOf: output)
    }

    static func collect(_ events: AsyncStream<LiveEvent>) async -> [LiveEvent] {
        var all: [LiveEvent] = []
        for await event in events { all.append(event) }
        return all
    }

    /// Sends `audio` in 100 ms chunks, `speed` times faster than real time.
    static func stream(_ audio: Data, rate: Int, speed: Double, to session: LiveSession) async throws {
        let chunk = rate * 2 / 10
        var offset = 0
        while offset < audio.count {
            let end = min(audio.count, offset + chunk)
            try await session.append(audio: audio.subdata(in: offset..<end))
            offset = end
            try await Task.sleep(nanoseconds: UInt64(100_000_000 / speed))
        }
    }

    static func wer(_ reference: String, _ hypothesis: String) -> Double {
        let normalizer = TextNormalizer(configuration: .defaults(for: .english))
        return PairsBenchmark.score([(normalizer.normalize(reference), normalizer.normalize(hypothesis))]).errorRate
    }

    /// The record of a session, once the server made it (a moment after the close).
    static func record(_ id: String, client: EarshotClient) async throws -> RecordDetail {
        let records = RecordsClient(client: client)
        let deadline = Date().addingTimeInterval(300)
        while true {
            do {
                return try await records.get(id)
            } catch let error as EarshotError where error.code == .notFound && Date() < deadline {
                try await Task.sleep(nanoseconds: 200_000_000)
            }
        }
    }

    @Test func streamingJFKGivesPartialsThenFinalsMatchingTheOfflineTextAndBecomesTheRecord() async throws {
        let audio = try Self.pcm(24_000)
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner("Live kit"))
            let client = EarshotClient(baseURL: platform.base, token: token)
            // The first decode loads the model: longer than URLSession's default minute on a loaded machine.
            let patient = URLSessionConfiguration.default
            patient.timeoutIntervalForRequest = 900
            let offlineClient = EarshotClient(
                configuration: .init(baseURL: platform.base, token: token, session: URLSession(configuration: patient)))
            let offline = try await TranscriptionClient(client: offlineClient).transcribe(
                fileAt: RealAudio.jfk, model: "asr-fast", language: "en"
            ).text

            let session = try await LiveSession.connect(
                client: client,
                settings: .init(
                    model: "gpt-4o-transcribe", language: "en", serverVAD: .init(silenceDurationMs: 700),
                    interim: true))
            let recordID = try #require(session.recordID)
            #expect(recordID.hasPrefix("rec"))
            #expect(session.info?.serverVAD == LiveSession.ServerVAD(silenceDurationMs: 700))
            #expect(session.info?.model == "gpt-4o-transcribe" && session.info?.sessionID?.hasPrefix("sess") == true)
            #expect(session.info?.sampleRate == 24_000)
            async let collected = Self.collect(session.events)
            // At the pace it is spoken: faster, the engine has no idle moment for partial decodes, so there would be
            // no interim text to check.
            try await Self.stream(audio, rate: 24_000, speed: 1, to: session)
            let settled = await session.finish(timeout: 420)
            let events = await collected
            #expect(settled, "\(events)")

            guard case .created(let created) = events.first?.kind else {
                Issue.record("the first event is not created: \(events.prefix(2))")
                return
            }
            #expect(created.recordID == recordID)
            #expect(events.contains { if case .updated = $0.kind { true } else { false } })
            guard case .closed(let code, _) = events.last?.kind else {
                Issue.record("the last event is not closed: \(events.suffix(2))")
                return
            }
            #expect(code == 1000)
            #expect(events.contains { if case .speechStarted = $0.kind { true } else { false } })

            // Partials before finals: each item's deltas come before its completed event.
            let firstDelta = try #require(
                events.firstIndex { if case .transcriptionDelta = $0.kind { true } else { false } }, "\(events)")
            let firstFinal = try #require(
                events.firstIndex { if case .transcriptionCompleted = $0.kind { true } else { false } }, "\(events)")
            #expect(firstDelta < firstFinal)
            // Interim text (asked for): before its item's final, and none after it.
            let interims = events.enumerated().compactMap { index, event -> (Int, String)? in
                if case .transcriptionInterim(let item, _) = event.kind { (index, item) } else { nil }
            }
            #expect(!interims.isEmpty, "\(events)")
            for (index, item) in interims {
                let final = events.firstIndex {
                    if case .transcriptionCompleted(item, _) = $0.kind { true } else { false }
                }
                #expect(final.map { index < $0 } ?? false, "interim \(index) of \(item) after its final")
            }

            // The transcript helper shows each item partial, then final.
            var transcript = LiveTranscript()
            var sawPartial = false
            for event in events {
                if let item = transcript.apply(event), !item.isFinal, !item.text.isEmpty { sawPartial = true }
            }
            #expect(sawPartial)
            #expect(!transcript.items.isEmpty && transcript.items.allSatisfy(\.isFinal), "\(transcript.items)")
            #expect(transcript.items.allSatisfy { $0.interim.isEmpty })
            #expect(transcript.items.allSatisfy { $0.failure == nil })
            let wer = Self.wer(offline, transcript.finalText)
            #expect(wer <= 0.1, "streamed \(transcript.finalText) vs offline \(offline): WER \(wer)")

            // The session is the record its created event named, with the streamed finals as its transcript.
            let record = try await Self.record(recordID, client: client)
            #expect(record.record.recordID == recordID && record.record.source == "live")
            let sentences = record.transcript?.sentences.map(\.text).joined(separator: " ") ?? ""
            #expect(Self.wer(transcript.finalText, sentences) <= 0.05, "record: \(sentences)")
        }
    }

    @Test func aClientSecretOpensAManual16kHzSessionThatTranscribes() async throws {
        let audio = try Self.pcm(16_000)
        try await TestPlatform.with { platform in
            let partner = try await platform.createPartner("Live secret")
            let user = try await platform.userToken(
                partnerToken: try await platform.partnerToken(partner), userID: "u1")
            let backend = EarshotClient(baseURL: platform.base, token: user)
            let minted = LiveSession.Settings(
                model: "whisper-1", language: "en", prompt: "Americans", serverVAD: nil, inputFormat: .pcm16(sampleRate: 16_000))
            let secret = try await backend.mintLiveClientSecret(settings: minted, expiresIn: 120)
            #expect(secret.value.hasPrefix("ek_"))
            #expect(secret.expiresAt > Date() && secret.expiresAt < Date().addingTimeInterval(200))

            // A secret cannot mint another.
            let secretClient = EarshotClient(baseURL: platform.base, token: secret.value)
            await #expect(throws: EarshotError.self) { try await secretClient.mintLiveClientSecret() }

            let session = try await LiveSession.connect(baseURL: platform.base, clientSecret: secret.value)
            let info = try #require(session.info)
            #expect(info.serverVAD == nil && info.sampleRate == 16_000 && info.model == "whisper-1")
            #expect(info.language == "en" && info.prompt == "Americans")
            async let collected = Self.collect(session.events)
            try await session.append(audio: audio)  // split into several messages by the SDK
            let settled = await session.finish(timeout: 420)  // commits the buffer, waits for its final
            let events = await collected
            #expect(settled, "\(events)")
            var transcript = LiveTranscript()
            for event in events { transcript.apply(event) }
            #expect(transcript.items.count == 1)
            #expect(Self.wer(RealAudio.reference, transcript.finalText) <= 0.1, "\(transcript.finalText)")
            // The record belongs to the user who minted the secret.
            let record = try await Self.record(try #require(session.recordID), client: backend)
            #expect(record.record.userID == "u1")
        }
    }

    @Test func refusedCredentialsAndSettingsAreClearErrors() async throws {
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner("Live errors"))

            // A forged token: 401 before the upgrade.
            let forged = EarshotClient(baseURL: platform.base, token: "not-a-token")
            let refused = await #expect(throws: EarshotError.self) {
                try await LiveSession.connect(client: forged)
            }
            #expect(refused?.code == .unauthorized && refused?.status == 401, "\(String(describing: refused))")

            // The token provider is asked once for a fresh token after a 401, and the session opens with it.
            let asked = Shared(0)
            let refreshing = EarshotClient(
                baseURL: platform.base, token: "expired",
                tokenProvider: {
                    asked.value.withLock { $0 += 1 }
                    return token
                })
            let renewed = try await LiveSession.connect(client: refreshing)
            #expect(asked.value.withLock { $0 } == 1)
            await renewed.close()

            // A setting the server refuses: invalidArgument with the server's message and the field.
            let client = EarshotClient(baseURL: platform.base, token: token)
            let badLanguage = await #expect(throws: EarshotError.self) {
                try await LiveSession.connect(client: client, settings: .init(language: "xx"))
            }
            #expect(badLanguage?.code == .invalidArgument && badLanguage?.wireCode == "invalid_value")
            #expect(badLanguage?.message.contains("language") == true, "\(String(describing: badLanguage))")

            // wss:// without TLS on Linux, and a URL that is no http(s).
            #if !canImport(Darwin)
                let tls = EarshotClient(baseURL: URL(string: "https://127.0.0.1:1")!, token: token)
                let noTLS = await #expect(throws: EarshotError.self) { try await LiveSession.connect(client: tls) }
                #expect(noTLS?.code == .invalidArgument && noTLS?.message.contains("wss://") == true)
            #endif
            let ftp = EarshotClient(baseURL: URL(string: "ftp://127.0.0.1")!, token: token)
            await #expect(throws: EarshotError.self) { try await LiveSession.connect(client: ftp) }

            // Nothing listening: a network error.
            let nowhere = EarshotClient(baseURL: URL(string: "http://127.0.0.1:1")!, token: token)
            let unreachable = await #expect(throws: EarshotError.self) {
                try await LiveSession.connect(client: nowhere)
            }
            #expect(unreachable?.code == .network)
        }
    }

    @Test func refusedClientEventsArriveAsErrorEventsAndTheSessionGoesOn() async throws {
        try await TestPlatform.with { platform in
            let token = try await platform.partnerToken(try await platform.createPartner("Live events"))
            let client = EarshotClient(baseURL: platform.base, token: token)
            let session = try await LiveSession.connect(client: client, settings: .init(serverVAD: nil))
            async let collected = Self.collect(session.events)
            try await session.commit()  // nothing buffered
            try await session.update(.init(translateTo: "zz", serverVAD: nil))
            try await session.send(event: ["type": "response.create", "event_id": "evt_mine"])
            try await session.append(audio: Data(count: 24_000))  // 0.5 s of silence
            try await session.clear()
            await session.finish(timeout: 60)
            let events = await collected
            let errors = events.compactMap { event -> LiveError? in
                if case .error(let error) = event.kind { error } else { nil }
            }
            #expect(errors.map(\.code) == ["input_audio_buffer_commit_empty", "invalid_value", "unknown_event_type"])
            #expect(errors[1].param?.contains("translate_to") == true, "\(errors)")
            #expect(errors[2].eventID == "evt_mine")
            #expect(events.contains { $0.kind == .cleared })
            guard case .closed(let code, _) = events.last?.kind else {
                Issue.record("no closed event: \(events)")
                return
            }
            #expect(code == 1000)
            // Sending after the close is a clear error.
            await #expect(throws: EarshotError.self) { try await session.append(audio: Data(count: 4_800)) }
        }
    }

    @Test func aFullServerAndAServerShuttingDownCloseTheSession() async throws {
        let open = Shared<LiveSession?>(nil)
        try await TestPlatform.with { configuration in
            configuration.liveMaxSessions = 1
        } _: { platform in
            let token = try await platform.partnerToken(try await platform.createPartner("Live full"))
            let client = EarshotClient(baseURL: platform.base, token: token)
            let first = try await LiveSession.connect(client: client)
            let second = await #expect(throws: EarshotError.self) { try await LiveSession.connect(client: client) }
            #expect(second?.code == .rateLimited, "\(String(describing: second))")
            #expect(!first.isClosed)
            open.value.withLock { $0 = first }
        }
        // The platform stopped with the first session open: the server said goodbye (1001).
        let session = try #require(open.value.withLock { $0 })
        let events = await Self.collect(session.events)
        guard case .closed(let code, _) = events.last?.kind else {
            Issue.record("no closed event: \(events)")
            return
        }
        #expect(code == 1001, "\(events)")
        #expect(session.isClosed)
    }
}

extension RealAudio {
    static let reference =
        "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
}

/// A value shared with `@Sendable` closures.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }
}
