import EarshotCore
import EarshotSpeech
import Foundation

/// The server events of a transcription session, in OpenAI's shapes.
enum RealtimeEvents {
    /// An event of `type` with `fields`; `channel` (a dialogue's side, Earshot's field) is added when given.
    static func event(_ type: String, _ fields: [String: JSONValue] = [:], channel: Int? = nil) -> JSONValue {
        var fields = fields
        fields["type"] = .string(type)
        if let channel { fields["channel"] = .number(Double(channel)) }
        fields["event_id"] = .string(Identifier.make(prefix: "event"))
        return .object(fields)
    }

    static func delta(item: String, delta: String, channel: Int? = nil) -> JSONValue {
        event(
            "conversation.item.input_audio_transcription.delta",
            ["item_id": .string(item), "content_index": 0, "delta": .string(delta)], channel: channel)
    }

    /// Earshot's interim text of an item still being spoken (`include: ["item.input_audio_transcription.interim"]`):
    /// the newest decode's words after the stable ones its deltas carried, to show after them until the next interim
    /// (or the final text) replaces it. It may change; deltas never do.
    static func interim(item: String, text: String, channel: Int? = nil) -> JSONValue {
        event(
            "conversation.item.input_audio_transcription.interim",
            ["item_id": .string(item), "content_index": 0, "text": .string(text)], channel: channel)
    }

    /// The final text of an item, with Earshot's `words` (`[{word, start_ms, end_ms}]` on the session's clock).
    static func completed(item: String, transcript: String, words: [Transcript.Word] = [], channel: Int? = nil)
        -> JSONValue
    {
        let words = JSONValue.array(
            words.map {
                [
                    "word": .string($0.text), "start_ms": .number(Double($0.startMs)),
                    "end_ms": .number(Double($0.endMs)),
                ]
            })
        return event(
            "conversation.item.input_audio_transcription.completed",
            ["item_id": .string(item), "content_index": 0, "transcript": .string(transcript), "words": words],
            channel: channel)
    }

    static func failed(item: String, message: String, channel: Int? = nil) -> JSONValue {
        event(
            "conversation.item.input_audio_transcription.failed",
            [
                "item_id": .string(item), "content_index": 0,
                "error": ["type": "server_error", "code": "transcription_failed", "message": .string(message)],
            ], channel: channel)
    }

    /// The translation of a completed item (`translate_to`), paired with it by `item_id`.
    static func translated(item: String, language: String, translation: String, channel: Int? = nil) -> JSONValue {
        event(
            "conversation.item.input_audio_translation.completed",
            [
                "item_id": .string(item), "content_index": 0, "language": .string(language),
                "translation": .string(translation),
            ], channel: channel)
    }

    /// No trustworthy translation of a completed item: `code` says why (`translation_failed`, or
    /// `translation_untrusted` when the quality gate refused the output).
    static func translationFailed(
        item: String, language: String, code: String, message: String, channel: Int? = nil
    ) -> JSONValue {
        event(
            "conversation.item.input_audio_translation.failed",
            [
                "item_id": .string(item), "content_index": 0, "language": .string(language),
                "error": ["type": "server_error", "code": .string(code), "message": .string(message)],
            ], channel: channel)
    }

    /// A dialogue's spoken translation, one chunk of base64 PCM16 (`response.output_audio.delta`, GA's name), for
    /// the listener's `channel`; `item_id` is the utterance it translates.
    static func audioDelta(response: String, item: String, channel: Int, audio: [UInt8]) -> JSONValue {
        event(
            "response.output_audio.delta",
            [
                "response_id": .string(response), "item_id": .string(item), "output_index": 0, "content_index": 0,
                "delta": .string(Data(audio).base64EncodedString()),
            ], channel: channel)
    }

    /// The end of a spoken translation: `transcript` is the text that was spoken, `audio_ms` its length.
    static func audioDone(
        response: String, item: String, channel: Int, language: String, transcript: String, audioMs: Int
    ) -> JSONValue {
        event(
            "response.output_audio.done",
            [
                "response_id": .string(response), "item_id": .string(item), "output_index": 0, "content_index": 0,
                "language": .string(language), "transcript": .string(transcript),
                "audio_ms": .number(Double(audioMs)),
            ], channel: channel)
    }

    /// A translation that could not be spoken (`synthesis_failed`); the session goes on.
    static func audioFailed(response: String, item: String, channel: Int, language: String, message: String)
        -> JSONValue
    {
        event(
            "response.output_audio.failed",
            [
                "response_id": .string(response), "item_id": .string(item), "output_index": 0, "content_index": 0,
                "language": .string(language),
                "error": ["type": "server_error", "code": "synthesis_failed", "message": .string(message)],
            ], channel: channel)
    }

    static func error(_ error: RealtimeError) -> JSONValue {
        event("error", ["error": error.json])
    }
}
