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

    @Test func contractionsAndHyphensAgreeWithTheirSpelledOutForms() {
        // Successive decodes of one turn of the bench's call alternated like this; compared word by word they agreed
        // on "Well," alone and the turn's 25 words waited for its final.
        var stable = StablePrefix()
        #expect(stable.agree(with: "Well, there's not much") == "")
        #expect(stable.agree(with: "Well, there is not much difference") == "Well, there is not much")
        #expect(stable.agree(with: "Well, there's not much difference at least.") == " difference")
        #expect(stable.agree(with: "Well there is not much difference at least, you know") == " at least,")
        #expect(
            stable.finish(with: "Well, there's not much difference at least. You know, they all call me.")
                == " You know, they all call me.")

        var hyphen = StablePrefix()
        _ = hyphen.agree(with: "He was not an ill-disposed")
        #expect(hyphen.agree(with: "he was not an ill disposed young") == "he was not an ill disposed")
        #expect(hyphen.agree(with: "He was not an ill-disposed young man.") == " young")
        #expect(hyphen.shown == ["he", "was", "not", "an", "ill", "disposed", "young"])
    }

    @Test func aWordIsNeverShownInPart() {
        var stable = StablePrefix()
        _ = stable.agree(with: "I do")
        #expect(stable.agree(with: "I do know") == "I do")
        // "don't" begins with the shown "do": no word starts where the shown ones end, so nothing is added.
        #expect(stable.agree(with: "I don't know") == "")
        #expect(stable.agree(with: "I don't know you") == "")
        #expect(stable.shown == ["I", "do"])
        #expect(stable.agree(with: "I do not know you at all") == " not know you")
        #expect(stable.agree(with: "I do not know you at all.") == " at all.")
        #expect(stable.finish(with: "I don't know you at all, sir.") == " sir.")

        // A final that cannot continue the shown words at a word boundary adds its words past the shown count.
        var cut = StablePrefix()
        _ = cut.agree(with: "I do")
        #expect(cut.agree(with: "I do know") == "I do")
        #expect(cut.finish(with: "I don't know.") == " know.")
    }

    @Test func aFinalWithoutPartialsIsSentWhole() {
        var stable = StablePrefix()
        #expect(
            stable.finish(with: "Ask not what your country can do for you.")
                == "Ask not what your country can do for you.")
        var empty = StablePrefix()
        #expect(empty.finish(with: "") == "")
    }
}
