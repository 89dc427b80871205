/// A chat language model: what summaries and translations are written with.
///
/// Implementations: ``ChatCompletionsClient`` (any OpenAI-compatible server) and ``ManagedLlamaServer`` (the
/// built-in `llama-server` child process). Safe to call concurrently; a call honours task cancellation.
public protocol LanguageModel: Sendable {
    /// The model's name as reported in results (`NoteSummary.model`).
    var name: String { get }
    /// Tokens the model's context window holds, prompt and answer together; prompts are sized to fit.
    var contextTokens: Int { get }
    /// Runs one chat completion and returns the assistant's text.
    ///
    /// - Throws: ``NotesError`` with code `unavailable`, `timeout`, `providerError` or `invalidResponse`;
    ///   `CancellationError` when the calling task is cancelled.
    func complete(_ request: ChatRequest) async throws -> String
}

/// One message of a chat.
public struct ChatMessage: Sendable, Hashable, Codable {
    /// Who speaks: `system`, `user` or `assistant`.
    public var role: String
    /// The text.
    public var content: String

    /// Creates a message.
    public init(role: String, content: String) {
        self.role = role
        self.content = content
    }

    /// Instructions for the model.
    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: "system", content: content) }
    /// The user's turn.
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: "user", content: content) }
}

/// One chat-completion request.
public struct ChatRequest: Sendable, Hashable {
    /// The conversation, system message first.
    public var messages: [ChatMessage]
    /// Upper bound on the answer's length, in tokens.
    public var maxTokens: Int
    /// Sampling temperature; 0 (the default) asks for the most likely answer.
    public var temperature: Double
    /// A JSON Schema (as JSON text) the answer must follow, sent as OpenAI's `response_format` `json_schema`.
    /// llama-server turns it into a grammar, so even a small model answers well-formed JSON. Nil: free text.
    public var jsonSchema: String?

    /// Creates a request.
    public init(messages: [ChatMessage], maxTokens: Int, temperature: Double = 0, jsonSchema: String? = nil) {
        self.messages = messages
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.jsonSchema = jsonSchema
    }
}
