public import Foundation
import EarshotCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``LanguageModel`` behind any server speaking OpenAI's chat-completions API (`POST {base}/chat/completions`):
/// OpenAI itself, llama.cpp's `llama-server`, vLLM, Ollama, LM Studio…
///
/// The base URL is the one OpenAI clients take, ending in `/v1` (`https://api.openai.com/v1`,
/// `http://127.0.0.1:8081/v1`). Each call is one non-streaming request bounded by ``Configuration/timeout``.
public struct ChatCompletionsClient: LanguageModel {
    /// Where the provider is and how to call it.
    public struct Configuration: Sendable, Hashable {
        /// The API base URL, ending in `/v1`.
        public var baseURL: URL
        /// Sent as `Authorization: Bearer …` when set.
        public var apiKey: String?
        /// The `model` field of every request (what the provider calls the model).
        public var model: String
        /// One request may take this long in total before it fails with `timeout`.
        public var timeout: Duration
        /// The model's context window in tokens (prompts are sized to fit).
        public var contextTokens: Int

        /// Creates a configuration.
        public init(
            baseURL: URL, apiKey: String? = nil, model: String, timeout: Duration = .seconds(120),
            contextTokens: Int = 4096
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.model = model
            self.timeout = timeout
            self.contextTokens = contextTokens
        }
    }

    /// The options this client was created with.
    public let configuration: Configuration
    private let session: URLSession

    /// Creates a client (no connection is made until the first call).
    public init(configuration: Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout.seconds
        sessionConfiguration.timeoutIntervalForResource = configuration.timeout.seconds
        session = URLSession(configuration: sessionConfiguration)
    }

    public var name: String { configuration.model }
    public var contextTokens: Int { configuration.contextTokens }

    public func complete(_ request: ChatRequest) async throws -> String {
        try await complete(request, baseURL: configuration.baseURL)
    }

    /// Runs `request` against `baseURL` instead of the configured one (the managed server's port changes when it
    /// is restarted).
    func complete(_ request: ChatRequest, baseURL: URL) async throws -> String {
        let url = baseURL.appendingPathComponent("chat/completions")
        var urlRequest = URLRequest(url: url, timeoutInterval: configuration.timeout.seconds)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let apiKey = configuration.apiKey, !apiKey.isEmpty {
            urlRequest.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        urlRequest.httpBody = try body(for: request)

        urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        let (data, response) = try await Self.send(urlRequest, session: session, timeout: configuration.timeout)
        guard let http = response as? HTTPURLResponse else {
            throw NotesError(.invalidResponse, "\(url.absoluteString) did not answer over HTTP")
        }
        if http.statusCode == 400, request.jsonSchema != nil {
            // Not every compatible server takes `response_format: json_schema`; the prompt asks for JSON anyway.
            var plain = request
            plain.jsonSchema = nil
            return try await complete(plain, baseURL: baseURL)
        }
        guard (200..<300).contains(http.statusCode) else {
            throw NotesError(
                .providerError,
                "\(url.absoluteString) answered HTTP \(http.statusCode): \(Self.providerMessage(in: data))")
        }
        return try Self.content(of: data, from: url)
    }

    /// One exchange with a hard deadline (``DeadlineExchange``), its failures as ``NotesError``s.
    static func send(_ request: URLRequest, session: URLSession, timeout: Duration) async throws -> (Data, URLResponse) {
        let url = request.url!.absoluteString
        return try await DeadlineExchange.send(request, session: session, timeout: timeout) { failure in
            switch failure {
            case .timedOut: NotesError(.timeout, "\(url) did not answer within \(timeout)")
            case .noResponse: NotesError(.invalidResponse, "\(url) sent no response")
            case .unreachable(let error):
                NotesError(
                    .unavailable,
                    "cannot reach the language model at \(url) (\(error.localizedDescription)); "
                        + "check llm-base-url or start the provider",
                    underlying: error)
            }
        }
    }

    private func body(for request: ChatRequest) throws -> Data {
        var body: [String: Any] = [
            "model": configuration.model,
            "messages": request.messages.map { ["role": $0.role, "content": $0.content] },
            "max_tokens": request.maxTokens,
            "temperature": request.temperature,
            "stream": false,
        ]
        if let schemaText = request.jsonSchema {
            guard let schema = try? JSONSerialization.jsonObject(with: Data(schemaText.utf8)) else {
                throw NotesError(.invalidInput, "the request's JSON schema is not valid JSON")
            }
            body["response_format"] = [
                "type": "json_schema", "json_schema": ["name": "answer", "strict": true, "schema": schema],
            ]
        }
        return try JSONSerialization.data(withJSONObject: body)
    }

    /// The assistant's text in a chat-completions response.
    static func content(of data: Data, from url: URL) throws -> String {
        struct Completion: Decodable {
            struct Choice: Decodable {
                struct Message: Decodable { let content: String? }
                let message: Message?
                let text: String?
            }
            let choices: [Choice]
        }
        guard let completion = try? JSONDecoder().decode(Completion.self, from: data) else {
            let excerpt = String(decoding: data.prefix(200), as: UTF8.self)
            throw NotesError(
                .invalidResponse, "\(url.absoluteString) answered something that is not a chat completion: \(excerpt)")
        }
        guard let choice = completion.choices.first, let text = choice.message?.content ?? choice.text else {
            throw NotesError(.invalidResponse, "\(url.absoluteString) answered a chat completion without a message")
        }
        return text
    }

    /// `error.message` of an OpenAI-style error body, else the start of the body.
    static func providerMessage(in data: Data) -> String {
        struct Failure: Decodable {
            struct Detail: Decodable { let message: String? }
            let error: Detail?
        }
        if let failure = try? JSONDecoder().decode(Failure.self, from: data), let message = failure.error?.message {
            return message
        }
        let text = String(decoding: data.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(empty body)" : text
    }
}
