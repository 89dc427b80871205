import EarshotSpeech
import Testing

@testable import EarshotLive

/// Interim text (`include: ["item.input_audio_transcription.interim"]`): after each partial decode, the words past
/// the stable ones, sent when they change and never instead of a delta; asked for per session, refused when unknown.
@Suite struct InterimTextTests {
    static func utterance(interim: Bool) -> RealtimeTranscriptionSession.Utterance {
        .init(itemID: "item_1", samples: [], settings: TranscriptionSettings(), interim: interim)
    }

    /// The `type` and the text field of each event the transcripts emitted for `decodes` (partials, then a final).
    static func events(interim: Bool, partials: [String], final: String) async -> [String] {
        let (stream, out) = AsyncStream<JSONValue>.makeStream()
        let texts = Transcripts(out: out, recorder: nil)
        let utterance = utterance(interim: interim)
        for text in partials { await texts.partial(utterance, text: text) }
        await texts.complete(utterance, Recognition(text: final))
        out.finish()
        var events: [String] = []
        for await event in stream {
            let type = (event["type"]?.string ?? "").replacingOccurrences(
                of: "conversation.item.input_audio_transcription.", with: "")
            events.append(
                "\(type): \(event["delta"]?.string ?? event["text"]?.string ?? event["transcript"]?.string ?? "")")
        }
        return events
    }

    @Test func interimTextFollowsEachPartialDecodeAndChangesWhileDeltasOnlyGrow() async {
        let events = await Self.events(
            interim: true,
            partials: [
                "Had he", "Had he married a more", "Had he married a more amiable", "Had he married a more amiable",
            ],
            final: "Had he married a more amiable woman.")
        #expect(
            events == [
                "interim: Had he",
                "delta: Had he", "interim: married a more",
                "delta:  married a more", "interim: amiable",
                // The same decode again: the interim text has not changed, so nothing is sent.
                "delta:  amiable", "interim: ",
                "delta:  woman.", "completed: Had he married a more amiable woman.",
            ])
    }

    @Test func withoutIncludeOnlyDeltasAreSent() async {
        let events = await Self.events(
            interim: false, partials: ["Had he", "Had he married"], final: "Had he married a more amiable woman.")
        #expect(
            events == [
                "delta: Had he", "delta:  married a more amiable woman.",
                "completed: Had he married a more amiable woman.",
            ])
    }

    @Test func pendingWordsAreTheNewestHypothesisPastTheStableOnes() {
        var stable = StablePrefix()
        _ = stable.agree(with: "Well, there's not")
        #expect(stable.pending == ["Well,", "there's", "not"])
        _ = stable.agree(with: "Well, there is not much")
        #expect(stable.shown == ["Well,", "there", "is", "not"])
        #expect(stable.pending == ["much"])
        // A hypothesis that drifts from the shown words: its words past as many as are shown.
        _ = stable.agree(with: "Oh, there is not much difference")
        #expect(stable.pending == ["much", "difference"])
        _ = stable.finish(with: "Well, there is not much difference.")
        #expect(stable.pending.isEmpty)
    }

    @Test func includeIsParsedAndUnknownValuesAreRefused() throws {
        #expect(try SessionState.interim(.array(["item.input_audio_transcription.interim"])))
        #expect(try !SessionState.interim(.null))
        #expect(try !SessionState.interim(.array([])))
        // OpenAI's log probabilities are accepted (its clients ask for them) and not provided.
        #expect(try !SessionState.interim(.array(["item.input_audio_transcription.logprobs"])))
        let bad: [JSONValue] = [
            "item.input_audio_transcription.interim", .array(["nonsense"]), .array([1]), ["x": 1],
        ]
        for bad in bad {
            #expect {
                try SessionState.interim(bad)
            } throws: { error in
                (error as? RealtimeError)?.param == "session.include"
            }
        }
    }
}
