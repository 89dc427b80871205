import EarshotAPI
import EarshotAudio
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

/// A face-to-face dialogue on `GET /v1/realtime?intent=dialogue`, driven by the Python `websockets` client with
/// sentences spoken by espeak-ng: a Spanish utterance on channel 1 gets its transcript, an English translation
/// (Whisper's translate task) and English speech on channel 0 that the engine transcribes back; with channel 0's
/// `speak` off the next one gets no audio; an English utterance on channel 0 gets a Spanish translation through the
/// notes provider (spoken on channel 1) or a `failed` event, never audio of a refused translation; the session is a
/// record with both sides and the translations; and every bad input is an `error` event naming the field while the
/// session goes on. Waits are generous (a decode can take minutes on a loaded machine); the time limit is a hang
/// guard.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct LiveDialogueTests {
    static let spanish = SpeechSynthesis.spanishLine
    static let english = SpeechSynthesis.spanishLineInEnglish
    static let question = "Where is the train station?"

    static let client = #"""
        import asyncio, base64, json, sys, time
        import websockets
        base, token, spanish, english, spoken_opus = sys.argv[1:6]
        headers = {"Authorization": f"Bearer {token}"}
        ws_base = base.replace("http", "ws", 1)
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

        async def ask(ws, event):
            await ws.send(json.dumps(event))
            return json.loads(await ws.recv())

        def append(audio, channel):
            return [json.dumps({"type": "input_audio_buffer.append", "channel": channel,
                                "audio": base64.b64encode(audio[i:i + 32000]).decode()})
                    for i in range(0, len(audio), 32000)]

        async def utterance(ws, audio, channel, finished):
            for message in append(audio, channel):
                await ws.send(message)
            await ws.send(json.dumps({"type": "input_audio_buffer.commit", "channel": channel}))
            committed = await until(ws, lambda e: e["type"] == "input_audio_buffer.committed")
            item = committed[-1]["item_id"]
            return item, committed + await until(ws, lambda e: e.get("item_id") == item and finished(e))

        def channels(first, second):
            return {"type": "session.update", "session": {"channels": [first, second]}}

        async def main():
            es = open(spanish, "rb").read()
            en = open(english, "rb").read()
            async with websockets.connect(ws_base + "/v1/realtime?intent=dialogue", additional_headers=headers,
                                          max_size=None) as ws:
                out["created"] = json.loads(await ws.recv())
                errors = {}
                await ws.send(append(es[:3200], 0)[0])
                errors["before_channels"] = json.loads(await ws.recv())
                for name, session in [
                    ("one_channel", {"channels": [{"language": "en"}]}),
                    ("not_a_list", {"channels": {"language": "en"}}),
                    ("no_language", {"channels": [{"voice": "alloy"}, {"language": "es"}]}),
                    ("unknown_language", {"channels": [{"language": "xx"}, {"language": "es"}]}),
                    ("untranslatable", {"channels": [{"language": "en"}, {"language": "sw"}]}),
                    ("bad_voice", {"channels": [{"language": "en", "voice": "robot"}, {"language": "es"}]}),
                    ("bad_speak", {"channels": [{"language": "en"}, {"language": "es", "speak": "yes"}]}),
                    ("unknown_field", {"channels": [{"language": "en", "volume": 3}, {"language": "es"}]}),
                    ("translate_to", {"audio": {"input": {"transcription": {"translate_to": "fr"}}}}),
                    ("flac_out", {"audio": {"output": {"format": {"type": "audio/flac"}}}}),
                ]:
                    errors[name] = await ask(ws, {"type": "session.update", "event_id": "evt_" + name,
                                                  "session": session})
                out["updated"] = await ask(ws, {"type": "session.update", "session": {
                    "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}, "turn_detection": None,
                                        "transcription": {"model": "whisper-1"}},
                              "output": {"format": {"type": "audio/opus"}}},
                    "channels": [{"language": "en", "voice": "alloy", "speak": True},
                                 {"language": "es", "voice": "nova", "speak": True}]}})
                for name, event in [
                    ("no_channel", {"type": "input_audio_buffer.append",
                                    "audio": base64.b64encode(es[:3200]).decode()}),
                    ("channel_2", {"type": "input_audio_buffer.append", "channel": 2,
                                   "audio": base64.b64encode(es[:3200]).decode()}),
                    ("channel_text", {"type": "input_audio_buffer.append", "channel": "left",
                                      "audio": base64.b64encode(es[:3200]).decode()}),
                ]:
                    event["event_id"] = "evt_" + name
                    errors[name] = await ask(ws, event)

                # Spanish on channel 1: transcript, English translation, English speech for channel 0.
                item, events = await utterance(ws, es, 1, lambda e: e["type"] in (
                    "response.output_audio.done", "response.output_audio.failed",
                    "conversation.item.input_audio_translation.failed"))
                out["spanish"], out["spanish_item"] = events, item
                # Opus out: the item's deltas joined are one Ogg Opus stream.
                with open(spoken_opus, "wb") as f:
                    f.write(b"".join(base64.b64decode(e["delta"]) for e in events
                                     if e["type"] == "response.output_audio.delta"))

                # Channel 0 stops listening: the next Spanish utterance is translated but not spoken.
                out["quiet"] = await ask(ws, channels({"language": "en", "voice": "alloy", "speak": False},
                                                      {"language": "es", "voice": "nova", "speak": True}))
                item, events = await utterance(ws, es, 1, lambda e: e["type"].startswith(
                    "conversation.item.input_audio_translation."))
                out["unspoken"], out["unspoken_item"] = events, item

                # English on channel 0 (the side switches): a commit naming the other side is refused, then the
                # Spanish translation is spoken on channel 1, or fails and nothing is spoken. Its events come after
                # any audio of the previous item (one translation and its speech at a time), so they also prove
                # that item got none.
                for message in append(en, 0):
                    await ws.send(message)
                errors["commit_other_side"] = await ask(ws, {"type": "input_audio_buffer.commit", "channel": 1,
                                                             "event_id": "evt_commit_other_side"})
                await ws.send(json.dumps({"type": "input_audio_buffer.commit", "channel": 0}))
                committed = await until(ws, lambda e: e["type"] == "input_audio_buffer.committed")
                item = committed[-1]["item_id"]
                events = committed + await until(ws, lambda e: e.get("item_id") == item and (e["type"] in (
                    "response.output_audio.done", "response.output_audio.failed",
                    "conversation.item.input_audio_translation.failed") or (
                    e["type"] == "conversation.item.input_audio_translation.completed" and not e["translation"])))
                out["english"], out["english_item"] = events, item
                out["errors"] = errors
            # A transcription session has no channels.
            async with websockets.connect(ws_base + "/v1/realtime?store=false", additional_headers=headers,
                                          max_size=None) as ws:
                await ws.recv()
                out["transcription_channels"] = await ask(ws, channels({"language": "en"}, {"language": "es"}))
                out["transcription_append"] = await ask(ws, {"type": "input_audio_buffer.append", "channel": 0,
                                                             "audio": base64.b64encode(es[:3200]).decode()})
            try:
                async with websockets.connect(ws_base + "/v1/realtime?intent=chat", additional_headers=headers):
                    pass
            except websockets.exceptions.InvalidStatus as error:
                out["unknown_intent"] = error.response.status_code
            print(json.dumps(out))

        asyncio.run(main())
        """#

    @Test func aTwoChannelDialogueIsTranscribedTranslatedSpokenAndKept() async throws {
        guard FileManager.default.isExecutableFile(atPath: RealtimeTranscriptionTests.python.path),
            SpeechSynthesis.available, TestAudio.modelsInstalled
        else {
            Issue.record("run scripts/setup (venv with websockets, models) and install espeak-ng")
            return
        }
        let directory = try TestEnvironment.makeTemporaryDirectory("dialogue")
        defer { try? FileManager.default.removeItem(at: directory) }
        var clips: [URL] = []
        for (name, text, voice) in [("es", Self.spanish, "es"), ("en", Self.question, "en-us")] {
            let wav = directory.appendingPathComponent("\(name).wav")
            let pcm16 = directory.appendingPathComponent("\(name)-16k.pcm")
            try SpeechSynthesis.speak(text, voice: voice, speed: 130, to: wav)
            try FFmpeg.convert(wav, to: pcm16, ["-f", "s16le", "-ac", "1", "-ar", "16000"])
            clips.append(pcm16)
        }
        let spoken = directory.appendingPathComponent("spoken.opus")
        let (spanishClip, englishClip) = (clips[0], clips[1])
        try await TestPlatform.with { platform in
            let (_, token) = try await platform.newPartnerToken()
            let result = try await Program(RealtimeTranscriptionTests.python).run(
                [
                    "-c", Self.client, platform.base.absoluteString, token, spanishClip.path, englishClip.path,
                    spoken.path,
                ],
                timeout: .seconds(1500))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let created = try #require(out["created"] as? [String: Any])
            #expect(created["type"] as? String == "session.created")
            #expect((created["session"] as? [String: Any])?["type"] as? String == "dialogue", "\(created)")
            let recordID = try #require(created["record_id"] as? String)
            let updated = try #require(out["updated"] as? [String: Any])
            #expect(updated["type"] as? String == "session.updated", "\(updated)")
            let channels = (updated["session"] as? [String: Any])?["channels"] as? [[String: Any]]
            #expect(channels?.map { $0["language"] as? String } == ["en", "es"], "\(updated)")
            #expect(channels?.map { $0["voice"] as? String } == ["alloy", "nova"])

            // Spanish on channel 1: every item event names channel 1; translation into English; speech on channel 0.
            let spanish = try #require(out["spanish"] as? [[String: Any]])
            let item = try #require(out["spanish_item"] as? String)
            let own = spanish.filter { $0["item_id"] as? String == item }
            let types = own.compactMap { $0["type"] as? String }
            let completed = try #require(
                own.first { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" })
            #expect(completed["channel"] as? Int == 1)
            #expect(RealtimeTranscriptionTests.wer(Self.spanish, completed["transcript"] as? String ?? "") <= 0.5)
            // Earshot's word timestamps: the transcript's words, in order, on the session's clock.
            let words = try #require(completed["words"] as? [[String: Any]], "\(completed)")
            let wordText = words.compactMap { $0["word"] as? String }.joined(separator: " ")
            #expect(RealtimeTranscriptionTests.wer(completed["transcript"] as? String ?? "", wordText) <= 0.1)
            let times = words.map { ($0["start_ms"] as? Int ?? -1, $0["end_ms"] as? Int ?? -1) }
            #expect(times.allSatisfy { $0.0 >= 0 && $0.0 <= $0.1 }, "\(times)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $0.0 <= $1.0 }, "\(times)")
            let translated = try #require(
                own.first { $0["type"] as? String == "conversation.item.input_audio_translation.completed" },
                "\(types)")
            #expect(translated["channel"] as? Int == 1)
            #expect(translated["language"] as? String == "en")
            let translation = translated["translation"] as? String ?? ""
            #expect(RealtimeTranscriptionTests.wer(Self.english, translation) <= 0.5, "\(translation)")
            let audio = own.filter { ($0["type"] as? String)?.hasPrefix("response.output_audio.") == true }
            #expect(!audio.isEmpty && audio.allSatisfy { $0["channel"] as? Int == 0 }, "\(types)")
            let done = try #require(audio.last)
            #expect(done["type"] as? String == "response.output_audio.done", "\(done)")
            #expect(done["transcript"] as? String == translation)
            let translatedAt = types.firstIndex(of: "conversation.item.input_audio_translation.completed")
            let spokenAt = types.firstIndex(of: "response.output_audio.delta")
            #expect(translatedAt != nil && spokenAt != nil && translatedAt! < spokenAt!, "\(types)")
            // The speech is real: an Ogg Opus stream (24 kHz) the engine transcribes back into the translation.
            let opus = try Data(contentsOf: spoken)
            let scan = try #require(OggOpusScan.scan([UInt8](opus)), "\(opus.prefix(64))")
            #expect(scan.ended && scan.validLength == opus.count, "\(scan), \(opus.count) bytes")
            #expect(scan.durationMs > 1_000)
            #expect(abs((done["audio_ms"] as? Int ?? 0) - scan.durationMs) <= 1, "\(done), \(scan)")
            let heard = try await platform.transcribe(opus, model: "asr-fast", token: token, filename: "spoken.opus")
            try #require(heard.status == 200, "\(heard.text)")
            let heardText = heard.object?["text"] as? String ?? ""
            let heardWER = RealtimeTranscriptionTests.wer(translation, heardText)
            #expect(heardWER <= 0.35, "spoke \"\(translation)\", heard \"\(heardText)\" (WER \(heardWER))")

            // speak: false on channel 0: translated, not spoken.
            #expect((out["quiet"] as? [String: Any])?["type"] as? String == "session.updated")
            let unspokenItem = try #require(out["unspoken_item"] as? String)
            let allAfterQuiet =
                (out["unspoken"] as? [[String: Any]] ?? []) + (out["english"] as? [[String: Any]] ?? [])
            let unspoken = allAfterQuiet.filter { $0["item_id"] as? String == unspokenItem }
            #expect(
                unspoken.contains { $0["type"] as? String == "conversation.item.input_audio_translation.completed" },
                "\(unspoken)")
            #expect(!unspoken.contains { ($0["type"] as? String)?.hasPrefix("response.") == true }, "\(unspoken)")

            // English on channel 0 into Spanish (the notes provider, gated): spoken on channel 1, or failed and silent.
            let englishItem = try #require(out["english_item"] as? String)
            let english = (out["english"] as? [[String: Any]] ?? []).filter { $0["item_id"] as? String == englishItem }
            let englishTypes = english.compactMap { $0["type"] as? String }
            #expect(
                english.first { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" }?[
                    "channel"] as? Int == 0, "\(englishTypes)")
            if let failed = english.first(where: {
                $0["type"] as? String == "conversation.item.input_audio_translation.failed"
            }) {
                let code = (failed["error"] as? [String: Any])?["code"] as? String ?? ""
                #expect(
                    ["translation_untrusted", "translation_unavailable", "translation_failed"].contains(code),
                    "\(failed)")
                #expect(failed["language"] as? String == "es")
                #expect(!englishTypes.contains { $0.hasPrefix("response.output_audio") }, "\(englishTypes)")
            } else {
                let spokenTo = english.filter { ($0["type"] as? String)?.hasPrefix("response.output_audio") == true }
                #expect(englishTypes.contains("conversation.item.input_audio_translation.completed"), "\(englishTypes)")
                #expect(!spokenTo.isEmpty && spokenTo.allSatisfy { $0["channel"] as? Int == 1 }, "\(englishTypes)")
            }

            // Refusals: an error event naming the field; the session went on (everything above happened after them).
            let errors = try #require(out["errors"] as? [String: [String: Any]])
            let expected: [(String, String)] = [
                ("before_channels", "session.channels"), ("one_channel", "session.channels"),
                ("not_a_list", "session.channels"), ("no_language", "session.channels[0].language"),
                ("unknown_language", "session.channels[0].language"),
                ("untranslatable", "session.channels[1].language"), ("bad_voice", "session.channels[0].voice"),
                ("bad_speak", "session.channels[1].speak"), ("unknown_field", "session.channels[0].volume"),
                ("translate_to", "session.audio.input.transcription.translate_to"),
                ("flac_out", "session.audio.output.format"), ("no_channel", "channel"), ("channel_2", "channel"),
                ("channel_text", "channel"), ("commit_other_side", "channel"),
            ]
            for (name, param) in expected {
                let event = errors[name]
                let error = event?["error"] as? [String: Any]
                #expect(event?["type"] as? String == "error", "\(name): \(String(describing: event))")
                #expect(error?["param"] as? String == param, "\(name): \(String(describing: event))")
                let message = error?["message"] as? String ?? ""
                #expect(!message.isEmpty)
                if name != "before_channels" { #expect(error?["event_id"] as? String == "evt_\(name)") }
            }
            #expect((errors["flac_out"]?["error"] as? [String: Any])?["code"] as? String == "unsupported_audio_format")
            for name in ["transcription_channels", "transcription_append"] {
                let error = (out[name] as? [String: Any])?["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalid_value", "\(name): \(String(describing: out[name]))")
            }
            #expect(out["unknown_intent"] as? Int == 400)

            // The conversation is a record: both sides' segments, tagged, and the English translation.
            let detail = try await LiveRecordsTests.record(recordID, platform, token: token)
            #expect(detail.record.source == "live")
            let sentences = try #require(detail.transcript?.sentences)
            #expect(sentences.map(\.speaker) == ["Channel 1 (es)", "Channel 1 (es)", "Channel 0 (en)"], "\(sentences)")
            #expect(sentences.first?.words?.count == words.count, "\(String(describing: sentences.first?.words))")
            #expect(
                sentences.allSatisfy { sentence in
                    (sentence.words ?? []).allSatisfy { $0.startMs >= sentence.startMs && $0.startMs <= sentence.endMs }
                }, "\(sentences)")
            let inEnglish = try #require(detail.translations["en"], "\(detail.translations.keys)")
            #expect(inEnglish.method == "speech")
            #expect(inEnglish.sentences.count == 3, "\(inEnglish.sentences)")
            #expect(inEnglish.sentences.first?.text == translation)
            #expect(inEnglish.sentences.last?.speaker == "Channel 0 (en)")
            #expect(detail.tasks.contains { $0.taskType == 2 && $0.targetLanguage == "en" && $0.status == .success })
        }
    }
}
