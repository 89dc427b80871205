@testable import EarshotKit
import Foundation
import Testing

/// The SDK's side of a face-to-face dialogue without a server: the URL and `session.update` it sends, the audio events
/// it reads, and what `LiveTranscript` makes of them (the end-to-end run is `LiveCommandTests`' dialogue).
@Suite struct LiveDialogueEventsTests {
    static let sides = [
        LiveSession.DialogueChannel(language: "en"), LiveSession.DialogueChannel(language: "es", voice: "nova", speak: false),
    ]

    @Test func aDialogueOpensIntentDialogueAndSendsItsChannels() throws {
        let base = try #require(URL(string: "http://127.0.0.1:8080/"))
        let url = try LiveSession.realtimeURL(base, store: false, dialogue: true)
        #expect(url.absoluteString == "ws://127.0.0.1:8080/v1/realtime?intent=dialogue&store=false")
        #expect(try LiveSession.realtimeURL(base, store: true).absoluteString == "ws://127.0.0.1:8080/v1/realtime")

        let settings = LiveSession.Settings(
            language: "fr", translateTo: "de", inputFormat: .pcm16(sampleRate: 16_000), dialogue: Self.sides,
            outputFormat: .oggOpus(sampleRate: 16_000))
        let update = LiveSession.update(settings, eventID: "evt_1")
        let session = try #require(update["session"] as? [String: Any])
        #expect(session["type"] as? String == "dialogue")
        let channels = try #require(session["channels"] as? [[String: Any]])
        #expect(channels.map { $0["language"] as? String } == ["en", "es"])
        #expect(channels.map { $0["voice"] as? String } == ["alloy", "nova"])
        #expect(channels.map { $0["speak"] as? Bool } == [true, false])
        let audio = try #require(session["audio"] as? [String: Any])
        let output = try #require((audio["output"] as? [String: Any])?["format"] as? [String: Any])
        #expect(output["type"] as? String == "audio/opus" && output["rate"] as? Int == 16_000)
        let input = try #require((audio["input"] as? [String: Any])?["format"] as? [String: Any])
        #expect(input["type"] as? String == "audio/pcm" && input["rate"] as? Int == 16_000)
        for (format, type) in [(LiveSession.AudioFormat.g711MuLaw, "audio/pcmu"), (.g711ALaw, "audio/pcma")] {
            #expect(format.json["type"] as? String == type && format.sampleRate == 8_000)
        }
        // Each side's language replaces the session's; a dialogue has no translate_to.
        let transcription = (audio["input"] as? [String: Any])?["transcription"] as? [String: Any]
        #expect(transcription?["language"] == nil && transcription?["translate_to"] == nil)
    }

    @Test func audioEventsAreTypedAndFoldIntoTheTranscript() throws {
        let pcm = Data([1, 0, 2, 0])
        let lines = [
            #"{"type":"conversation.item.input_audio_transcription.completed","item_id":"i1","channel":1,"transcript":"Hola."}"#,
            #"{"type":"conversation.item.input_audio_translation.completed","item_id":"i1","channel":1,"language":"en","translation":"Hello."}"#,
            #"{"type":"response.output_audio.delta","item_id":"i1","channel":0,"response_id":"resp_1","delta":"\#(pcm.base64EncodedString())"}"#,
            #"{"type":"response.output_audio.done","item_id":"i1","channel":0,"language":"en","transcript":"Hello.","audio_ms":640}"#,
            #"{"type":"response.output_audio.failed","item_id":"i2","channel":1,"error":{"type":"server_error","code":"synthesis_failed","message":"espeak-ng failed"}}"#,
        ]
        let events = try lines.map { try #require(LiveEvent.parse($0)) }
        #expect(events[2].kind == .audioDelta(itemID: "i1", channel: 0, audio: pcm))
        #expect(events[3].kind == .audioDone(itemID: "i1", channel: 0, language: "en", transcript: "Hello.", audioMs: 640))
        guard case .audioFailed("i2", 1, let error) = events[4].kind else {
            Issue.record("not audioFailed: \(events[4].kind)")
            return
        }
        #expect(error.code == "synthesis_failed")
        #expect(events.map(\.channel) == [1, 1, 0, 0, 1])
        #expect(events.map(\.itemID) == ["i1", "i1", "i1", "i1", "i2"])

        var transcript = LiveTranscript()
        for event in events { transcript.apply(event) }
        let first = try #require(transcript.items.first)
        // The item is the speaker's (channel 1), though its audio went to channel 0.
        #expect(first.channel == 1 && first.text == "Hola." && first.translation == "Hello.")
        #expect(first.spoken && first.spokenMs == 640 && first.speechFailure == nil)
        #expect(transcript.items.last?.speechFailure?.code == "synthesis_failed")
    }
}
