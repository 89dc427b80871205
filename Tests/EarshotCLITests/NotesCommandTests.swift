import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The first hour from the command line, through the built binary: one command from a file to a summarised note
/// (no server), a token for it, the note searchable through a server on the same data directory, API keys, and
/// transcripts that stream to a pipe as they are decoded.
@Suite(.serialized, .exclusive("speech decoding"), .timeLimit(.minutes(20)))
struct NotesCommandTests {
    static let ready = TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel)

    /// GETs `path` of `base` with `token`; returns the status and the JSON object.
    static func get(_ base: String, _ path: String, token: String) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return (
            (response as! HTTPURLResponse).statusCode,
            (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        )
    }

    @Test(.enabled(if: ready, "needs the setup's models (make setup)"))
    func oneCommandMakesASummarisedNoteThatAServerFindsWithAToken() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("notes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data").path
        let added = try await Program.earshot.run(
            [
                "notes", "add", "--data-dir", data, "--summarize", "--tags", "speech,history", "--title",
                "Inaugural", TestEnvironment.jfk.path,
            ], timeout: .seconds(600))
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.hasPrefix("# Inaugural\n"))
        #expect(added.stdout.contains("## Summary") && added.stdout.contains("## Transcript"))
        #expect(added.stdout.contains("- Tags: `speech` `history`"))
        #expect(added.stdout.lowercased().contains("ask not what your country can do for you"))
        // Not a terminal: one line per step on stderr, then where the note is.
        #expect(added.stderr.contains("earshot: transcribing…") && added.stderr.contains("earshot: summarizing done"))
        let saved = try #require(added.stderr.split(separator: "\n").first { $0.contains("saved as rec_") })
        let recordID = String(saved.split(separator: " ").last!)

        // A token for the data directory's partner (created as "local"), accepted by a server on the same data.
        let token = try await Program.earshot.run(["token", "--data-dir", data])
        #expect(token.status == 0, "\(token)")
        let child = try Program.earshot.start(["serve", "--port", "0", "--data-dir", data, "--log-level", "notice"])
        defer { _ = child.stop() }
        let base = try await child.listeningURL(after: "earshot listening")
        let bearer = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (status, found) = try await Self.get(base, "/open/partner/records/search?q=country", token: bearer)
        #expect(status == 200, "\(found)")
        let hits = found["hits"] as? [[String: Any]] ?? []
        #expect(hits.compactMap { ($0["record"] as? [String: Any])?["record_id"] as? String } == [recordID])

        // An API key for a script: accepted like a token, until revoked.
        let key = try await Program.earshot.run(["keys", "create", "nightly", "--scope", "records:read", "--data-dir", data])
        #expect(key.status == 0, "\(key)")
        let secret = key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("esk_"))
        #expect(try await Self.get(base, "/open/partner/records", token: secret).0 == 200)
        let keyID = try #require(key.stderr.split(separator: " ").first { $0.hasPrefix("key_") })
        #expect(try await Program.earshot.run(["keys", "revoke", String(keyID), "--data-dir", data]).status == 0)
        #expect(try await Self.get(base, "/open/partner/records", token: secret).0 == 401)
    }

    @Test func badInputIsRefusedWithWhatToDo() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("notes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data").path
        let missing = try await Program.earshot.run(["notes", "add", "--data-dir", data, "/nonexistent.wav"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("no such file: /nonexistent.wav"))
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not audio".utf8).write(to: text)
        let refused = try await Program.earshot.run(["notes", "add", "--data-dir", data, text.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(".txt is not an accepted audio type"), "\(refused.stderr)")
        let label = try await Program.earshot.run(["notes", "add", "--speakers", "Speaker", TestEnvironment.jfk.path])
        #expect(label.status == 64)
        #expect(label.stderr.contains("{n}"))
        let noPartner = try await Program.earshot.run(["token", "--data-dir", directory.appendingPathComponent("empty").path])
        #expect(noPartner.status == 64)
        #expect(noPartner.stderr.contains("earshot partners create"))
    }

    @Test(.enabled(if: ready && SpeechSynthesis.available, "needs the setup's models and espeak-ng"))
    func transcriptsStreamToAPipeAsTheyAreDecoded() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("stream")
        defer { try? FileManager.default.removeItem(at: directory) }
        let call = directory.appendingPathComponent("call.wav")
        try SpeechSynthesis.dialogue(SpeechSynthesis.supportCallLines.map { (SpeechSynthesis.voices[0], $0) }).wav
            .write(to: call)
        let child = try Program.earshot.start(["transcribe", "--language", "en", call.path])
        // The first segment reaches the pipe while the rest of the call is still being decoded.
        let first = try await child.waitForLine(containing: "support line", on: .stdout, timeout: .seconds(300))
        #expect(child.isRunning, "the first line came only when the whole file was done: \(first)")
        let result = try await child.waitForExit(timeout: .seconds(300))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.split(separator: "\n").count >= 6)
        #expect(result.stdout.lowercased().contains("good luck with the storm"))
    }
}
