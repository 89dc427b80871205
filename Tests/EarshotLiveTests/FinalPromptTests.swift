import Testing

@testable import EarshotLive

/// A final decode's prompt: the session's prompt first, then the last words said before the item.
@Suite struct FinalPromptTests {
    @Test func theSessionsPromptThenTheLastWordsSaid() {
        #expect(RealtimeTranscriptionSession.prompt(nil, after: nil) == nil)
        #expect(RealtimeTranscriptionSession.prompt("Earshot, JFK.", after: nil) == "Earshot, JFK.")
        #expect(
            RealtimeTranscriptionSession.prompt(nil, after: "  And so my fellow Americans, ")
                == "And so my fellow Americans,")
        #expect(RealtimeTranscriptionSession.prompt("JFK.", after: "ask not") == "JFK. ask not")
        let long = (1...100).map { "w\($0)" }.joined(separator: " ")
        let prompt = RealtimeTranscriptionSession.prompt("Names.", after: long) ?? ""
        #expect(prompt.hasPrefix("Names. w61 "))
        #expect(prompt.hasSuffix(" w100"))
        #expect(prompt.split(separator: " ").count == 1 + RealtimeTranscriptionSession.contextWords)
    }
}
