import EarshotEval
import Foundation
import Testing

/// The live replay's figures (`earshot eval --live`): percentiles, the pairing of streamed and offline files, and
/// how the report and the JSON show them.
@Suite struct LiveFiguresTests {
    func result(_ hypotheses: [String: String]) -> EvaluationResult {
        let documents = ["jfk", "memo<2>"].map { name in
            TextEvaluation.Document(
                name: name, referenceLines: ["ask not what your country can do for you"],
                hypothesis: [HypothesisSegment(text: hypotheses[name] ?? "")])
        }
        return TextEvaluation(configuration: .init(language: .english)).evaluate(
            documents, conditions: TestConditions(model: "asr-fast"), timing: nil, title: "live")
    }

    func figures() -> LiveFigures {
        let streamed = result([
            "jfk": "ask not what your country can do for", "memo<2>": "ask not what your country can do for you",
        ])
        let offline = result(["jfk": "ask not what your country can do for you", "memo<2>": "ask what country do"])
        let utterances = (1...20).map {
            LiveFigures.Utterance(
                document: "jfk", firstPartialSeconds: $0.isMultiple(of: 2) ? Double($0) / 10 : nil,
                finalSeconds: Double($0) / 20)
        }
        return LiveFigures(streamed: streamed, offline: offline, utterances: utterances, speed: 4)
    }

    @Test func percentilesAreNearestRankAndPartialsOnlyCountWhereShown() throws {
        let live = figures()
        let final = try #require(live.final)
        #expect(final.count == 20)
        #expect(final.p50 == 0.5)  // the 10th of 0.05 … 1.0
        #expect(final.p95 == 0.95)  // the 19th
        let partial = try #require(live.firstPartial)
        #expect(partial.count == 10)  // only the utterances with a partial before their final
        #expect(partial.p50 == 1.0)
        #expect(partial.p95 == 2.0)
        #expect(LiveFigures.Summary([]) == nil)
    }

    @Test func streamedAndOfflineWERArePairedByFile() throws {
        let live = figures()
        #expect(live.documents.map(\.name) == ["jfk", "memo<2>"])
        let jfk = try #require(live.documents.first)
        #expect(abs(jfk.streamedWordErrorRate - 1.0 / 9) < 1e-9)  // one deletion of nine words
        #expect(jfk.offlineWordErrorRate == 0)
        #expect(abs(live.streamedWordErrorRate - 1.0 / 18) < 1e-9)
        #expect(abs(live.offlineWordErrorRate - 5.0 / 18) < 1e-9)  // "ask what country do": five deletions
        #expect(abs(live.werDifference - (1.0 / 18 - 5.0 / 18)) < 1e-9)
    }

    @Test func theReportAndTheJSONCarryTheLiveFigures() throws {
        var result = result(["jfk": "ask not what your country can do for"])
        result.live = figures()
        let html = result.html()
        #expect(html.contains("<section id=\"live\">"))
        for id in ["streamed-wer", "offline-wer", "wer-gap", "partial-p50", "partial-p95", "final-p50", "final-p95"] {
            #expect(html.contains("id=\"kpi-\(id)\""), "kpi \(id)")
        }
        #expect(html.contains("memo&lt;2&gt;"))
        #expect(!html.contains("memo<2>"))
        #expect(html.contains("4.0× real time"))
        let object = try #require(try JSONSerialization.jsonObject(with: result.jsonData()) as? [String: Any])
        let live = try #require(object["live"] as? [String: Any])
        #expect(live["speed"] as? Double == 4)
        #expect((live["utterances"] as? [Any])?.count == 20)
        let decoded = try JSONDecoder().decode(EvaluationResult.self, from: result.jsonData())
        #expect(decoded.live == result.live)

        // Without a replay there is no live section and no `live` key.
        let plain = self.result([:])
        #expect(!plain.html().contains("id=\"live\""))
        let plainObject = try #require(try JSONSerialization.jsonObject(with: plain.jsonData()) as? [String: Any])
        #expect(plainObject["live"] == nil)
    }
}
