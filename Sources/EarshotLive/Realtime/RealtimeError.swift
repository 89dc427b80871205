/// An `error` event of the realtime protocol: OpenAI's shape (`type`, `code`, `message`, `param`, `event_id` of the
/// client event at fault). The session goes on after it unless said otherwise.
public struct RealtimeError: Error, Sendable, Hashable {
    /// `invalid_request_error` (the client's fault), `server_error`, or `rate_limit_error`.
    public var type: String
    /// A stable code: `invalid_json`, `unknown_event_type`, `invalid_value`, `invalid_base64`, `invalid_audio_format`,
    /// `unsupported_audio_format`, `input_audio_buffer_commit_empty`, `input_audio_buffer_full`,
    /// `unsupported_message`, `RATE_LIMITED`.
    public var code: String
    public var message: String
    /// The field at fault, when one is.
    public var param: String?
    /// The `event_id` of the client event at fault, when it had one.
    public var eventID: String?

    public init(type: String = "invalid_request_error", code: String, message: String, param: String? = nil) {
        self.type = type
        self.code = code
        self.message = message
        self.param = param
    }

    var json: JSONValue {
        [
            "type": .string(type), "code": .string(code), "message": .string(message),
            "param": param.map(JSONValue.string) ?? .null, "event_id": eventID.map(JSONValue.string) ?? .null,
        ]
    }
}
