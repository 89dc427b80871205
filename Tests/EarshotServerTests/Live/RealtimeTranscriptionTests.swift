import EarshotAPI
import EarshotEval
import EarshotServer
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

/// `GET /v1/realtime?intent=transcription` driven by an independent client (Python `websockets`) that follows
/// OpenAI's documented event flow with real speech (JFK's clip): server VAD at 24 kHz, manual commit at 16 kHz, bad
/// input, and the session limit. The streamed text must match the offline transcript of the same clip.
/// It decodes in the test process's platform server, so it waits its turn at the platform gate (`TestPlatform.with`),
/// not at the "speech decoding" one: holding that gate while waiting for the platform gate would hold up every
/// decoding suite behind every platform suite. Its time limit is a hang guard (see Makefile).
@Suite(.serialized, .timeLimit(.minutes(30)))
struct RealtimeTranscriptionTests {
    static let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")

    static let client = #"""
        import asyncio, base64, json, sys, time
        import websockets
        base, token, pcm24, pcm16, wav = sys.argv[1:6]
        url = base.replace("http", "ws", 1) + "/v1/realtime?intent=transcription"
        headers = {"Authorization": f"Bearer {token}"}
        out = {}

        async def events_until(ws, last_type, timeout=420):
            seen = []
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                event = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
                seen.append(event)
                if event["type"] == last_type:
                    break
            return seen

