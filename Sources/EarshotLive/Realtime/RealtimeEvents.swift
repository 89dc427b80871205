import EarshotCore

/// The server events of a transcription session, in OpenAI's shapes.
enum RealtimeEvents {
    static func event(_ type: String, _ fields: [String: JSONValue] = [:]) -> JSONValue {
        var fields = fields
        fields["type"] = .string(type)
        fields["event_id"] = .string(Identifier.make(prefix: "event"))
        return .object(fields)
    }

    static func delta(item: String, delta: String) -> JSONValue {
        event(
            "conversation.item.input_audio_transcription.delta",
            ["item_id": .string(item), "content_index": 0, "delta": .string(delta)])
    }

    static func completed(item: String, transcript: String) -> JSONValue {
        event(
            "conversation.item.input_audio_transcription.completed",
            ["item_id": .string(item), "content_index": 0, "transcript": .string(transcript)])
    }

    static func failed(item: String, message: String) -> JSONValue {
        event(
            "conversation.item.input_audio_transcription.failed",
            [
                "item_id": .string(item), "content_index": 0,
                "error": ["type": "server_error", "code": "transcription_failed", "message": .string(message)],
            ])
    }

    static func error(_ error: RealtimeError) -> JSONValue {
        event("error", ["error": error.json])
    }
}
