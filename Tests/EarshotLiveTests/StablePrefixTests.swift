import EarshotLive
import Testing

/// LocalAgreement-2: words appear once two successive hypotheses agree, are never taken back, and the final text
/// adds what remains.
@Suite struct StablePrefixTests {
    @Test func wordsAppearWhenTwoHypothesesAgree() {
        var stable = StablePrefix()
        #expect(stable.agree(with: "And so my") == "")
        #expect(stable.agree(with: "And so, my fellow") == "And so, my")
        #expect(stable.agree(with: "and so my fellow Americans") == " fellow")
        #expect(stable.finish(with: "And so, my fellow Americans, ask not.") == " Americans, ask not.")
        #expect(stable.shown.count == 7)
    }

    @Test func aDriftingHypothesisAddsNothingAndNothingIsRetracted() {
        var stable = StablePrefix()
        _ = stable.agree(with: "the quick brown")
        #expect(stable.agree(with: "the quick brown fox") == "the quick brown")
        // Two hypotheses that change an already shown word: nothing new, nothing removed.
        #expect(stable.agree(with: "a quick brown fox jumps") == "")
        #expect(stable.agree(with: "a quick brown fox jumps over") == "")
        #expect(stable.shown == ["the", "quick", "brown"])
    }

    @Test func aFinalWithoutPartialsIsSentWhole() {
        var stable = StablePrefix()
        #expect(stable.finish(with: "Ask not what your country can do for you.") == "Ask not what your country can do for you.")
        var empty = StablePrefix()
        #expect(empty.finish(with: "") == "")
    }
}
