public import Foundation
import EarshotCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Speech from any server speaking OpenAI's `POST {base}/audio/speech` (OpenAI itself, Earshot, and the many
/// self-hosted servers that copy the API), asked for bare 24 kHz PCM (``Configuration/Format/pcm``) or WAV.
///
/// The request carries `model`, `input`, `voice`, `speed` and, when given, `instructions`; OpenAI's API takes no
/// language (the provider reads it from the text). A WAV answer is read whatever format was asked, since some
/// servers ignore `response_format`. Thread-safe: at most ``Configuration/concurrency`` requests are in flight,
/// the rest wait; a cancelled task cancels its request.
public struct OpenAISpeechSynthesizer: SpeechSynthesizer {
    /// Where the provider is and how to call it.
    public struct Configuration: Sendable, Hashable {
        /// The audio the provider is asked for.
        public enum Format: String, Sendable, Hashable {
            /// Bare 16-bit little-endian mono PCM at 24 kHz (OpenAI's `pcm`).
            case pcm
            /// A WAV file of 16-bit PCM.
            case wav
        }

        /// The API base URL, ending in `/v1` (`https://api.openai.com/v1`).
        public var baseURL: URL
        /// Sent as `Authorization: Bearer …` when set.
        public var apiKey: String?
        /// The `model` of every request (`tts-1`, `gpt-4o-mini-tts`, or what the provider calls its model).
        public var model: String
        /// What to ask for.
        public var format: Format
        /// Requests in flight at once.
        public var concurrency: Int
        /// One request may take this long before it fails with `timeout`.
        public var timeout: Duration

        /// Creates a configuration.
        public init(
            baseURL: URL, apiKey: String? = nil, model: String = "tts-1", format: Format = .pcm, concurrency: Int = 4,
            timeout: Duration = .seconds(120)
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.model = model
            self.format = format
            self.concurrency = concurrency
            self.timeout = timeout
        }
    }

    /// The rate of OpenAI's bare `pcm`.
    public static let pcmSampleRate = 24_000

    /// The options this client was created with.
    public let configuration: Configuration
    private let session: URLSession
    private let slots: SynthesisSlots

    /// Creates a client (no connection is made until the first request).
    public init(configuration: Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout.seconds
        sessionConfiguration.timeoutIntervalForResource = configuration.timeout.seconds
        session = URLSession(configuration: sessionConfiguration)
        slots = SynthesisSlots(limit: configuration.concurrency)
    }

    public var name: String { configuration.baseURL.absoluteString }

    private struct Body: Encodable {
        var model: String
        var input: String
        var voice: String
        var responseFormat: String
        var speed: Double
        var instructions: String?

        enum CodingKeys: String, CodingKey {
            case model, input, voice, speed, instructions
            case responseFormat = "response_format"
        }
    }

    public func synthesize(_ request: SpeechRequest) async throws -> SynthesizedSpeech {
        try request.validate()
        let url = configuration.baseURL.appendingPathComponent("audio/speech")
        var urlRequest = URLRequest(url: url, timeoutInterval: configuration.timeout.seconds)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let apiKey = configuration.apiKey, !apiKey.isEmpty {
            urlRequest.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        let body = Body(
            model: configuration.model, input: request.text, voice: request.voice ?? StandardVoice.default.rawValue,
            responseFormat: configuration.format.rawValue, speed: request.speed, instructions: request.instructions)
        urlRequest.httpBody = try JSONEncoder().encode(body)
        let (session, timeout, prepared) = (self.session, configuration.timeout, urlRequest)
        let (data, response) = try await slots.run {
            try await Self.send(prepared, session: session, timeout: timeout)
        }
        guard let http = response as? HTTPURLResponse else {
            throw VoiceError(.invalidResponse, "\(url.absoluteString) did not answer over HTTP")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw VoiceError(
                .providerError, "\(url.absoluteString) answered HTTP \(http.statusCode): \(Self.providerMessage(data))")
        }
        if PCM16.isWAV(data) { return try PCM16.wav(data) }
        guard configuration.format == .pcm else {
            throw VoiceError(.invalidResponse, "\(url.absoluteString) answered something other than the WAV asked for")
        }
        return SynthesizedSpeech(samples: PCM16.samples(data), sampleRate: Self.pcmSampleRate)
    }

    /// The provider's own error message (`{"error": {"message": …}}`), else the start of the body.
    static func providerMessage(_ data: Data) -> String {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let error = object["error"] as? [String: Any], let message = error["message"] as? String
        {
            return message
        }
        return String(decoding: data.prefix(300), as: UTF8.self)
    }

    /// One exchange with a hard deadline (``DeadlineExchange``), its failures as ``VoiceError``s.
    static func send(_ request: URLRequest, session: URLSession, timeout: Duration) async throws -> (Data, URLResponse)
    {
        let url = request.url!.absoluteString
        return try await DeadlineExchange.send(request, session: session, timeout: timeout) { failure in
            switch failure {
            case .timedOut: VoiceError(.timeout, "\(url) did not answer within \(timeout)")
            case .noResponse: VoiceError(.invalidResponse, "\(url) sent no response")
            case .unreachable(let error):
                VoiceError(
                    .unavailable, "cannot reach the speech provider at \(url): \(error.localizedDescription)",
                    underlying: error)
            }
        }
    }
}
