import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot records …` against a running `earshot serve`: list, search, show, translate by speech, summarize (the
/// extractive summary of the built-in configuration), and the group listing its commands.
@Suite(.exclusive("speech decoding")) struct RecordsCommandTests {
    static let ready = TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel)

    @Test func theGroupAloneListsItsCommands() async throws {
        let bare = try await Program.earshot.run(["records"])
        #expect(bare.status == 64, "\(bare)")
        #expect(bare.stderr.contains("earshot records search"), "\(bare.stderr)")
        let help = try await Program.earshot.run(["records", "--help"])
        #expect(help.status == 0, "\(help)")
        #expect(help.stdout.contains("earshot records summarize"), "\(help.stdout)")
        let unknown = try await Program.earshot.run(["records", "lst"])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.stderr.hasPrefix("earshot: unknown command 'records lst'"), "\(unknown.stderr)")
    }

    /// One JSON call to the server.
    static func call(_ method: String, _ url: String, token: String? = nil, json: Any? = nil, body: Data? = nil)
        async throws -> [String: Any]
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        if let body { request.httpBody = body }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as! HTTPURLResponse).statusCode
        try #require((200..<300).contains(status), "\(method) \(url): \(String(decoding: data, as: UTF8.self))")
        if data.isEmpty { return [:] }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func listSearchShowTranslateAndSummarizeThroughAServer() async throws {
        let data = try TestEnvironment.makeTemporaryDirectory("records").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let stack = try await ServeProcess.start(partner: "Records", dataDirectory: data)
        defer { stack.stop() }
        let (base, partner) = (stack.base, try await stack.partnerToken())
        let token = try #require(
            try await Self.call("POST", base + "/open/partner/user-token", token: partner, json: ["user_id": "u1"])[
                "access_token"] as? String)

        // Upload JFK, make a record of it and transcribe it.
        let audio = try Data(contentsOf: TestEnvironment.jfk)
        let plan = try await Self.call(
            "POST", base + "/open/partner/files/upload/generate-presigned-urls", token: token,
            json: ["filesize": audio.count, "filetype": "wav"])
        let chunk = try #require(plan["ChunkSize"] as? Int)
        var etags: [[String: Any]] = []
        for part in try #require(plan["Parts"] as? [[String: Any]]) {
            let number = try #require(part["PartNumber"] as? Int)
            var request = URLRequest(url: URL(string: try #require(part["PresignedUrl"] as? String))!)
            request.httpMethod = "PUT"
            request.httpBody = audio[((number - 1) * chunk)..<min(number * chunk, audio.count)]
            let (_, response) = try await URLSession.shared.data(for: request)
            let etag = try #require((response as! HTTPURLResponse).value(forHTTPHeaderField: "ETag"))
            etags.append(["part_number": number, "etag": etag])
        }
        let fileID = try #require(plan["FileId"] as? String)
        _ = try await Self.call(
            "POST", base + "/open/partner/files/upload/complete-upload", token: token,
            json: ["file_id": fileID, "upload_id": plan["UploadId"]!, "part_list": etags, "filetype": "wav"])
        let record = try await Self.call(
            "POST", base + "/open/partner/records", token: token,
            json: ["file_id": fileID, "title": "Inaugural address", "tags": ["history"]])
        let id = try #require((record["record"] as? [String: Any])?["record_id"] as? String)
        let task = try await Self.call(
            "POST", base + "/open/partner/records/\(id)/tasks", token: token, json: ["task_type": 0])
        let taskID = try #require(task["task_id"] as? String)
        let deadline = ContinuousClock.now + .seconds(240)
        while try await Self.call("GET", base + "/open/partner/records/\(id)/tasks/\(taskID)", token: token)["status"]
            as? String != "SUCCESS"
        {
            try #require(ContinuousClock.now < deadline, "transcription did not finish")
            try await Task.sleep(for: .milliseconds(250))
        }

        let connection = ["--server", base, "--token", token]
        let list = try await Program.earshot.run(["records", "list"] + connection)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(
            list.stdout.contains(id) && list.stdout.contains("Inaugural address") && list.stdout.contains("#history"))
        #expect(list.stdout.contains("  T-  "))

        let search = try await Program.earshot.run(["records", "search", "COUNTRY"] + connection)
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.stdout.contains(id))
        #expect(search.stdout.lowercased().contains("[country]"), "\(search.stdout)")

        let show = try await Program.earshot.run(["records", "show", id] + connection)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("# Inaugural address\n"))
        #expect(show.stdout.contains("## Transcript"))
        let srt = try await Program.earshot.run(["records", "show", id, "--format", "srt"] + connection)
        #expect(srt.stdout.hasPrefix("1\n00:00:"))

        let translate = try await Program.earshot.run(
            ["records", "translate", id, "--to", "en", "--speech"] + connection, timeout: .seconds(240))
        #expect(translate.status == 0, "\(translate.stderr)")
        #expect(translate.stdout.hasPrefix("[00:00]"))
        #expect(translate.stdout.lowercased().contains("country"))

        // The built-in configuration summarizes extractively (docs/notes.md): key points with their times.
        let summarize = try await Program.earshot.run(
            ["records", "summarize", id] + connection, timeout: .seconds(120))
        #expect(summarize.status == 0, "\(summarize.stderr)")
        #expect(summarize.stdout.contains("extractive"), "\(summarize.stdout)")
        #expect(summarize.stdout.contains("[00:0"), "\(summarize.stdout)")

        let missing = try await Program.earshot.run(["records", "list", "--server", base])
        #expect(missing.status == 64, "\(missing)")
        #expect(missing.stderr.contains("--token"))
    }
}
