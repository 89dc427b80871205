import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

/// The live endpoint's other input formats, driven by the Python `websockets` client with JFK's clip: an Ogg Opus
/// stream (FFmpeg's libopus, 48 kHz stereo) cut into 1,000-byte appends, and G.711 μ-law at 8 kHz in 200 ms appends
/// as a telephony bridge sends it. Each must give the offline transcript; wrong bytes for the format are an `error`
/// event and the session goes on.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct LiveAudioFormatsTests {
    static let client = #"""
        import asyncio, base64, json, sys, time
        import websockets
        base, token, opus, ulaw = sys.argv[1:5]
        url = base.replace("http", "ws", 1) + "/v1/realtime?intent=transcription"
        headers = {"Authorization": f"Bearer {token}"}

        async def until_completed(ws):
            seen = []
            deadline = time.monotonic() + 420
            while time.monotonic() < deadline:
                event = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
                seen.append(event)
                if event["type"] == "error" or event["type"].endswith("transcription.completed") or \
                        event["type"].endswith("transcription.failed"):
                    break
            return seen

        async def session(update, audio, chunk, bad=None):
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                await ws.recv()
                await ws.send(json.dumps(update))
                out = {"updated": json.loads(await ws.recv())}
                if bad is not None:
                    await ws.send(json.dumps({"type": "input_audio_buffer.append", "event_id": "evt_bad",
                                              "audio": base64.b64encode(bad).decode()}))
                    out["bad"] = json.loads(await ws.recv())
                for i in range(0, len(audio), chunk):
                    await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                              "audio": base64.b64encode(audio[i:i + chunk]).decode()}))
                # The format is fixed once audio came.
                await ws.send(json.dumps({"type": update["type"], "event_id": "evt_change",
                                          "session": {"input_audio_format": "pcm16"}}))
                out["change"] = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                out["events"] = await until_completed(ws)
                return out

        async def main():
            out = {}
            out["opus"] = await session(
                {"type": "session.update", "session": {"type": "transcription", "audio": {"input": {
                    "format": {"type": "audio/opus"}, "turn_detection": None,
                    "transcription": {"model": "whisper-1", "language": "en"}}}}},
                open(opus, "rb").read(), 1000, bad=bytes(range(256)) * 4)
            out["ulaw"] = await session(
                {"type": "transcription_session.update", "session": {
                    "input_audio_format": "g711_ulaw", "turn_detection": None,
                    "input_audio_transcription": {"model": "whisper-1", "language": "en"}}},
                open(ulaw, "rb").read(), 1600, bad=open(opus, "rb").read()[:2000])
            print(json.dumps(out))

        asyncio.run(main())
        """#

    @Test func oggOpusAndG711GiveTheOfflineTranscript() async throws {
        guard let clip = try LiveClip.make("formats") else { return }
        defer { clip.remove() }
        let opus = clip.directory.appendingPathComponent("jfk.opus")
        let ulaw = clip.directory.appendingPathComponent("jfk.ulaw")
        try FFmpeg.convert(TestEnvironment.jfk, to: opus, ["-ac", "2", "-c:a", "libopus", "-b:a", "32k", "-f", "ogg"])
        try FFmpeg.convert(TestEnvironment.jfk, to: ulaw, ["-ac", "1", "-ar", "8000", "-f", "mulaw"])
        try await TestPlatform.with { platform in
            let (_, token) = try await platform.newPartnerToken()
            let reference = try await RealtimeTranscriptionTests.offline(platform, token: token)
            let result = try await Program(RealtimeTranscriptionTests.python).run(
                ["-c", Self.client, platform.base.absoluteString, token, opus.path, ulaw.path], timeout: .seconds(900))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

            let opusRun = try #require(out["opus"] as? [String: Any])
            let opusSession = (opusRun["updated"] as? [String: Any])?["session"] as? [String: Any]
            // The endpoint's intent=transcription answers in the beta shape, whichever shape the update had.
            #expect(opusSession?["input_audio_format"] as? String == "opus", "\(String(describing: opusSession))")
            #expect((opusSession?["input_audio_sample_rate"] as? NSNumber)?.intValue == 16_000)
            let ulawRun = try #require(out["ulaw"] as? [String: Any])
            let ulawSession = (ulawRun["updated"] as? [String: Any])?["session"] as? [String: Any]
            #expect(ulawSession?["input_audio_format"] as? String == "g711_ulaw")
            #expect(
                (ulawSession?["input_audio_sample_rate"] as? NSNumber)?.intValue == 8_000,
                "\(String(describing: ulawSession))")

            for (name, run, bound) in [("opus", opusRun, 0.05), ("g711_ulaw", ulawRun, 0.1)] {
                let bad = (run["bad"] as? [String: Any])?["error"] as? [String: Any]
                #expect(bad?["code"] as? String == "invalid_audio_format", "\(name): \(String(describing: bad))")
                #expect(bad?["event_id"] as? String == "evt_bad")
                let change = (run["change"] as? [String: Any])?["error"] as? [String: Any]
                #expect(change?["code"] as? String == "invalid_value", "\(name): \(String(describing: change))")
                let events = try #require(run["events"] as? [[String: Any]])
                #expect(events.first?["type"] as? String == "input_audio_buffer.committed", "\(name)")
                let text = events.last?["transcript"] as? String ?? ""
                let wer = RealtimeTranscriptionTests.wer(reference, text)
                #expect(wer <= bound, "\(name): offline \"\(reference)\", live \"\(text)\" (WER \(wer))")
            }
        }
    }
}
