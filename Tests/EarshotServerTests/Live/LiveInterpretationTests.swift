import EarshotAPI
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

/// Simultaneous interpretation (`translate_to`) on `GET /v1/realtime`, driven by the Python `websockets` client with
/// a Spanish sentence spoken by espeak-ng: into English with Whisper's translate task, into French through the notes
/// provider (a translation that passed the quality gate, or a `failed` event saying why), and the refusals.
/// Waits are generous (a decode can take minutes on a loaded machine); the time limit is a hang guard.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct LiveInterpretationTests {
    static let sentence = SpeechSynthesis.spanishLine
    static let english = SpeechSynthesis.spanishLineInEnglish

    static let client = #"""
        import asyncio, base64, json, sys, time
        import websockets
        base, token, pcm16 = sys.argv[1:4]
        headers = {"Authorization": f"Bearer {token}"}
        out = {}

        async def until(ws, done, timeout=600):
            seen = []
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                event = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
                seen.append(event)
                if done(event):
                    break
            return seen

        def translation_of(item):
            return lambda e: e["type"].startswith("conversation.item.input_audio_translation.") and e["item_id"] == item

        async def commit(ws, audio):
            for i in range(0, len(audio), 32000):
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio[i:i + 32000]).decode()}))
            await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
            committed = await until(ws, lambda e: e["type"] == "input_audio_buffer.committed")
            return committed[-1]["item_id"], committed

        async def main():
            audio = open(pcm16, "rb").read()
            # GA shape: audio.input.transcription.translate_to.
            async with websockets.connect(base.replace("http", "ws", 1) + "/v1/realtime", additional_headers=headers,
                                          max_size=None) as ws:
                out["created"] = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "session.update", "session": {"type": "transcription", "audio": {
                    "input": {"format": {"type": "audio/pcm", "rate": 16000}, "turn_detection": None,
                              "transcription": {"model": "whisper-1", "language": "es", "translate_to": "en"}}}}}))
                out["updated"] = json.loads(await ws.recv())
                item, events = await commit(ws, audio)
                out["english"] = events + await until(ws, translation_of(item))
                out["english_item"] = item
                await ws.send(json.dumps({"type": "session.update", "session": {"type": "transcription", "audio": {
                    "input": {"transcription": {"translate_to": "fr"}}}}}))
                out["french_update"] = json.loads(await ws.recv())
                if out["french_update"]["type"] == "session.updated":
                    item, events = await commit(ws, audio)
                    out["french"] = events + await until(ws, translation_of(item))
                    out["french_item"] = item
            # Beta shape: input_audio_transcription.translate_to; an unknown language is refused.
            url = base.replace("http", "ws", 1) + "/v1/realtime?intent=transcription"
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "transcription_session.update", "event_id": "evt_1", "session": {
                    "input_audio_transcription": {"translate_to": "xx"}}}))
                out["unknown"] = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "transcription_session.update", "event_id": "evt_2", "session": {
                    "input_audio_transcription": {"translate_to": 7}}}))
                out["not_a_string"] = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_transcription": {"translate_to": "en"}}}))
                out["beta_updated"] = json.loads(await ws.recv())
            print(json.dumps(out))

        asyncio.run(main())
        """#

    @Test func aSpanishSentenceIsInterpretedPerItemWithItsItemID() async throws {
        guard FileManager.default.isExecutableFile(atPath: RealtimeTranscriptionTests.python.path),
            SpeechSynthesis.available, TestAudio.modelsInstalled
        else {
            Issue.record("run scripts/setup (venv with websockets, models) and install espeak-ng")
            return
        }
        let directory = try TestEnvironment.makeTemporaryDirectory("interpretation")
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("es.wav")
        let pcm16 = directory.appendingPathComponent("es-16k.pcm")
        try SpeechSynthesis.speak(Self.sentence, voice: "es", speed: 130, to: wav)
        try FFmpeg.convert(wav, to: pcm16, ["-f", "s16le", "-ac", "1", "-ar", "16000"])
        try await TestPlatform.with { platform in
            let (_, token) = try await platform.newPartnerToken()
            let result = try await Program(RealtimeTranscriptionTests.python).run(
                ["-c", Self.client, platform.base.absoluteString, token, pcm16.path], timeout: .seconds(1500))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let updated = try #require(out["updated"] as? [String: Any])
            #expect(updated["type"] as? String == "session.updated", "\(updated)")
            let transcription =
                ((updated["session"] as? [String: Any])?["audio"] as? [String: Any]).flatMap {
                    (($0["input"] as? [String: Any])?["transcription"] as? [String: Any])
                }
            #expect(transcription?["translate_to"] as? String == "en")

            // English: Whisper's translate task; after the item's completed, with its item_id.
            let english = try #require(out["english"] as? [[String: Any]])
            let item = try #require(out["english_item"] as? String)
            let types = english.filter { $0["item_id"] as? String == item }.compactMap { $0["type"] as? String }
            let completed = types.firstIndex(of: "conversation.item.input_audio_transcription.completed")
            let translated = types.firstIndex(of: "conversation.item.input_audio_translation.completed")
            #expect(completed != nil && translated != nil && completed! < translated!, "\(types)")
            let translation = try #require(english.last)
            #expect(
                translation["type"] as? String == "conversation.item.input_audio_translation.completed",
                "\(translation)")
            #expect(translation["language"] as? String == "en")
            let text = translation["translation"] as? String ?? ""
            let wer = RealtimeTranscriptionTests.wer(Self.english, text)
            #expect(wer <= 0.5, "expected about \"\(Self.english)\", got \"\(text)\" (WER \(wer))")

            // French through the notes provider: a translation that passed the gate, a failed event saying why, or
            // (no language model on this server) a refused update saying what to configure.
            let french = try #require(out["french_update"] as? [String: Any])
            if french["type"] as? String == "error" {
                let error = french["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalid_value")
                let message = error?["message"] as? String ?? ""
                #expect(message.contains("language model"), "\(french)")
            } else {
                let events = try #require(out["french"] as? [[String: Any]])
                let last = try #require(events.last)
                #expect(last["item_id"] as? String == out["french_item"] as? String)
                #expect(last["language"] as? String == "fr")
                switch last["type"] as? String {
                case "conversation.item.input_audio_translation.completed":
                    let translation = last["translation"] as? String ?? ""
                    #expect(!translation.isEmpty, "\(last)")
                case "conversation.item.input_audio_translation.failed":
                    let error = last["error"] as? [String: Any]
                    let code = error?["code"] as? String ?? ""
                    #expect(
                        ["translation_untrusted", "translation_unavailable", "translation_failed"].contains(code),
                        "\(last)")
                    let message = error?["message"] as? String ?? ""
                    #expect(!message.isEmpty, "\(last)")
                default:
                    Issue.record("expected a translation or a failed event, got \(last)")
                }
            }

            // Refusals name the field; the session goes on and takes a good update.
            for (name, eventID) in [("unknown", "evt_1"), ("not_a_string", "evt_2")] {
                let error = (out[name] as? [String: Any])?["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalid_value", "\(name): \(String(describing: out[name]))")
                #expect(error?["event_id"] as? String == eventID)
                #expect(error?["param"] as? String == "session.input_audio_transcription.translate_to")
            }
            #expect((out["beta_updated"] as? [String: Any])?["type"] as? String == "transcription_session.updated")

            // The session's record keeps the translations it sent: the English one, with the item translated only
            // into French named in its warnings.
            let recordID = try #require((out["created"] as? [String: Any])?["record_id"] as? String)
            let detail = try await LiveRecordsTests.record(recordID, platform, token: token)
            let kept = try #require(detail.translations["en"], "\(detail.translations.keys)")
            #expect(kept.sentences.map(\.text) == [text], "\(kept)")
            #expect(kept.method == "speech")
            #expect(kept.warnings.count == (out["french"] == nil ? 0 : 1), "\(kept.warnings)")
            #expect(detail.tasks.contains { $0.taskType == 2 && $0.targetLanguage == "en" && $0.status == .success })
        }
    }
}
