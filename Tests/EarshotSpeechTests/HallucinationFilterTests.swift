import Testing

@testable import EarshotSpeech

@Suite("Hallucination guards")
struct HallucinationFilterTests {
    private func segment(_ text: String, noSpeech: Double = 0, logProbability: Double = -0.2) -> Transcript.Segment {
        Transcript.Segment(
            startMs: 0, endMs: 1000, text: text, noSpeechProbability: noSpeech, averageLogProbability: logProbability)
    }

    @Test("a phrase looping to the end of a window is collapsed to one occurrence")
    func phraseLoop() {
        var filter = HallucinationFilter()
        let looped = segment(
            "I'm in New Jersey now though. I'm in New Jersey now though. I'm in New Jersey now though.")
        #expect(filter.admit(looped)?.text == "I'm in New Jersey now though.")
        var other = HallucinationFilter()
        #expect(
            other.admit(segment("Thank you. Thank you. Thank you. Thank you. Thank you. Thank you."))?.text
                == "Thank you.")
    }

    @Test("natural repetitions stay", arguments: ["five five", "go go go", "very very very good", "Hello? Hello?"])
    func naturalRepeats(text: String) {
        var filter = HallucinationFilter()
        #expect(filter.admit(segment(text))?.text == text)
    }

    @Test("a word said many times in a row is collapsed")
    func wordLoop() {
        var filter = HallucinationFilter()
        #expect(filter.admit(segment("the the the the the the the end"))?.text == "the end")
    }

    @Test("text over silence is dropped only when the decoder is also unconfident")
    func noSpeech() {
        var filter = HallucinationFilter()
        #expect(filter.admit(segment("Thank you.", noSpeech: 0.9, logProbability: -1.5)) == nil)
        #expect(filter.admit(segment("Thank you.", noSpeech: 0.9, logProbability: -0.3)) != nil)
        #expect(filter.admit(segment("Okay then.", noSpeech: 0.2, logProbability: -1.5)) != nil)
    }

    @Test("a repeated tail of identical segments keeps two")
    func repeatedTail() {
        var filter = HallucinationFilter()
        let kept = ["Hello?", "Hello?", "hello", "Hello.", "Oh, hello."].compactMap { filter.admit(segment($0)) }
        #expect(kept.map(\.text) == ["Hello?", "Hello?", "Oh, hello."])
    }

    @Test("compression ratio separates speech from loops")
    func compressionRatio() {
        let speech =
            "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
        #expect(HallucinationFilter.compressionRatio(of: speech) < 1.5)
        let loop = String(repeating: "we will be right back after this ", count: 6)
        #expect(HallucinationFilter.compressionRatio(of: loop) > 2.4)
    }

    @Test("word times follow a collapsed loop")
    func wordsFollow() {
        let words = ["yes", "I", "know", "I", "know", "I", "know", "I", "know"].enumerated().map {
            Transcript.Word(startMs: $0 * 100, endMs: $0 * 100 + 90, text: $1, probability: 0.9)
        }
        var looped = segment(words.map(\.text).joined(separator: " "))
        looped.words = words
        looped.endMs = 900
        let kept = HallucinationFilter.collapsingLoops(in: looped, maximumLength: 8, maximumRepeats: 3)
        #expect(kept.text == "yes I know")
        #expect(kept.words.map(\.text) == ["yes", "I", "know"])
        #expect(kept.endMs == 290)
    }

    @Test("disabled keeps everything")
    func disabled() {
        var filter = HallucinationFilter(configuration: .disabled)
        #expect(filter.admit(segment("a a a a a a a", noSpeech: 0.99, logProbability: -3))?.text == "a a a a a a a")
    }
}
