import EarshotTestSupport
import Foundation
import Testing

/// The command examples of the README and docs run: every ```` ```sh docs-test ```` block of README.md and
/// docs/*.md is executed line by line in one sandbox per page (the built `earshot` first on PATH, the page's audio
/// files made from the test clip, a server on the sandbox's data directory standing in for `make run` at
/// http://127.0.0.1:8080), and every command must succeed — so a changed flag or command fails the build instead of
/// leaving a stale page. `make …` lines are the build itself and are skipped.
@Suite(.serialized, .exclusive("speech decoding"), .timeLimit(.minutes(30)))
struct DocsExamplesTests {
    /// One tagged block: its page and its command lines (comments and blank lines removed).
    struct Block {
        var page: String
        var commands: [String]
    }

    static func blocks() throws -> [Block] {
        let repository = TestEnvironment.repository
        let docs = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var blocks: [Block] = []
        for page in ["README.md"] + docs {
            let text = try String(contentsOf: repository.appendingPathComponent(page), encoding: .utf8)
            var current: [String]?
            for line in text.components(separatedBy: "\n") {
                if current == nil, line.hasPrefix("```sh"), line.contains("docs-test") {
                    current = []
                } else if current != nil, line.hasPrefix("```") {
                    blocks.append(Block(page: page, commands: current!))
                    current = nil
                } else if current != nil {
                    let command = Self.stripComment(line).trimmingCharacters(in: .whitespaces)
                    if !command.isEmpty { current!.append(command) }
                }
            }
        }
        return blocks
    }

    /// `line` without a trailing `# comment` outside quotes.
    static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (index, character) in zip(line.indices, line) {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", previous == " " {
                return String(line[..<index])
            }
            previous = character
        }
        return line
    }

    @Test func theReadmeHasTaggedExamples() throws {
        let pages = Set(try Self.blocks().map(\.page))
        #expect(pages.contains("README.md"), "README.md's command examples are not tagged ```sh docs-test")
    }

    @Test(.enabled(if: TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel), "needs make setup"))
    func everyTaggedExampleRuns() async throws {
        let byPage = Dictionary(grouping: try Self.blocks(), by: \.page)
        for page in byPage.keys.sorted() {
            let sandbox = try TestEnvironment.makeTemporaryDirectory("docs")
            defer { try? FileManager.default.removeItem(at: sandbox) }
            // The audio files the pages name, made from the test clip.
            for name in ["meeting.m4a", "call.mp3", "memo.m4a"] {
                try FFmpeg.run(["-i", TestEnvironment.jfk.path, sandbox.appendingPathComponent(name).path])
            }
            // `make run`'s server, on the sandbox's ./data.
            let data = sandbox.appendingPathComponent("data").path
            _ = try await Program.earshot.run(["partners", "create", "local", "--data-dir", data])
            let server = try Program.earshot.start(["serve", "--port", "0", "--data-dir", data])
            defer { _ = server.stop() }
            let base = try await server.listeningURL(after: "earshot listening")
            let path = TestEnvironment.products.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
            for block in byPage[page]! {
                for command in block.commands where !command.hasPrefix("make ") {
                    let line = command.replacingOccurrences(of: "http://127.0.0.1:8080", with: base)
                    let shell = Program(
                        URL(fileURLWithPath: "/bin/sh"),
                        environment: ["PATH": path, "EARSHOT_HOME": TestEnvironment.home.path],
                        inheritance: .allExcept(prefix: "EARSHOT_"))
                    let result = try await shell.run(
                        ["-c", "cd \"\(sandbox.path)\" && " + line], timeout: .seconds(900))
                    #expect(result.status == 0, "\(page): `\(command)` failed:\n\(result.stderr)\n\(server.diagnostics)")
                }
            }
        }
    }
}
