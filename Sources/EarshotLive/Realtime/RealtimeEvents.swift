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

    /// The translation of a completed item (`translate_to`), paired with it by `item_id`.
    static func translated(item: String, language: String, translation: String) -> JSONValue {
        event(
            "conversation.item.input_audio_translation.completed",
            [
                "item_id": .string(item), "content_index": 0, "language": .string(language),
                "translation": .string(translation),
            ])
    }

    /// No trustworthy translation of a completed item: `code` says why (`translation_failed`, or
    /// `translation_untrusted` when the quality gate refused the output).
    static func translationFailed(item: String, language: String, code: String, message: String) -> JSONValue {
        event(
            "conversation.item.input_audio_translation.failed",
            [
                "item_id": .string(item), "content_index": 0, "language": .string(language),
                "error": ["type": "server_error", "code": .string(code), "message": .string(message)],
            ])
    }

    static func error(_ error: RealtimeError) -> JSONValue {
        event("error", ["error": error.json])
    }
}
