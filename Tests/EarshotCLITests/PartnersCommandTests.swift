import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `earshot partners …` and the upload API across a killed and restarted `earshot serve`, run as a user runs them.
@Suite(.serialized) struct PartnersCommandTests {
    @Test func createPrintsCredentialsOnceAndListShowsThePartner() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let created = try await Program.earshot.run(["partners", "create", "Acme Notes", "--data-dir", directory.path])
        #expect(created.status == 0, "\(created.stderr)")
        let lines = created.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("client_id: ptn_") == true)
        #expect(lines.last?.hasPrefix("client_secret: sk_") == true)
        #expect(created.stderr.contains("cannot show it again"))
        let secret = String(lines.last!.dropFirst("client_secret: ".count))

        let listed = try await Program.earshot.run(["partners", "list", "--data-dir", directory.path, "--json"])
        #expect(listed.status == 0, "\(listed)")
        let all = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: String]]
        // The accounts schema creates the instance's default tenant (it has no client secret).
        #expect(all?.first?["client_id"] == "ptn_00000000000000000000")
        let partners = all?.filter { $0["client_id"] != "ptn_00000000000000000000" }
        #expect(partners?.count == 1)
        #expect(partners?.first?["name"] == "Acme Notes")
        #expect(partners?.first?["status"] == "active")
        // Only a salted hash of the secret is stored.
        let database = try Data(contentsOf: directory.appendingPathComponent("earshot.sqlite"))
        #expect(database.range(of: Data(secret.utf8)) == nil)

        let id = try #require(partners?.first?["client_id"])
        let disabled = try await Program.earshot.run(["partners", "disable", id, "--data-dir", directory.path])
        #expect(disabled.status == 0, "\(disabled)")
        #expect(disabled.stdout.contains("disabled"))
        let unknown = try await Program.earshot.run(["partners", "disable", "ptn_nope", "--data-dir", directory.path])
        #expect(unknown.status == 1, "\(unknown)")
        let typo = try await Program.earshot.run(["partners", "craete", "x", "--data-dir", directory.path])
        #expect(typo.status == 64, "\(typo)")
        #expect(typo.stderr.contains("did you mean 'create'?"))
    }

    /// Resume after a crash: two parts sent, the server SIGKILLed, restarted on another port; listing the parts
    /// gives fresh URLs for the rest, the earlier ETags still complete the upload.
    @Test func anUploadResumesAfterTheServerIsKilledBetweenParts() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let created = try await Program.earshot.run([
            "partners", "create", "Acme", "--json", "--data-dir", directory.path,
        ])
        let credentials = try #require(
            try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        let arguments = [
            "serve", "--port", "0", "--data-dir", directory.path, "--upload-chunk-size", "64KiB",
            "--upload-max-file-size", "16MiB",
        ]

        var server = try Program.earshot.start(arguments)
        var base = try await server.listeningURL(after: "earshot listening")
        let partnerToken =
            try await post(
                base, "/open/partner/token",
                json: credentials.filter { ["client_id", "client_secret"].contains($0.key) })["access_token"] as! String
        let userToken =
            try await post(base, "/open/partner/user-token", token: partnerToken, json: ["user_id": "u1"])[
                "access_token"]
            as! String
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let plan = try await post(
            base, "/open/partner/files/upload/generate-presigned-urls", token: userToken,
            json: ["filesize": content.count, "filetype": "wav"])
        let uploadID = plan["UploadId"] as! String
        let chunk = plan["ChunkSize"] as! Int
        let urls = (plan["Parts"] as! [[String: Any]]).map { $0["PresignedUrl"] as! String }
        #expect(urls.count == 4)
        var etags: [Int: String] = [:]
        for number in [1, 2] { etags[number] = try await put(urls[number - 1], content.part(number, chunk)) }

        server.kill()
        server = try Program.earshot.start(arguments)
        defer { server.stop() }
        base = try await server.listeningURL(after: "earshot listening")

        // The user token survives the restart (signing keys are stored); the upload is where it was.
        let status = try await get(base, "/open/partner/files/upload/\(uploadID)/parts", token: userToken)
        let stored = (status["parts"] as! [[String: Any]]).map { $0["part_number"] as! Int }
        #expect(stored == [1, 2])
        let pending = status["pending"] as! [[String: Any]]
        #expect(pending.map { $0["part_number"] as! Int } == [3, 4])
        for entry in pending {
            let number = entry["part_number"] as! Int
            let url = entry["presigned_url"] as! String
            #expect(url.hasPrefix(base))
            etags[number] = try await put(url, content.part(number, chunk))
        }
        let done = try await post(
            base, "/open/partner/files/upload/complete-upload", token: userToken,
            json: [
                "file_id": plan["FileId"] as! String, "upload_id": uploadID, "filetype": "wav",
                "part_list": etags.sorted { $0.key < $1.key }.map { ["part_number": $0.key, "etag": $0.value] },
            ])
        let download = try #require(done["DownloadUrl"] as? String)
        let (bytes, response) = try await URLSession.shared.data(from: URL(string: download)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(bytes == content)

        server.send(SIGTERM)
        let stopped = try await server.waitForExit(timeout: .seconds(15))
        #expect(stopped.status == 0, "\(stopped)")
    }

    // MARK: Helpers

    func post(_ base: String, _ path: String, token: String? = nil, json: Any) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = "POST"
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        return try await send(request)
    }

    func get(_ base: String, _ path: String, token: String) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return try await send(request)
    }

    func send(_ request: URLRequest) async throws -> [String: Any] {
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode
        try #require(status == 200, "\(request.url!): \(status ?? 0) \(String(decoding: data, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func put(_ url: String, _ body: Data) async throws -> String {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "PUT"
        let (_, response) = try await URLSession.shared.upload(for: request, from: body)
        let http = try #require(response as? HTTPURLResponse)
        try #require(http.statusCode == 200)
        return try #require(http.value(forHTTPHeaderField: "ETag"))
    }
}

extension Data {
    /// Part `number` (1-based) of `chunk`-sized parts.
    func part(_ number: Int, _ chunk: Int) -> Data {
        let start = (number - 1) * chunk
        return self[(startIndex + start)..<(startIndex + Swift.min(start + chunk, count))]
    }
}
