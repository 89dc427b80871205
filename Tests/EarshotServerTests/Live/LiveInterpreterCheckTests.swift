import EarshotLive
@testable import EarshotServer
import Testing

/// Whisper's English for a live item passes the same translation gate as the notes provider's translations:
/// what the translate task gave on this machine for espeak-ng's Spanish (docs/decisions/0014) is judged against the
/// item's transcript.
@Suite struct LiveInterpreterCheckTests {
    static let transcript = "Buenos días. Mi hermana trabaja en un hospital en Barcelona."

    func refusal(_ english: String, of transcript: String = Self.transcript) -> RealtimeError? {
        do {
            try LiveInterpreter.check(english, of: transcript, from: "es")
            return nil
        } catch {
            return error as? RealtimeError
        }
    }

    @Test func aTranslationPasses() {
        #expect(refusal("Good morning, my mother works in a hospital in Barcelona.") == nil)
        #expect(refusal("Where is the station of the train?", of: "¿Dónde está la estación de tren?") == nil)
        #expect(refusal("", of: Self.transcript) == nil, "nothing to judge: an empty item")
    }

    @Test func theSourceBackOrALoopIsUntrusted() throws {
        let untranslated = try #require(refusal(Self.transcript))
        #expect(untranslated.code == "translation_untrusted")
        #expect(untranslated.type == "server_error")
        #expect(untranslated.message.contains("translation check"), "\(untranslated.message)")
        let loop = try #require(
            refusal(
                "I love you, I love you, I love you, I love you, I love you, I love you.",
                of: "Hola, me llamo Juan. Vivo en Madrid con mi familia."))
        #expect(loop.code == "translation_untrusted")
        #expect(loop.message.contains("repeat"), "\(loop.message)")
    }
}
