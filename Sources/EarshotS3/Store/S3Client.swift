internal import EarshotCore
internal import EarshotCrypto
internal import EarshotStore
internal import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// The S3 REST calls ``S3BlobStore`` makes, signed with ``SignatureV4``, path-style (`/bucket/key`), retried with
/// backoff on network errors and 5xx (`SlowDown` included).
struct S3Client: Sendable {
    let endpoint: URL
    let bucket: String
    let signer: SignatureV4
    let session: URLSession
    let attempts: Int
    let retryDelay: Duration

    /// One answer: status, headers (names lower-cased) and body.
    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data

        /// The `<Code>` of an S3 error document.
        var errorCode: String? { XMLText.first("Code", in: body) }
        var errorMessage: String { XMLText.first("Message", in: body) ?? "" }
    }

    /// `/bucket` or `/bucket/key`, URI-encoded.
    func path(_ key: String? = nil) -> String {
        SignatureV4.encodePath("/" + bucket + (key.map { "/" + $0 } ?? ""))
    }

    /// Sends one signed request (retrying transient failures) and returns the final answer, whatever its status.
    func send(
        _ method: String, key: String? = nil, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: Data = Data(), what: String
    ) async throws -> Response {
        let path = path(key)
        let queryString = SignatureV4.canonicalQuery(query)
        let url = URL(string: SignatureV4.origin(endpoint) + path + (queryString.isEmpty ? "" : "?" + queryString))!
        let payloadHash = DigestAlgorithm.sha256.hash(body).hex
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            var request = URLRequest(url: url, timeoutInterval: 60)
            request.httpMethod = method
            let all = [("host", SignatureV4.hostHeader(endpoint))] + headers
            for (name, value) in all
                + signer.signedHeaders(
                    method: method, path: path, query: query, headers: all, payloadHash: payloadHash, date: Date())
            where name != "host" {
                request.setValue(value, forHTTPHeaderField: name)
            }
            if !body.isEmpty || method == "PUT" || method == "POST" { request.httpBody = body }
            let failure: String
            do {
                // Not `session.data(for:)`: cancelling it while FoundationNetworking completes it deadlocks (the
                // server's shutdown cancels its maintenance in the middle of store calls). The request's 60 s is an
                // idle timeout; the exchange's deadline only bounds a transfer that keeps trickling.
                let (data, response) = try await DeadlineExchange.send(
                    request, session: session, timeout: .seconds(600), failure: { $0 })
                let http = response as? HTTPURLResponse
                var fields: [String: String] = [:]
                for (name, value) in http?.allHeaderFields ?? [:] {
                    if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
                }
                let answer = Response(status: http?.statusCode ?? 0, headers: fields, body: data)
                // 5xx, `SlowDown` (503) included, is worth another try; the body is only read then (a GET's body
                // may be megabytes of audio).
                guard answer.status >= 500 else { return answer }
                failure = "HTTP \(answer.status) \(answer.errorCode ?? "") \(answer.errorMessage)"
            } catch let error as CancellationError {
                throw error
            } catch let error as DeadlineExchange.Failure {
                failure = error.description
            } catch {
                failure = "\(error)"
            }
            guard attempt < attempts else {
                throw StoreError(
                    .unavailable,
                    "cannot reach the object store: S3 \(what) at \(endpoint.absoluteString) failed \(attempt) times, "
                        + "last: \(failure) (check the blob-store URL, that the store runs and this host can reach it)")
            }
            let base = retryDelay * (1 << min(attempt - 1, 6))
            try await Task.sleep(for: base + .milliseconds(Int.random(in: 0...50)))
        }
    }

    /// The ``StoreError`` an unexpected answer means: 404 `.notFound`, 403 `.unavailable` (credentials),
    /// 416 `.invalidRange`, `BadDigest` `.corrupted`, else `.io`.
    func failure(_ response: Response, _ what: String) -> StoreError {
        let detail = "S3 \(what): HTTP \(response.status) \(response.errorCode ?? "") \(response.errorMessage)"
        switch response.status {
        case 404: return StoreError(.notFound, detail)
        case 401, 403:
            return StoreError(.unavailable, detail + " (check the access key and secret of the blob store)")
        case 416: return StoreError(.invalidRange, detail)
        default:
            if response.errorCode == "BadDigest" || response.errorCode == "XAmzContentSHA256Mismatch" {
                return StoreError(.corrupted, detail)
            }
            return StoreError(.io, detail)
        }
    }
}

/// The few pieces of S3's XML answers Earshot reads (`<Key>`, `<UploadId>`, `<Code>`…), without an XML parser: S3
/// answers are flat, and the text is entity-decoded.
enum XMLText {
    static func all(_ element: String, in data: Data) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        var values: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(element)>") {
            guard let close = rest[open.upperBound...].range(of: "</\(element)>") else { break }
            values.append(decode(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return values
    }

    static func first(_ element: String, in data: Data) -> String? { all(element, in: data).first }

    /// The raw (not entity-decoded) content of every `<element>…</element>`, for reading nested elements
    /// (`<Part>`, `<Upload>`) with ``first(_:in:)``.
    static func blocks(_ element: String, in data: Data) -> [Data] {
        let text = String(decoding: data, as: UTF8.self)
        var blocks: [Data] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(element)>") {
            guard let close = rest[open.upperBound...].range(of: "</\(element)>") else { break }
            blocks.append(Data(rest[open.upperBound..<close.lowerBound].utf8))
            rest = rest[close.upperBound...]
        }
        return blocks
    }

    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
