import EarshotEval
import Foundation
import Testing

/// Reading reference files, pairing directories by name, and the pairs-file benchmark.
@Suite struct FilesAndBenchmarkTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func write(_ text: String, _ url: URL) throws { try text.write(to: url, atomically: true, encoding: .utf8) }

    @Test func referenceLinesSkipBlanksAndTheByteOrderMark() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ref.txt")
        try write("\u{FEFF}first line\r\n\n  second line  \n", file)
        #expect(try ReferenceFiles.readLines(file) == ["first line", "second line"])
        #expect(throws: EvalError.self) { try ReferenceFiles.readLines(directory.appendingPathComponent("none.txt")) }
    }

    @Test func directoriesArePairedByFileStem() throws {
        let audio = try temporaryDirectory()
        let refs = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: audio)
            try? FileManager.default.removeItem(at: refs)
        }
        for name in ["b.wav", "a.WAV", "notes.md"] { try write("x", audio.appendingPathComponent(name)) }
        for name in ["a.txt", "b.txt"] { try write("x", refs.appendingPathComponent(name)) }
        let pairs = try ReferenceFiles.pair(audio, extensions: ["wav"], with: refs)
        #expect(pairs.map(\.name) == ["a", "b"])
        #expect(pairs[0].first.lastPathComponent == "a.WAV")
        #expect(pairs[1].second.lastPathComponent == "b.txt")

        try write("x", audio.appendingPathComponent("c.wav"))
        #expect {
            _ = try ReferenceFiles.pair(audio, extensions: ["wav"], with: refs)
        } throws: { error in
            (error as? EvalError)?.code == .unpairedFiles && (error as? EvalError)?.message.contains("c") == true
        }
        #expect(try ReferenceFiles.pair(audio, extensions: ["wav"], with: refs, allowUnpaired: true).count == 2)
    }

    @Test func speakerLinesNeedATab() throws {
        #expect(
            try ReferenceFiles.speakerUtterances(of: "alice\thello there\nbob\tgood morning")
                == [
                    SpeakerUtterance(speaker: "alice", text: "hello there"),
                    SpeakerUtterance(speaker: "bob", text: "good morning"),
                ])
        #expect(throws: EvalError.self) { try ReferenceFiles.speakerUtterances(of: "alice hello") }
    }

    @Test func pairsFileInTSVOrJSONLGivesCorpusTotals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tsv = directory.appendingPathComponent("pairs.tsv")
        try write("the cat sat\tthe cat sit\n\tuh oh\na b c\t\n", tsv)
        let result = try PairsBenchmark.run(pairsFile: tsv)
        #expect(result.pairs == 3)
        #expect(result.counts == ErrorCounts(hits: 2, substitutions: 1, deletions: 3, insertions: 2))
        #expect(result.wordErrorRate == 6.0 / 6.0)
        #expect(result.elapsedSeconds >= 0)

        let jsonl = directory.appendingPathComponent("pairs.jsonl")
        try write(
            "{\"ref\": \"the cat sat\", \"hyp\": \"the cat sit\"}\n{\"ref\": \"tab\\there\", \"hyp\": \"tab here\"}\n",
            jsonl)
        #expect(try PairsBenchmark.run(pairsFile: jsonl).counts == ErrorCounts(hits: 4, substitutions: 1))

        let bad = directory.appendingPathComponent("bad.tsv")
        try write("only one field\n", bad)
        #expect {
            _ = try PairsBenchmark.run(pairsFile: bad)
        } throws: { error in
            (error as? EvalError)?.code == .malformedPairs && (error as? EvalError)?.message.contains("line 1") == true
        }
    }
}
