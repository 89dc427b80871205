import EarshotAPI
import EarshotServer
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

/// Live sessions become records when they end (docs/live.md#sessions-become-records): driven by the Python
/// `websockets` client with JFK's clip, like `RealtimeTranscriptionTests`, then read back through the records API.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct LiveRecordsTests {
    static let client = #"""
        import asyncio, base64, json, sys
        import websockets
        base, token, pcm24, pcm16 = sys.argv[1:5]
        url = base.replace("http", "ws", 1) + "/v1/realtime?intent=transcription"
        headers = {"Authorization": f"Bearer {token}"}
        out = {}

        async def vad_session():
            # OpenAI's flow with server VAD at 24 kHz, streamed at 4x real time; closes once every turn completed.
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                created = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                    "turn_detection": {"type": "server_vad", "silence_duration_ms": 700}}}))
                await ws.recv()
                audio = open(pcm24, "rb").read() + bytes(24000 * 2 * 2)
                for i in range(0, len(audio), 4800):
                    await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                              "audio": base64.b64encode(audio[i:i + 4800]).decode()}))
                    await asyncio.sleep(0.025)
                # `cleared` comes after every append was handled, so after every turn the VAD committed.
                await ws.send(json.dumps({"type": "input_audio_buffer.clear"}))
                events = []
                while True:
                    event = json.loads(await asyncio.wait_for(ws.recv(), 420))
                    events.append(event)
                    committed = [e["item_id"] for e in events if e["type"] == "input_audio_buffer.committed"]
                    done = [e for e in events if e["type"].endswith("transcription.completed")]
                    cleared = any(e["type"] == "input_audio_buffer.cleared" for e in events)
                    if cleared and committed and len(done) == len(committed):
                        break
                return {"header": ws.response.headers.get("Earshot-Record-Id"), "created": created,
                        "completed": [e["transcript"] for e in done], "bytes": len(audio)}

        async def vanishing_session():
            # Manual commit at 16 kHz: 4 s committed, 3 s more mid-utterance, then the TCP connection is dropped
            # without a close frame and without waiting for the transcript.
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_sample_rate": 16000, "turn_detection": None,
                    "input_audio_transcription": {"model": "whisper-1", "language": "en"}}}))
                await ws.recv()
                audio = open(pcm16, "rb").read()
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio[:4 * 32000]).decode()}))
                await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                while json.loads(await ws.recv())["type"] != "input_audio_buffer.committed":
                    pass
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio[4 * 32000:7 * 32000]).decode()}))
                await asyncio.sleep(0.3)
                header = ws.response.headers.get("Earshot-Record-Id")
                ws.transport.abort()
                return {"header": header}

        async def unkept_session():
            async with websockets.connect(url + "&store=false", additional_headers=headers, max_size=None) as ws:
                created = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_sample_rate": 16000, "turn_detection": None}}))
                await ws.recv()
                audio = open(pcm16, "rb").read()[:2 * 32000]
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio).decode()}))
                # The recording has one rate: it cannot change once audio was sent.
                await ws.send(json.dumps({"type": "transcription_session.update",
                                          "session": {"input_audio_sample_rate": 24000}}))
                rate_change = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                while not json.loads(await ws.recv())["type"].endswith("transcription.completed"):
                    pass
                return {"header": ws.response.headers.get("Earshot-Record-Id"), "created": created,
                        "rate_change": rate_change}

        async def silent_session():
            async with websockets.connect(url, additional_headers=headers) as ws:
                return {"header": ws.response.headers.get("Earshot-Record-Id"), "created": json.loads(await ws.recv())}

        async def refused(query):
            try:
                async with websockets.connect(url + query, additional_headers=headers) as ws:
                    return 101
            except websockets.exceptions.InvalidStatus as error:
                return error.response.status_code

        async def main():
            out["vad"] = await vad_session()
            out["vanishing"] = await vanishing_session()
            out["unkept"] = await unkept_session()
            out["silent"] = await silent_session()
            out["bad_store"] = await refused("&store=maybe")
            print(json.dumps(out))

        asyncio.run(main())
        """#

    /// Waits until `record` exists (a session becomes a record once its last decode is done).
    static func record(_ id: String, _ platform: TestPlatform, token: String) async throws -> RecordDetail {
        let deadline = ContinuousClock.now + .seconds(420)
        while true {
            let response = try await platform.send(
                "GET", APIPath.filled(APIPath.record, ["record_id": id]), token: token)
            if response.status == 200 { return try response.decode(RecordDetail.self) }
            try #require(response.status == 404, "\(response.status): \(response.text)")
            try #require(ContinuousClock.now < deadline, "record \(id) never appeared")
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    @Test func aSessionBecomesARecordWithItsAudioAndFinalTranscript() async throws {
        guard let clip = try LiveClip.make("live-records") else { return }
        defer { clip.remove() }
        let (pcm24, pcm16) = (clip.pcm24, clip.pcm16)
        try await TestPlatform.with { platform in
            let (_, token) = try await platform.newPartnerToken()
            let (_, otherToken) = try await platform.newPartnerToken()
            let result = try await Program(RealtimeTranscriptionTests.python).run(
                ["-c", Self.client, platform.base.absoluteString, token, pcm24.path, pcm16.path],
                timeout: .seconds(900))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

            // The streamed session: its id up-front (header and created event), then a record of the finals.
            let vad = try #require(out["vad"] as? [String: Any])
            let id = try #require(vad["header"] as? String)
            #expect(id.hasPrefix("rec_"))
            #expect((vad["created"] as? [String: Any])?["record_id"] as? String == id)
            let finals = try #require(vad["completed"] as? [String]).filter { !$0.isEmpty }
            let detail = try await Self.record(id, platform, token: token)
            #expect(detail.record.source == "live")
            #expect(detail.record.title.hasPrefix("Live "))
            #expect(detail.record.language == "en")
            let streamedMs = try #require(vad["bytes"] as? Int) / 48
            #expect(abs(detail.record.durationMs - streamedMs) <= 50, "\(detail.record.durationMs) vs \(streamedMs)")
            #expect(detail.envelope != nil)
            let sentences = try #require(detail.transcript?.sentences)
            #expect(sentences.map(\.text) == finals)
            for (sentence, next) in zip(sentences, sentences.dropFirst()) { #expect(sentence.endMs <= next.startMs) }
            #expect(sentences.allSatisfy { $0.startMs < $0.endMs && $0.endMs <= detail.record.durationMs })
            // JFK speaks from about 0.3 s to 10.5 s of the clip: the first turn starts near the beginning.
            #expect((sentences.first?.startMs ?? .max) < 1500)
            #expect(detail.tasks.first?.status == .success)

            // Its audio, as received: a 24 kHz WAV of every byte streamed.
            let audio = try await platform.send(
                "GET", APIPath.filled(APIPath.recordAudio, ["record_id": id]), token: token)
            #expect(audio.status == 200)
            #expect(audio.data.prefix(4) == Data("RIFF".utf8))
            let rate =
                audio.data.count >= 28 ? audio.data[24..<28].enumerated().reduce(0) { $0 | Int($1.1) << (8 * $1.0) } : 0
            #expect(rate == 24_000)
            #expect(audio.data.count == 44 + (vad["bytes"] as? Int ?? 0))

            // Searchable like any record, listed under source=live, invisible to another tenant.
            let search = try await platform.send("GET", APIPath.recordSearch + "?q=country", token: token)
            #expect(
                try search.decode(RecordSearchResults.self).hits.map(\.record.recordID).contains(id), "\(search.text)")
            #expect(
                try await platform.send("GET", APIPath.filled(APIPath.record, ["record_id": id]), token: otherToken)
                    .status == 404)
            #expect(
                try await platform.send(
                    "GET", APIPath.filled(APIPath.recordAudio, ["record_id": id]), token: otherToken
                )
                .status == 404)

            // The client that vanished mid-utterance: what it committed is kept, and all the audio it sent.
            let vanishing = try #require((out["vanishing"] as? [String: Any])?["header"] as? String)
            let kept = try await Self.record(vanishing, platform, token: token)
            #expect(abs(kept.record.durationMs - 7000) <= 20, "\(kept.record.durationMs)")
            let keptSentences = try #require(kept.transcript?.sentences)
            #expect(keptSentences.count == 1)
            #expect(keptSentences.first?.startMs == 0 && keptSentences.first?.endMs == 4000)
            #expect(keptSentences.first?.text.lowercased().contains("americans") == true, "\(keptSentences)")

            // store=false: no header, no id, no record; a session without audio: an id but no record.
            let unkept = try #require(out["unkept"] as? [String: Any])
            #expect(unkept["header"] is NSNull || unkept["header"] == nil)
            #expect((unkept["created"] as? [String: Any])?["record_id"] == nil)
            let rateChange = try #require(unkept["rate_change"] as? [String: Any])
            #expect(rateChange["type"] as? String == "error")
            #expect((rateChange["error"] as? [String: Any])?["code"] as? String == "invalid_value", "\(rateChange)")
            let silent = try #require(out["silent"] as? [String: Any])
            let silentID = try #require(silent["header"] as? String)
            let list = try await platform.send("GET", APIPath.records + "?source=live", token: token)
            #expect(Set(try list.decode(RecordList.self).records.map(\.recordID)) == [id, vanishing])
            #expect(
                try await platform.send("GET", APIPath.filled(APIPath.record, ["record_id": silentID]), token: token)
                    .status == 404)
            #expect(out["bad_store"] as? Int == 400)
        }
    }

    static let steady = #"""
        import asyncio, base64, json, sys
        import websockets
        base, token, pcm16, ready = sys.argv[1:5]
        url = base.replace("http", "ws", 1) + "/v1/realtime?intent=transcription"

        async def main():
            headers = {"Authorization": "Bearer " + token}
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "transcription_session.update", "session": {
                    "input_audio_sample_rate": 16000, "turn_detection": None,
                    "input_audio_transcription": {"language": "en"}}}))
                await ws.recv()
                audio = open(pcm16, "rb").read()
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio[:4 * 32000]).decode()}))
                await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                while True:
                    event = json.loads(await ws.recv())
                    if event["type"].endswith("transcription.completed"):
                        break
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio[4 * 32000:6 * 32000]).decode()}))
                await asyncio.sleep(0.3)
                with open(ready, "w") as f:
                    json.dump({"record": ws.response.headers.get("Earshot-Record-Id"), "text": event["transcript"]}, f)
                try:
                    while True:
                        await ws.recv()
                except websockets.exceptions.ConnectionClosed as closed:
                    print(json.dumps({"code": closed.rcvd.code if closed.rcvd else None}))

        asyncio.run(main())
        """#

    @Test func aSessionOpenWhenTheServerShutsDownIsKept() async throws {
        guard let clip = try LiveClip.make("live-shutdown") else { return }
        defer { clip.remove() }
        let (directory, pcm16) = (clip.directory, clip.pcm16)
        let ready = directory.appendingPathComponent("ready.json")
        let data = directory.appendingPathComponent("data")
        let client = Mutex<Task<ProcessResult, any Error>?>(nil)
        let token = Mutex<String?>(nil)
        // A loaded machine gets time to keep the session while the server shuts down.
        try await TestPlatform.with(dataDirectory: data, { $0.shutdownGrace = .seconds(60) }) { platform in
            let (_, partnerToken) = try await platform.newPartnerToken()
            token.withLock { $0 = partnerToken }
            let arguments = ["-c", Self.steady, platform.base.absoluteString, partnerToken, pcm16.path, ready.path]
            client.withLock {
                $0 = Task {
                    try await Program(RealtimeTranscriptionTests.python).run(arguments, timeout: .seconds(600))
                }
            }
            // The server shuts down with the session open: one item completed, 2 s more audio uncommitted.
            let deadline = ContinuousClock.now + .seconds(400)
            while !FileManager.default.fileExists(atPath: ready.path) {
                try #require(ContinuousClock.now < deadline, "the client never got its transcript")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let result = try await #require(client.withLock { $0 }).value
        try #require(result.status == 0, "\(result)")
        let closed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(closed?["code"] as? Int == 1001, "\(result.stdout)")
        let seen = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: ready)) as? [String: Any])
        let id = try #require(seen["record"] as? String)
        let committed = try #require(seen["text"] as? String)
        try await TestPlatform.with(dataDirectory: data) { platform in
            let partnerToken = try #require(token.withLock { $0 })
            let response = try await platform.send(
                "GET", APIPath.filled(APIPath.record, ["record_id": id]), token: partnerToken)
            try #require(response.status == 200, "\(response.text)")
            let record = try response.decode(RecordDetail.self)
            #expect(record.record.source == "live")
            #expect(abs(record.record.durationMs - 6000) <= 20, "\(record.record.durationMs)")
            #expect(record.transcript?.sentences.map(\.text) == [committed])
        }
    }
}
