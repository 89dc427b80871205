import EarshotAPI
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One API call, before authentication.
struct APIRequest: Sendable {
    var method: String
    /// Path relative to the base URL (with its query), or an absolute URL (`http…`).
    var path: String
    var body: Data?
    /// A file streamed as the body instead of ``body`` (multipart uploads).
    var bodyFile: URL?
    var contentType: String?
    var headers: [String: String] = [:]
    /// Send the bearer token (and refresh it on 401).
    var authenticated = true
    /// Safe to repeat on a transient failure (GET, DELETE, and POSTs carrying an idempotency key).
    var idempotent = false

    static func get(_ path: String) -> APIRequest {
        APIRequest(method: "GET", path: path, idempotent: true)
    }

    static func post(_ path: String, json: some Encodable, idempotent: Bool = false) throws -> APIRequest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return APIRequest(
            method: "POST", path: path, body: try encoder.encode(json), contentType: "application/json",
            idempotent: idempotent)
    }

    init(
        method: String, path: String, body: Data? = nil, contentType: String? = nil, headers: [String: String] = [:],
        authenticated: Bool = true, idempotent: Bool? = nil
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.contentType = contentType
        self.headers = headers
        self.authenticated = authenticated
        self.idempotent = idempotent ?? (method == "GET" || method == "DELETE" || method == "PUT")
    }
}

extension EarshotClient {
    /// Sends `request` and decodes a JSON answer (see ``sendRaw(_:)`` for auth, retries and errors).
    func send<T: Decodable>(_ request: APIRequest, as type: T.Type = T.self) async throws -> T {
        let (data, response) = try await sendRaw(request)
        if T.self == Empty.self { return Empty() as! T }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw EarshotError(
                .invalidResponse, "cannot decode \(T.self) from the answer to \(request.method) \(request.path)",
                status: response.statusCode, requestID: response.value(forHTTPHeaderField: "X-Request-Id"),
                underlying: error)
        }
    }

    /// Sends `request`: adds the bearer token, refreshes it once on 401, retries idempotent calls on transient
    /// failures, and turns any non-2xx answer into ``EarshotError``.
    func sendRaw(_ request: APIRequest) async throws -> (Data, HTTPURLResponse) {
        var attempt = 1
        while true {
            do {
                return try await sendAuthenticated(request)
            } catch let error as EarshotError
                where request.idempotent && error.isTransient
                && attempt < configuration.retry.maxAttempts
            {
                try await configuration.retry.pause(afterAttempt: attempt)
                attempt += 1
            }
        }
    }

    private func sendAuthenticated(_ request: APIRequest) async throws -> (Data, HTTPURLResponse) {
        guard request.authenticated else { return try await perform(request, token: nil) }
        let token: String?
        do {
            token = try await tokens.token()
        } catch {
            throw Self.providerFailure(error, after: nil)
        }
        do {
            return try await perform(request, token: token)
        } catch let error as EarshotError where error.code == .unauthorized && error.status == 401 {
            guard await tokens.hasProvider else { throw error }
            let fresh: String
            do {
                fresh = try await tokens.refresh(replacing: token)
            } catch {
                throw Self.providerFailure(error, after: error as? EarshotError)
            }
            return try await perform(request, token: fresh)
        }
    }

    private static func providerFailure(_ error: any Error, after refused: EarshotError?) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? EarshotError, error.code == .unauthorized, error.underlying == nil { return error }
        return EarshotError(
            .unauthorized, "the token provider could not supply a token: \(error)", status: refused?.status,
            requestID: refused?.requestID, underlying: error)
    }

    /// One HTTP exchange, no retries.
    func perform(_ request: APIRequest, token: String?) async throws -> (Data, HTTPURLResponse) {
        let url = try url(for: request.path)
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        if let token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let contentType = request.contentType {
            urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await exchange(urlRequest, body: request.body, file: request.bodyFile)
        guard (200..<300).contains(response.statusCode) else { throw Self.error(from: response, data: data) }
        return (data, response)
    }

    /// Runs one URLSession exchange, mapping transport failures to ``EarshotError/Code/network`` and cancellation
    /// to `CancellationError`.
    func exchange(_ request: URLRequest, body: Data?, file: URL? = nil) async throws -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await SessionExchange.send(
                request, body: body, file: file, session: configuration.session)
        } catch {
            if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw CancellationError() }
            throw EarshotError(
                .network,
                "\(request.httpMethod ?? "GET") \(request.url?.path ?? "") failed: \(error.localizedDescription)",
                underlying: error)
        }
        try Task.checkCancellation()
        guard let http = response as? HTTPURLResponse else {
            throw EarshotError(.invalidResponse, "not an HTTP response from \(request.url?.absoluteString ?? "")")
        }
        return (data, http)
    }

    func url(for path: String) throws -> URL {
        if path.hasPrefix("http://") || path.hasPrefix("https://") {
            guard let url = URL(string: path) else { throw EarshotError(.invalidArgument, "not a URL: \(path)") }
            return url
        }
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + path) else {
            throw EarshotError(.invalidArgument, "cannot form a URL from \(base) and \(path)")
        }
        return url
    }

    /// The ``EarshotError`` for a non-2xx answer: the body's code, message and request id when it is the API's
    /// error JSON, else a code derived from the status.
    static func error(from response: HTTPURLResponse, data: Data) -> EarshotError {
        let headerID = response.value(forHTTPHeaderField: "X-Request-Id")
        if let body = try? JSONDecoder().decode(ErrorResponse.self, from: data) {
            return EarshotError(
                .init(wire: body.error.code), body.error.message, status: response.statusCode,
                requestID: body.error.requestID ?? headerID, wireCode: body.error.code.rawValue)
        }
        let text = String(decoding: data.prefix(512), as: UTF8.self)
        return EarshotError(
            .init(status: response.statusCode),
            "HTTP \(response.statusCode)" + (text.isEmpty ? "" : ": \(text)"), status: response.statusCode,
            requestID: headerID)
    }
}