        async def vad_session():
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                created = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_format": "pcm16",
                    "input_audio_transcription": {"model": "gpt-4o-transcribe", "language": "en",
                                                  "final_window_ms": 10000},
                    "turn_detection": {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                                       "silence_duration_ms": 700}}}))
                updated = json.loads(await ws.recv())
                audio = open(pcm24, "rb").read() + bytes(24000 * 2 * 2)  # 2 s of silence at the end
                chunk = 4800  # 100 ms
                for i in range(0, len(audio), chunk):
                    await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                              "audio": base64.b64encode(audio[i:i + chunk]).decode()}))
                    await asyncio.sleep(0.025)  # 4x real time
                # `cleared` comes after every append was handled, so after every turn the VAD committed.
                await ws.send(json.dumps({"type": "input_audio_buffer.clear"}))
                events = [created, updated]
                # Every turn the VAD committed ends with completed (or failed). One deadline for all of them, not a
                # limit on the silence between two events: on a loaded machine a final decode may take minutes.
                deadline = time.monotonic() + 420
                while True:
                    try:
                        event = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
                    except asyncio.TimeoutError:
                        break
                    events.append(event)
                    committed = [e["item_id"] for e in events if e["type"] == "input_audio_buffer.committed"]
                    finished = [e["item_id"] for e in events if e["type"].endswith("transcription.completed")
                                or e["type"].endswith("transcription.failed")]
                    cleared = any(e["type"] == "input_audio_buffer.cleared" for e in events)
                    if cleared and committed and len(finished) == len(committed):
                        break
                return events

        async def manual_session():
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_sample_rate": 16000, "turn_detection": None,
                    "input_audio_transcription": {"model": "whisper-1", "language": "en"}}}))
                updated = json.loads(await ws.recv())
                errors = {}
                for name, event in [
                    ("unknown", {"type": "response.create", "event_id": "evt_1"}),
                    ("base64", {"type": "input_audio_buffer.append", "audio": "***", "event_id": "evt_2"}),
                    ("container", {"type": "input_audio_buffer.append", "event_id": "evt_3",
                                   "audio": base64.b64encode(open(wav, "rb").read()[:4000]).decode()}),
                    ("empty", {"type": "input_audio_buffer.commit", "event_id": "evt_4"}),
                    ("format", {"type": "transcription_session.update", "event_id": "evt_5",
                                "session": {"input_audio_format": "mp3"}}),
                ]:
                    await ws.send(json.dumps(event))
                    errors[name] = json.loads(await ws.recv())
                await ws.send("not json")
                errors["json"] = json.loads(await ws.recv())
                audio = open(pcm16, "rb").read()
                for i in range(0, len(audio), 32000):
                    await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                              "audio": base64.b64encode(audio[i:i + 32000]).decode()}))
                await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                events = await events_until(ws, "conversation.item.input_audio_transcription.completed")
                await ws.send(json.dumps({"type": "input_audio_buffer.clear"}))
                cleared = json.loads(await ws.recv())
                return {"updated": updated, "errors": errors, "events": events, "cleared": cleared}

        async def main():
            out["vad"] = await vad_session()
            out["manual"] = await manual_session()
            try:
                async with websockets.connect(url, max_size=None) as ws:
                    await ws.recv()
            except websockets.exceptions.InvalidStatus as error:
                out["unauthenticated"] = error.response.status_code
            print(json.dumps(out))

        asyncio.run(main())
        """#

    /// The offline transcript of the clip through `POST /v1/audio/transcriptions` on the same server.
    static func offline(_ platform: TestPlatform, token: String) async throws -> String {
        let result = try await platform.transcribe(try Data(contentsOf: TestEnvironment.jfk), model: "asr-fast", token: token)
        try #require(result.status == 200, "offline transcription: \(result.text)")
        return try #require(result.object?["text"] as? String)
    }

    static func wer(_ reference: String, _ hypothesis: String) -> Double {
        let normalizer = TextNormalizer(configuration: .defaults(for: .english))
        return PairsBenchmark.score([(normalizer.normalize(reference), normalizer.normalize(hypothesis))]).errorRate
    }

    @Test func theWebsocketsClientFollowingOpenAIsFlowGetsTheOfflineTranscript() async throws {
        guard let clip = try LiveClip.make("realtime") else { return }
        defer { clip.remove() }
        let (pcm24, pcm16) = (clip.pcm24, clip.pcm16)
        try await TestPlatform.with { platform in
            let (_, token) = try await platform.newPartnerToken()
            let reference = try await Self.offline(platform, token: token)
            let result = try await Program(Self.python).run(
                ["-c", Self.client, platform.base.absoluteString, token, pcm24.path, pcm16.path,
                 TestEnvironment.jfk.path], timeout: .seconds(900))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

            // Server VAD at 24 kHz: started → stopped → committed → deltas → completed, per turn.
            let vad = try #require(out["vad"] as? [[String: Any]])
            let types = vad.compactMap { $0["type"] as? String }
            #expect(types.first == "transcription_session.created")
            #expect(types.dropFirst().first == "transcription_session.updated")
            #expect(types.contains("input_audio_buffer.speech_started"))
            #expect(types.contains("input_audio_buffer.speech_stopped"))
            #expect(types.contains("input_audio_buffer.committed"))
            let completed = vad.filter { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" }
            #expect(!completed.isEmpty)
            let streamed = completed.compactMap { $0["transcript"] as? String }.joined(separator: " ")
            #expect(Self.wer(reference, streamed) <= 0.1, "offline: \(reference)\nstreamed: \(streamed)")
            // Deltas of an item add up to its completed text (words never taken back).
            for item in completed {
                let id = item["item_id"] as? String
                let deltas = vad.filter {
                    $0["type"] as? String == "conversation.item.input_audio_transcription.delta" && $0["item_id"] as? String == id
                }.compactMap { $0["delta"] as? String }.joined()
                #expect(Self.wer(item["transcript"] as? String ?? "", deltas) <= 0.2, "deltas: \(deltas)")
                // The delta comes before its completed event.
                let firstDelta = vad.firstIndex { $0["item_id"] as? String == id && ($0["type"] as? String ?? "").hasSuffix(".delta") }
                let done = vad.firstIndex { $0["item_id"] as? String == id && ($0["type"] as? String ?? "").hasSuffix(".completed") }
                if let firstDelta, let done { #expect(firstDelta < done) }
                // Its words are timed inside its own audio (with final_window_ms a final after the first hears
                // the items before it too; none of their words, nor their times, may leak into it).
                let started = vad.first {
                    $0["item_id"] as? String == id && $0["type"] as? String == "input_audio_buffer.speech_started"
                }?["audio_start_ms"] as? Double
                let stopped = vad.first {
                    $0["item_id"] as? String == id && $0["type"] as? String == "input_audio_buffer.speech_stopped"
                }?["audio_end_ms"] as? Double
                if let started, let stopped {
                    for word in item["words"] as? [[String: Any]] ?? [] {
                        let start = word["start_ms"] as? Double ?? -1
                        #expect(
                            start >= started - 500 && start <= stopped + 500, "\(word) outside \(started)–\(stopped)")
                    }
                }
            }
            #expect(completed.count >= 2, "JFK's phrases are items of their own, so later ones had context")
            let updated = try #require(vad.dropFirst().first?["session"] as? [String: Any])
            #expect((updated["input_audio_transcription"] as? [String: Any])?["final_window_ms"] as? Double == 10_000)

            // Manual commit at 16 kHz; errors keep the session alive.
            let manual = try #require(out["manual"] as? [String: Any])
            let errors = try #require(manual["errors"] as? [String: [String: Any]])
            func code(_ name: String) -> String? { (errors[name]?["error"] as? [String: Any])?["code"] as? String }
            func eventID(_ name: String) -> String? { (errors[name]?["error"] as? [String: Any])?["event_id"] as? String }
            #expect(code("unknown") == "unknown_event_type")
            #expect(eventID("unknown") == "evt_1")
            #expect(code("base64") == "invalid_base64")
            #expect(code("container") == "invalid_audio_format")
            #expect(code("empty") == "input_audio_buffer_commit_empty")
            #expect(code("format") == "unsupported_audio_format")
            #expect(code("json") == "invalid_json")
            #expect(errors.values.allSatisfy { $0["type"] as? String == "error" })
            let events = try #require(manual["events"] as? [[String: Any]])
            #expect(events.first?["type"] as? String == "input_audio_buffer.committed")
            let manualText = try #require(events.last?["transcript"] as? String)
            #expect(Self.wer(reference, manualText) <= 0.05, "offline: \(reference)\nmanual: \(manualText)")
            #expect((manual["cleared"] as? [String: Any])?["type"] as? String == "input_audio_buffer.cleared")
            #expect(out["unauthenticated"] as? Int == 401)
        }
    }

    static let crowd = #"""
        import asyncio, json, sys
        import websockets
        base, token = sys.argv[1:3]
        url = base.replace("http", "ws", 1) + "/v1/realtime?intent=transcription"
        async def main():
            out = {}
            async with websockets.connect(url, subprotocols=["realtime", "openai-insecure-api-key." + token]) as first:
                out["subprotocol"] = first.subprotocol
                out["first"] = json.loads(await first.recv())["type"]
                async with websockets.connect(url, additional_headers={"Authorization": "Bearer " + token}) as second:
                    out["second"] = json.loads(await second.recv())
                    try:
                        await second.recv()
                    except websockets.exceptions.ConnectionClosed as closed:
                        out["second_close"] = closed.rcvd.code if closed.rcvd else None
                await first.send(json.dumps({"type": "input_audio_buffer.clear"}))
                out["first_after"] = json.loads(await first.recv())["type"]
            print(json.dumps(out))
        asyncio.run(main())
        """#

    @Test func oneSessionTooManyIsToldRateLimitedAndTheOthersGoOn() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            Issue.record("run scripts/setup (venv with websockets)")
            return
        }
        try await TestPlatform.with({ $0.liveMaxSessions = 1 }) { platform in
            let (_, token) = try await platform.newPartnerToken()
            let result = try await Program(Self.python).run(
                ["-c", Self.crowd, platform.base.absoluteString, token], timeout: .seconds(60))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(out["subprotocol"] as? String == "realtime")
            #expect(out["first"] as? String == "transcription_session.created")
            let second = try #require(out["second"] as? [String: Any])
            #expect(second["type"] as? String == "error")
            #expect((second["error"] as? [String: Any])?["code"] as? String == "RATE_LIMITED")
            #expect(out["second_close"] as? Int == 1013)
            #expect(out["first_after"] as? String == "input_audio_buffer.cleared")
        }
    }
}

extension TestPlatform {
    /// A new partner and its token.
    func newPartnerToken() async throws -> (PartnerCredentials, String) {
        let credentials = try await createPartner("Live \(UUID().uuidString.prefix(6))")
        return (credentials, try await partnerToken(credentials))
    }
}
