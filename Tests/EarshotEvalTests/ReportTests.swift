import EarshotEval
import Foundation
import Testing

/// The HTML report and the JSON result show the same numbers, safely.
@Suite struct ReportTests {
    func sample() -> EvaluationResult {
        let document = TextEvaluation.Document(
            name: "memo<1>",
            referenceLines: ["The cat sat on the mat.", "It was <script>alert(1)</script> happy.", "Goodbye now."],
            hypothesis: [
                HypothesisSegment(text: "the cat sit on mat it was script alert 1 script very happy goodbye now")
            ])
        return TextEvaluation(configuration: .init(language: .english)).evaluate(
            [document],
            conditions: TestConditions(
                model: "asr-pro <base>", settings: ["beam": "5", "temperature": "0"], audioFormat: "WAV PCM 16 kHz",
                machine: "test box"),
            timing: Timing(elapsed: .seconds(3), audio: .seconds(12)), title: "Report <b>title</b>")
    }

    @Test func inputTextIsEscapedEverywhere() {
        let html = sample().html()
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("Report &lt;b&gt;title&lt;/b&gt;"))
        #expect(html.contains("asr-pro &lt;base&gt;"))
        #expect(!html.contains("<b>title"))
    }

    @Test func everySectionAndTheLegendArePresent() {
        let html = sample().html()
        for id in ["kpis", "composition", "conditions", "sentences", "diff", "normalized", "method"] {
            #expect(html.contains("<section id=\"\(id)\">"), "section \(id)")
        }
        #expect(html.contains("id=\"legend\""))
        for word in ["substitution", "deletion", "insertion"] { #expect(html.contains(word)) }
        #expect(html.contains("prefers-color-scheme:dark"))
        #expect(html.contains("name=\"viewport\""))
        #expect(html.contains("<svg"))
        #expect(!html.contains("src=\"http"))
        #expect(!html.contains("href=\"http"))
    }

    @Test func theNumbersInThePageAreTheResultsNumbers() {
        let result = sample()
        let html = result.html()
        // the cat sat on the mat / it was script alert 1 script happy / goodbye now (15 reference words)
        #expect(result.words == ErrorCounts(hits: 13, substitutions: 1, deletions: 1, insertions: 1))
        #expect(html.contains("<div class=\"label\">Total errors</div><div class=\"value\">3</div>"))
        #expect(html.contains("<div class=\"label\">Reference words</div><div class=\"value\">15</div>"))
        #expect(html.contains("<div class=\"label\">WER</div><div class=\"value\">20.00%</div>"))
        #expect(html.contains("<div class=\"label\">Accuracy</div><div class=\"value\">80.00%</div>"))
        #expect(html.contains("<div class=\"label\">Real-time factor</div><div class=\"value\">0.250</div>"))
        #expect(html.contains("<td>Substitutions (S)</td><td class=\"num\">1</td>"))
        // The diff marks each kind with a symbol as well as a colour.
        #expect(html.contains("<del class=\"del\"><span class=\"sym\">−</span>the</del>"))
        #expect(html.contains("<ins class=\"ins\"><span class=\"sym\">+</span>very</ins>"))
        #expect(html.contains("<span class=\"was\">sat</span> sit"))
        // Three reference lines in one segment: flagged as merged.
        #expect(html.contains("id=\"merged-note\""))
        #expect(result.documents[0].sentences.map(\.status) == [.merged])
    }

    @Test func jsonRoundTripsWithTheSameNumbers() throws {
        let result = sample()
        let data = try result.jsonData()
        let decoded = try JSONDecoder().decode(EvaluationResult.self, from: data)
        #expect(decoded == result)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["wordErrorRate"] as? Double == 0.2)
        #expect((object["words"] as? [String: Any])?["substitutions"] as? Int == 1)
    }

    @Test func emptyInputsStillRenderAReport() {
        let result = TextEvaluation(configuration: .init(language: .chinese)).evaluate(
            [TextEvaluation.Document(name: "empty", reference: "", hypothesis: "")])
        #expect(result.words == .zero)
        #expect(result.wordErrorRate == 0)
        let html = result.html()
        #expect(html.contains("<div class=\"label\">WER</div><div class=\"value\">0.00%</div>"))
        #expect(html.contains("not measured"))
    }
}
