import Foundation
import Testing

@testable import EarshotKit

/// Interim text in the SDK: the `include` its `session.update` sends, the typed event, and what `LiveTranscript`
/// keeps (the server's side is `InterimTextTests`; the end-to-end run is `RealtimeTranscriptionTests`).
@Suite struct LiveInterimTests {
    @Test func settingsAskForInterimTextOnlyWhenTold() throws {
        for (interim, expected) in [(true, ["item.input_audio_transcription.interim"]), (false, nil)] {
            let update = LiveSession.update(.init(interim: interim), eventID: "evt_1")
            let session = try #require(update["session"] as? [String: Any])
            #expect(session["include"] as? [String] == expected)
            #expect(interim || session["include"] is NSNull)
        }
        let dialogue = LiveSession.update(
            .init(dialogue: [.init(language: "en"), .init(language: "fr")], interim: true), eventID: "evt_2")
        #expect(
            (dialogue["session"] as? [String: Any])?["include"] as? [String] == [
                "item.input_audio_transcription.interim"
            ])
    }

    @Test func settingsSendFinalWindowOnlyWhenSet() throws {
        func transcription(_ settings: LiveSession.Settings) -> [String: Any]? {
            let session = LiveSession.update(settings, eventID: "evt_1")["session"] as? [String: Any]
            return ((session?["audio"] as? [String: Any])?["input"] as? [String: Any])?["transcription"]
                as? [String: Any]
        }
        #expect(transcription(.init())?["final_window_ms"] == nil, "the server's default")
        #expect(transcription(.init(finalWindowMs: 10_000))?["final_window_ms"] as? Int == 10_000)
        #expect(
            transcription(.init(dialogue: [.init(language: "en"), .init(language: "fr")], finalWindowMs: 8_000))?[
                "final_window_ms"] as? Int == 8_000)
    }

    @Test func aDeltasWordsLeaveTheInterimText() {
        #expect(LiveTranscript.interim("Had he married a", after: " had, he") == "married a")
        #expect(LiveTranscript.interim("married a more", after: " married") == "a more")
        #expect(LiveTranscript.interim("— married a more", after: " married a more") == "")
        // Interim text that does not begin with the delta's words is left for the next interim event to replace.
        #expect(LiveTranscript.interim("a more", after: " married") == "a more")
        #expect(LiveTranscript.interim("", after: " married") == "")
    }

    @Test func interimTextIsKeptAfterTheDeltasUntilTheFinal() throws {
        let lines = [
            #"{"type":"conversation.item.input_audio_transcription.interim","item_id":"i1","content_index":0,"text":"Had he"}"#,
            #"{"type":"conversation.item.input_audio_transcription.delta","item_id":"i1","content_index":0,"delta":"Had he"}"#,
            #"{"type":"conversation.item.input_audio_transcription.interim","item_id":"i1","content_index":0,"text":"married a"}"#,
            #"{"type":"conversation.item.input_audio_transcription.completed","item_id":"i1","content_index":0,"transcript":"Had he married a more amiable woman."}"#,
        ]
        let events = try lines.map { try #require(LiveEvent.parse($0)) }
        #expect(events[0].kind == .transcriptionInterim(itemID: "i1", text: "Had he"))
        #expect(events.map(\.itemID) == ["i1", "i1", "i1", "i1"])
        var transcript = LiveTranscript()
        var seen: [String] = []
        for event in events {
            if let item = transcript.apply(event) { seen.append("\(item.text)|\(item.interim)") }
        }
        // The delta's words leave the interim text as they become stable.
        #expect(seen == ["|Had he", "Had he|", "Had he|married a", "Had he married a more amiable woman.|"])
        // A late interim of a finished item changes nothing.
        let late = try #require(LiveEvent.parse(lines[2]))
        #expect(transcript.apply(late)?.interim == "")
    }
}
