import EarshotCore

/// A face-to-face dialogue's side of the session state: its two channels, which side is speaking, and the turn a
/// side switch ends.
extension SessionState {
    /// The transcription settings an item is decoded with: in a dialogue, the speaking side's language.
    var spokenSettings: TranscriptionSettings {
        var settings = transcription
        if isDialogue, let channel = activeChannel, let channels { settings.language = channels[channel].language }
        return settings
    }

    /// The `channel` of an append or commit: 0 or 1. Required on a dialogue's appends, and only once the channels
    /// are set (the session must know both languages before it hears anything).
    func channel(of event: JSONValue, required: Bool) throws -> Int? {
        guard let value = event["channel"] else {
            guard required else { return nil }
            throw RealtimeError(
                code: "invalid_value",
                message: "a dialogue's input_audio_buffer.append names the side that speaks: `channel` 0 or 1",
                param: "channel")
        }
        guard let number = value.number, number == 0 || number == 1 else {
            throw RealtimeError(
                code: "invalid_value",
                message: "`channel` must be 0 or 1 (a dialogue has two sides), not \(value.text.prefix(32))",
                param: "channel")
        }
        guard channels != nil else {
            throw RealtimeError(
                code: "invalid_value",
                message: "set the dialogue's two channels first: session.update with session.channels "
                    + "[{language, voice, speak}, {language, voice, speak}]",
                param: "session.channels")
        }
        return Int(number)
    }

    /// The other side started speaking: the current side's turn ends. Its speech so far becomes an item (the turn
    /// from its start with server VAD; the whole buffer, if at least 100 ms, when the client commits), and the rest
    /// of its buffer — silence — is dropped, so the next item is the new side's alone.
    mutating func switchSides() -> [Action] {
        var actions: [Action] = []
        if turns == nil {
            if buffer.count >= 1_600 {
                actions = commitTurn(item: itemID ?? Identifier.make(prefix: "item"), from: 0, to: buffer.count)
            }
        } else if let start = turns?.speechStart, itemID != nil {
            actions = endTurn(start: start, end: buffer.count, committingTo: buffer.count)
        }
        turns?.restart()
        dropBuffer()
        return actions
    }

    /// Reads and checks `session.channels`: exactly two objects `{language, voice?, speak?}` (voice `alloy` and
    /// speak `true` by default), each language one the engine transcribes and the server translates into, each voice
    /// one the speaker offers.
    func dialogueChannels(_ value: JSONValue, recognizer: any LiveRecognizer) async throws -> [DialogueChannel] {
        guard case .array(let list) = value, list.count == 2 else {
            throw RealtimeError(
                code: "invalid_value",
                message: "session.channels must be an array of two objects, one per side: "
                    + "[{\"language\": \"en\", \"voice\": \"alloy\", \"speak\": true}, {\"language\": \"es\", …}]",
                param: "session.channels")
        }
        var result: [DialogueChannel] = []
        for (index, entry) in list.enumerated() {
            let name = "session.channels[\(index)]"
            guard case .object(let fields) = entry else {
                throw RealtimeError(
                    code: "invalid_value", message: "`\(name)` must be an object {language, voice, speak}", param: name)
            }
            if let unknown = fields.keys.sorted().first(where: { !["language", "voice", "speak"].contains($0) }) {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "`\(name)` has an unknown field `\(unknown.prefix(32))`; a channel takes language, voice "
                        + "and speak",
                    param: "\(name).\(unknown.prefix(32))")
            }
            guard let language = fields["language"]?.string?.lowercased(), !language.isEmpty else {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "`\(name).language` is required: the ISO 639-1 code of the language that side speaks",
                    param: "\(name).language")
            }
            var channel = DialogueChannel(language: language)
            if let voice = fields["voice"] {
                guard let voiceName = voice.string else {
                    throw RealtimeError(
                        code: "invalid_value", message: "`\(name).voice` must be a voice name such as alloy",
                        param: "\(name).voice")
                }
                channel.voice = voiceName.lowercased()
            }
            if let speak = fields["speak"] {
                guard case .bool(let value) = speak else {
                    throw RealtimeError(
                        code: "invalid_value", message: "`\(name).speak` must be true or false",
                        param: "\(name).speak")
                }
                channel.speak = value
            }
            do {
                try await recognizer.validate(TranscriptionSettings(model: transcription.model, language: language))
                guard let translator else {
                    throw RealtimeError(
                        code: "invalid_value", message: "this server does not translate live sessions")
                }
                try await translator.validate(target: language, strict: false)
            } catch let error as RealtimeError {
                throw RealtimeError(code: error.code, message: error.message, param: "\(name).language")
            } catch {
                throw RealtimeError(code: "invalid_value", message: "\(error)", param: "\(name).language")
            }
            do {
                guard let speaker else {
                    if channel.speak {
                        throw RealtimeError(
                            code: "invalid_value",
                            message: "this server does not speak translations; set speak false")
                    }
                    result.append(channel)
                    continue
                }
                try await speaker.validate(voice: channel.voice, language: language)
            } catch let error as RealtimeError {
                throw RealtimeError(code: error.code, message: error.message, param: "\(name).voice")
            } catch {
                throw RealtimeError(code: "invalid_value", message: "\(error)", param: "\(name).voice")
            }
            result.append(channel)
        }
        return result
    }
}
