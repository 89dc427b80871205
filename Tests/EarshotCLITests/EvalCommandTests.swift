import EarshotTestSupport
import Foundation
import Testing

/// `earshot eval text` and `earshot bench eval` through the built binary.
@Suite struct EvalCommandTests {
    func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func scoresTextWritesReportsAndGatesOnMaxWER() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("eval")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ref = try write("Go forward ten meters.\nTurn left <script>alert(1)</script>\n", "ref.txt", in: directory)
        let hyp = try write("go forward 10 meters\nturn right\n", "hyp.txt", in: directory)
        let report = directory.appendingPathComponent("report.html").path
        let json = directory.appendingPathComponent("result.json").path

        let passing = try await Program.earshot.run([
            "eval", "text", "--ref", ref, "--hyp", hyp, "--report", report, "--json", json, "--max-wer", "0.9",
        ])
        #expect(passing.status == 0, "\(passing.stderr)")
        // "ten"→"10" normalise equal; "left"→"right" is one substitution; "<script>alert(1)</script>" are deleted words.
        #expect(passing.stdout.hasPrefix("WER "))
        #expect(passing.stdout.contains("S 1"))
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("&lt;script&gt;"))
        #expect(!html.contains("<script>alert"))
        let result =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        #expect(result?["wordErrorRate"] as? Double != nil)

        let failing = try await Program.earshot.run(["eval", "text", "--ref", ref, "--hyp", hyp, "--max-wer", "0.01"])
        #expect(failing.status == 3, "\(failing)")
        #expect(failing.stderr.contains("is above --max-wer 0.0100"))
    }

    @Test func missingFilesAndBadOptionsAreClearErrors() async throws {
        let missing = try await Program.earshot.run(["eval", "text", "--ref", "/nonexistent/ref.txt", "--hyp", "/x"])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr.contains("/nonexistent/ref.txt"))
        let language = try await Program.earshot.run(["eval", "text", "--ref", "a", "--hyp", "b", "--language", "fr"])
        #expect(language.status == 64, "\(language)")
        #expect(language.stderr.contains("--language must be en, zh or none"))
        let required = try await Program.earshot.run(["eval", "text", "--ref", "a"])
        #expect(required.status == 64, "\(required)")
    }

    @Test func benchEvalCountsLikeJiwer() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("eval")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Hand-checked: pair 1 has one substitution; pair 2 one deletion and one insertion.
        let pairs = try write("a b c\ta x c\nthe cat sat\tcat sat down\n", "pairs.tsv", in: directory)
        let result = try await Program.earshot.run(["bench", "eval", "--pairs", pairs, "--repeat", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(line?["hits"] as? Int == 4)
        #expect(line?["substitutions"] as? Int == 1)
        #expect(line?["deletions"] as? Int == 1)
        #expect(line?["insertions"] as? Int == 1)
        #expect(line?["pairs"] as? Int == 2)
    }
}
