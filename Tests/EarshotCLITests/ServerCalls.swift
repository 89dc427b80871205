import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The platform API calls the end-to-end tests of a running `earshot serve` make: JSON calls, an upload through
// presigned parts, polling a task.

func isFinalTask(_ task: [String: Any]) -> Bool {
    ["SUCCESS", "FAILURE", "REVOKED"].contains(task["status"] as? String)
}

/// Polls task `id` until `done` holds; a task stuck past `timeout` fails the test with `server`'s stderr.
func poll(
    _ base: String, _ id: String, token: String, server: ChildProcess, timeout: Duration = .seconds(120),
    until done: ([String: Any]) -> Bool
) async throws -> [String: Any] {
    let deadline = ContinuousClock.now + timeout
    while true {
        let task = try await call(base, "GET", "/open/partner/transcriptions/\(id)", token: token)
        if done(task) { return task }
        try #require(ContinuousClock.now < deadline, "task \(id) stuck: \(task)\n\(server.diagnostics)")
        try await Task.sleep(for: .milliseconds(100))
    }
}

func call(
    _ base: String, _ method: String, _ path: String, token: String? = nil, json: Any? = nil
) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: base + path)!)
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if let json { request.httpBody = try JSONSerialization.data(withJSONObject: json) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    try #require(
        (200..<300).contains(status), "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// Uploads `content` (one or more parts) and returns its DownloadUrl.
func upload(_ base: String, token: String, _ content: Data) async throws -> String {
    let plan = try await call(
        base, "POST", "/open/partner/files/upload/generate-presigned-urls", token: token,
        json: ["filesize": content.count, "filetype": "wav"])
    let chunk = plan["ChunkSize"] as! Int
    var parts: [[String: Any]] = []
    for entry in plan["Parts"] as! [[String: Any]] {
        let number = entry["PartNumber"] as! Int
        var request = URLRequest(url: URL(string: entry["PresignedUrl"] as! String)!)
        request.httpMethod = "PUT"
        let (_, response) = try await URLSession.shared.upload(for: request, from: content.part(number, chunk))
        let etag = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag"))
        parts.append(["part_number": number, "etag": etag])
    }
    let done = try await call(
        base, "POST", "/open/partner/files/upload/complete-upload", token: token,
        json: ["file_id": plan["FileId"]!, "upload_id": plan["UploadId"]!, "filetype": "wav", "part_list": parts])
    return done["DownloadUrl"] as! String
}
