import EarshotHTTP
import Foundation
import Testing

@testable import EarshotNotes

/// The translation quality gate: what a weak model's output looks like (seen from SmolLM2-135M: one invented
/// sentence repeated, commentary about translating, a repeated syllable) fails; a good translation passes; one bad
/// segment among many passes with a warning.
@Suite("Translation quality gate")
struct TranslationGateTests {
    let source = Array(Transcripts.meeting.prefix(6))
    let french = [
        "Bonjour à tous, examinons le plan de lancement des nouveaux casques.",
        "L'usine a confirmé que les dix mille premières unités seront expédiées le quatorze mars.",
        "Les tests de batterie sont terminés et les casques tiennent trente-deux heures avec une charge.",
        "Nous avons trouvé un problème : le boîtier chauffe quand il charge à plus de quinze watts.",
        "Alors nous limitons la charge rapide à quinze watts dans le micrologiciel de lancement.",
        "Je vais mettre à jour le micrologiciel et envoyer une nouvelle version à l'usine d'ici vendredi.",
    ]

    @Test("A good translation passes without warnings")
    func goodPasses() {
        let verdict = TranslationCheck().verdict(source: source, output: french, sourceLanguage: "en", target: "fr")
        #expect(verdict.passes)
        #expect(verdict.failed == 0)
        #expect(verdict.warnings.isEmpty)
        #expect(verdict.detectedLanguage == "fr")
    }

    @Test("One invented sentence repeated for every segment fails as a loop")
    func repeatedSentenceFails() {
        let output = Array(repeating: "Le chat est sur la table dans la maison de mon père.", count: source.count)
        let verdict = TranslationCheck().verdict(source: source, output: output, sourceLanguage: "en", target: "fr")
        #expect(!verdict.passes)
        #expect(verdict.counts[.loop] == source.count)
    }

    @Test("Commentary about the translation instead of one fails")
    func commentaryFails() {
        let output = Array(repeating: "This is a French translation of the English sentence.", count: 3)
            + Array(french.suffix(3))
        let verdict = TranslationCheck().verdict(source: source, output: output, sourceLanguage: "en", target: "fr")
        #expect(!verdict.passes)
        #expect(verdict.counts[.commentary] == 3)
        #expect(verdict.warnings.contains { $0.contains("are not in fr (detected: en ×3)") })
    }

    @Test("A repeated syllable (the Chinese case) fails")
    func syllableLoopFails() {
        let output = source.map { _ in String(repeating: "的的", count: 20) }
        let verdict = TranslationCheck().verdict(source: source, output: output, sourceLanguage: "en", target: "zh")
        #expect(!verdict.passes)
        #expect(verdict.counts[.loop] == source.count)
    }

    @Test("One weak segment among six passes, with warnings naming it")
    func oneBadSegmentWarns() {
        var output: [String?] = french
        output[2] = "Les tests."  // far shorter than its source
        output[1] = "L'usine a confirmé que les 10 000 premières unités partiront le 40 mars."
        var sourceWithNumbers = source
        sourceWithNumbers[1].text = "The factory confirmed that the first 10 000 units ship on 14 March."
        let verdict = TranslationCheck().verdict(
            source: sourceWithNumbers, output: output, sourceLanguage: "en", target: "fr")
        #expect(verdict.passes)
        #expect(verdict.failed == 1)
        #expect(verdict.warnings.contains("1 of 6 segments are far shorter or longer than their source"))
        #expect(verdict.warnings.contains("1 of 6 segments lost or changed a number"))
    }

    @Test("Through a provider: bad output fails with lowQuality saying what to configure; good output succeeds")
    func providerStub() async throws {
        let router = Router()
        // /good/v1 translates; /bad/v1 answers one invented sentence for every line.
        for (prefix, answers) in [("/good", french), ("/bad", Array(repeating: "Le chat dort.", count: 6))] {
            router.post(prefix + "/v1/chat/completions") { request, _ in
                let body = try JSONSerialization.jsonObject(with: Data(request.bytes)) as? [String: Any] ?? [:]
                let messages = body["messages"] as? [[String: Any]] ?? []
                let prompt = messages.last?["content"] as? String ?? ""
                let lines = prompt.split(separator: "\n").filter { $0.first?.isNumber == true }
                let items = lines.enumerated().map { index, line -> String in
                    let number = Int(line.prefix { $0.isNumber }) ?? index + 1
                    let text = answers[(number - 1) % answers.count]
                    return #"{"n": \#(number), "text": \#(String(decoding: try! JSONEncoder().encode(text), as: UTF8.self))}"#
                }
                return .text(
                    completion(#"{"translations": ["# + items.joined(separator: ", ") + "]}"),
                    contentType: "application/json")
            }
        }
        try await withProvider(router) { base in
            let root = base.deletingLastPathComponent()
            func processor(_ path: String) -> NoteProcessor {
                NoteProcessor(
                    model: ChatCompletionsClient(
                        configuration: .init(baseURL: root.appendingPathComponent(path + "/v1"), model: "stub")))
            }
            let good = try await processor("good").translate(source, from: "en", to: "fr")
            #expect(good.segments.map(\.text) == french)
            #expect(good.warnings.isEmpty)
            let error = await #expect(throws: NotesError.self) {
                try await processor("bad").translate(source, from: "en", to: "fr")
            }
            #expect(error?.code == .lowQuality)
            #expect(error?.message.contains("llm-base-url") == true)
            #expect(error?.message.contains("6 of 6 segments are unusable") == true)
        }
    }
}
