import EarshotAudio
import EarshotCore
import EarshotSpeech
import Foundation

/// The audio buffer, turn detection and settings of one session; turns client events into actions.
struct SessionState {
    enum Action {
        case emit(JSONValue)
        case commit(RealtimeTranscriptionSession.Utterance)
        case partial(RealtimeTranscriptionSession.Utterance)
        /// The turn has gone quiet: decode it now as its commit would (``LiveDecode/early``).
        case early(RealtimeTranscriptionSession.Utterance)
        /// Speech resumed: the early decode is of audio no commit will have; stop it (the engine is for partials).
        case dropEarly
    }

    let configuration: RealtimeTranscriptionSession.Configuration
    let sessionID = Identifier.make(prefix: "sess")
    var transcription: TranscriptionSettings
    var turns: TurnDetector?
    var turnSettings: TurnDetector.Settings?
    /// nil only to check settings without running a session (``RealtimeTranscriptionSession/settings(of:dialect:
    /// recognizer:)``).
    let detector: VoiceActivityStream?
    let recorder: (any LiveSessionRecorder)?
    let translator: (any LiveTranslator)?
    /// `translate_to`: the language each completed item is translated into, or nil.
    var translateTo: String?
    /// `include` names ``interimInclude``: interim text follows each partial decode.
    var interim = false
    /// `final_window_ms` (Earshot's): how long a final decode's window is, the item after the same side's previous
    /// items (``RealtimeTranscriptionSession/Said``); 0 decodes each item alone.
    var finalWindowMs: Int
    /// What appends carry (``LiveAudioFormat``).
    var inputFormat: LiveAudioFormat
    /// The rate of the PCM16 the input decodes to (and the recording holds).
    var inputRate: Int { inputFormat.pcmRate }
    /// Whether any audio was accepted (the input format is then fixed: the recording has one rate, and a stream
    /// format such as Ogg Opus cannot restart mid-session).
    var audioReceived = false
    var inputDecoder: LiveInputDecoder?
    var resampler: PCMResampler?
    /// Audio not yet committed, 16 kHz.
    var buffer: [Float] = []
    /// Absolute position (16 kHz samples since the session's first audio) of `buffer[0]`.
    var bufferStart = 0
    var detectedUpTo = 0
    /// Where the last partial decode of the turn was asked for (buffer position).
    var partialUpTo = 0
    /// The item and the end of its speech (session clock) last decoded early, so a quiet stretch asks once.
    var earlyAskedFor: (item: String, end: Int)?
    /// The item the current turn (server VAD) or buffer will become.
    var itemID: String?
    var previousItemID: String?
    let speaker: (any LiveSpeaker)?
    /// A dialogue's two sides, once the client set them (``DialogueChannel``).
    var channels: [DialogueChannel]?
    /// A dialogue: the side whose audio the buffer holds (the last append's `channel`).
    var activeChannel: Int?
    /// A dialogue: the format spoken translations are sent in.
    var outputFormat = LiveAudioFormat.pcm16(rate: 24_000)

    init(
        configuration: RealtimeTranscriptionSession.Configuration, detector: VoiceActivityStream?,
        recorder: (any LiveSessionRecorder)? = nil, translator: (any LiveTranslator)? = nil,
        speaker: (any LiveSpeaker)? = nil
    ) {
        self.configuration = configuration
        self.detector = detector
        self.recorder = recorder
        self.translator = translator
        self.speaker = speaker
        transcription = configuration.transcription
        finalWindowMs = Int(configuration.finalWindow / .milliseconds(1))
        turnSettings = configuration.turnDetection
        inputFormat = .pcm16(rate: configuration.inputRate)
        turns = Self.turns(turnSettings, detector: detector, splitting: configuration.turnSplitting)
    }

    var isGA: Bool { configuration.dialect == .ga || isDialogue }
    var isDialogue: Bool { configuration.dialogue }

    static func turns(
        _ settings: TurnDetector.Settings?, detector: VoiceActivityStream?, splitting: TurnDetector.Splitting?
    ) -> TurnDetector? {
        guard let settings, let detector else { return nil }
        return TurnDetector(stream: detector, settings: settings, splitting: splitting)
    }

    /// The `created` event, after the settings a client secret was minted with (``Configuration/initialSession``).
    mutating func start(recognizer: any LiveRecognizer) async -> [Action] {
        var actions: [Action] = []
        if let initial = configuration.initialSession {
            do {
                _ = try await update(
                    ["type": "session.update", "session": initial], type: "session.update", recognizer: recognizer)
            } catch let error as RealtimeError {
                actions.append(.emit(RealtimeEvents.error(error)))
            } catch {
                actions.append(
                    .emit(
                        RealtimeEvents.error(
                            RealtimeError(type: "server_error", code: "server_error", message: "\(error)"))))
            }
        }
        var fields: [String: JSONValue] = ["session": session]
        if let record = configuration.recordID { fields["record_id"] = .string(record) }
        return actions + [
            .emit(RealtimeEvents.event(isGA ? "session.created" : "transcription_session.created", fields))
        ]
    }

    /// A `final_window_ms` value: whole milliseconds from 0 to Whisper's one-window limit (null: 0).
    static func finalWindow(_ value: JSONValue, param: String) throws -> Int {
        if value.isNull { return 0 }
        let limit = RealtimeTranscriptionSession.maximumFinalWindowMs
        guard let number = value.number, number >= 0, number <= Double(limit), number == number.rounded() else {
            throw RealtimeError(
                code: "invalid_value",
                message: "final_window_ms must be whole milliseconds from 0 (each item decoded alone) to \(limit)",
                param: param)
        }
        return Int(number)
    }

    /// The session's `include`: what it adds to OpenAI's events (null when nothing).
    private var includeJSON: JSONValue { interim ? .array([.string(Self.interimInclude)]) : .null }

    /// The `include` value that asks for interim text.
    static let interimInclude = "item.input_audio_transcription.interim"
    /// `include` values OpenAI defines that are accepted and not provided: token log probabilities.
    static let ignoredIncludes: Set<String> = ["item.input_audio_transcription.logprobs"]

    /// The session object as OpenAI shows it.
    var session: JSONValue {
        let transcriptionJSON: JSONValue = [
            "model": .string(transcription.model ?? "asr-fast"),
            "language": transcription.language.map(JSONValue.string) ?? .null,
            "prompt": .string(transcription.prompt ?? ""),
            "translate_to": translateTo.map(JSONValue.string) ?? .null,
            "final_window_ms": .number(Double(finalWindowMs)),
        ]
        let turnJSON: JSONValue =
            turnSettings.map { settings in
                [
                    "type": "server_vad", "threshold": .number(settings.threshold),
                    "prefix_padding_ms": .number(Double(settings.prefixPaddingMs)),
                    "silence_duration_ms": .number(Double(settings.silenceDurationMs)),
                ]
            } ?? .null
        if isDialogue {
            return [
                "id": .string(sessionID), "object": "realtime.dialogue_session", "type": "dialogue",
                "channels": channels.map { JSONValue.array($0.map(\.json)) } ?? .null,
                "audio": [
                    "input": [
                        "format": inputFormat.json,
                        "transcription": transcriptionJSON, "turn_detection": turnJSON, "noise_reduction": nil,
                    ],
                    "output": ["format": outputFormat.json],
                ],
                "include": includeJSON,
            ]
        }
        if isGA {
            return [
                "id": .string(sessionID), "object": "realtime.transcription_session", "type": "transcription",
                "audio": [
                    "input": [
                        "format": inputFormat.json,
                        "transcription": transcriptionJSON, "turn_detection": turnJSON, "noise_reduction": nil,
                    ]
                ],
                "include": includeJSON,
            ]
        }
        return [
            "id": .string(sessionID), "object": "realtime.transcription_session",
            "input_audio_format": .string(inputFormat.betaName),
            "input_audio_sample_rate": .number(Double(inputRate)), "input_audio_transcription": transcriptionJSON,
            "turn_detection": turnJSON, "input_audio_noise_reduction": nil, "include": includeJSON,
        ]
    }

    // MARK: - Client events

    mutating func handle(_ message: RealtimeTranscriptionSession.Incoming, recognizer: any LiveRecognizer) async
        -> [Action]
    {
        guard case .text(let text) = message else {
            return [
                .emit(
                    RealtimeEvents.error(
                        RealtimeError(
                            code: "unsupported_message",
                            message: "binary messages are not part of the protocol; send JSON client events as text")))
            ]
        }
        guard let event = JSONValue(parsing: text), case .object = event else {
            return [
                .emit(
                    RealtimeEvents.error(
                        RealtimeError(code: "invalid_json", message: "the message is not a JSON object")))
            ]
        }
        let eventID = event["event_id"]?.string
        do {
            guard let type = event["type"]?.string else {
                throw RealtimeError(code: "invalid_value", message: "the event has no `type`", param: "type")
            }
            switch type {
            case "transcription_session.update", "session.update":
                return try await update(event, type: type, recognizer: recognizer)
            case "input_audio_buffer.append":
                return try append(event)
            case "input_audio_buffer.commit":
                return try commit(event)
            case "input_audio_buffer.clear":
                dropBuffer()
                return [.dropEarly, .emit(RealtimeEvents.event("input_audio_buffer.cleared", channel: activeChannel))]
            default:
                throw RealtimeError(
                    code: "unknown_event_type",
                    message: "unknown client event `\(type)`; a \(isDialogue ? "dialogue" : "transcription") "
                        + "session takes session.update, transcription_session.update, input_audio_buffer.append, "
                        + "input_audio_buffer.commit and input_audio_buffer.clear",
                    param: "type")
            }
        } catch var error as RealtimeError {
            error.eventID = eventID
            return [.emit(RealtimeEvents.error(error))]
        } catch {
            var wrapped = RealtimeError(type: "server_error", code: "server_error", message: "\(error)")
            wrapped.eventID = eventID
            return [.emit(RealtimeEvents.error(wrapped))]
        }
    }

    mutating func update(_ event: JSONValue, type: String, recognizer: any LiveRecognizer) async throws
        -> [Action]
    {
        guard let session = event["session"], case .object = session else {
            throw RealtimeError(code: "invalid_value", message: "`\(type)` needs a `session` object", param: "session")
        }
        try Self.checkTypes(session)
        // The GA shape nests the input settings under audio.input; the beta shape has them at the top.
        let input = session["audio"]?["input"]
        // Where an error in the transcription settings points, in the shape the client sent.
        let transcriptionParam =
            input == nil ? "session.input_audio_transcription" : "session.audio.input.transcription"
        var newInput = inputFormat
        var newTranscription = transcription
        var newTurns = turnSettings
        var newTranslateTo = translateTo
        var newFinalWindowMs = finalWindowMs
        if let format = input?["format"] {
            newInput = try LiveAudioFormat.named(
                format["type"]?.string ?? format.string ?? "", rate: try format["rate"]?.number.map(Self.rate),
                current: newInput, output: false, param: "session.audio.input.format")
        }
        if let format = session["input_audio_format"] {
            newInput = try LiveAudioFormat.named(
                format.string ?? format.text, rate: nil, current: newInput, output: false,
                param: "session.input_audio_format")
        }
        if let rate = session["input_audio_sample_rate"]?.number {
            newInput = try newInput.at(rate: try Self.rate(rate), param: "session.input_audio_sample_rate")
        }
        var newOutput = outputFormat
        if let output = session["audio"]?["output"]?["format"] {
            guard isDialogue else {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "a transcription session has no audio output; audio.output is for dialogue sessions "
                        + "(GET /v1/realtime?intent=dialogue)",
                    param: "session.audio.output")
            }
            newOutput = try LiveAudioFormat.named(
                output["type"]?.string ?? output.string ?? "", rate: try output["rate"]?.number.map(Self.rate),
                current: newOutput, output: true, param: "session.audio.output.format")
        }
        var newChannels = channels
        if let value = session["channels"] {
            guard isDialogue else {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "channels are for dialogue sessions: open GET /v1/realtime?intent=dialogue",
                    param: "session.channels")
            }
            newChannels = try await dialogueChannels(value, recognizer: recognizer)
        }
        if let settings = input?["transcription"] ?? session["input_audio_transcription"], case .object = settings {
            newTranscription.model = settings["model"]?.string ?? newTranscription.model
            if let language = settings["language"] {
                newTranscription.language = language.string.flatMap { $0.isEmpty ? nil : $0 }
            }
            if let prompt = settings["prompt"] {
                newTranscription.prompt = prompt.string.flatMap { $0.isEmpty ? nil : $0 }
            }
            if isDialogue, let target = settings["translate_to"]?.string, !target.isEmpty {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "a dialogue translates each side into the other's language; leave out translate_to and "
                        + "set session.channels",
                    param: "session.audio.input.transcription.translate_to")
            }
            if let target = settings["translate_to"] {
                newTranslateTo = target.string.flatMap { $0.isEmpty ? nil : $0.lowercased() }
            }
            if let window = settings["final_window_ms"] {
                newFinalWindowMs = try Self.finalWindow(window, param: transcriptionParam + ".final_window_ms")
            }
        }
        var newInterim = interim
        if let include = session["include"] {
            newInterim = try Self.interim(include)
        }
        if let turn = input?["turn_detection"] ?? session["turn_detection"] {
            if turn.isNull {
                newTurns = nil
            } else {
                guard turn["type"]?.string ?? "server_vad" == "server_vad" else {
                    throw RealtimeError(
                        code: "invalid_value",
                        message: "turn_detection type `\(turn["type"]?.string ?? "")` is not supported; use "
                            + "server_vad, or null to commit yourself",
                        param: "session.turn_detection.type")
                }
                var settings = newTurns ?? TurnDetector.Settings()
                if let threshold = turn["threshold"]?.number {
                    guard (0...1).contains(threshold) else {
                        throw RealtimeError(
                            code: "invalid_value", message: "threshold must be within 0…1",
                            param: "session.turn_detection.threshold")
                    }
                    settings.threshold = threshold
                }
                if let padding = turn["prefix_padding_ms"]?.number {
                    guard (0...5000).contains(padding), padding == padding.rounded() else {
                        throw RealtimeError(
                            code: "invalid_value", message: "prefix_padding_ms must be a whole number within 0…5000",
                            param: "session.turn_detection.prefix_padding_ms")
                    }
                    settings.prefixPaddingMs = Int(padding)
                }
                if let silence = turn["silence_duration_ms"]?.number {
                    guard (100...10000).contains(silence), silence == silence.rounded() else {
                        throw RealtimeError(
                            code: "invalid_value",
                            message: "silence_duration_ms must be a whole number within 100…10000",
                            param: "session.turn_detection.silence_duration_ms")
                    }
                    settings.silenceDurationMs = Int(silence)
                }
                newTurns = settings
            }
        }
        do {
            try await recognizer.validate(newTranscription)
        } catch {
            throw RealtimeError(
                code: "invalid_value", message: "\(error)", param: "session.input_audio_transcription.model")
        }
        if let target = newTranslateTo, target != translateTo {
            let param = transcriptionParam + ".translate_to"
            guard let translator else {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "this server does not translate live sessions; leave out translate_to",
                    param: param)
            }
            do {
                try await translator.validate(target: target, strict: true)
            } catch {
                throw RealtimeError(code: "invalid_value", message: "\(error)", param: param)
            }
        }
        if newInput != inputFormat {
            guard !audioReceived else {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "the input format cannot change once audio was sent (\(inputFormat.betaName) at "
                        + "\(inputRate) Hz); open a new session for \(newInput.betaName) at \(newInput.pcmRate) Hz",
                    param: "rate")
            }
            inputFormat = newInput
            inputDecoder = nil
            resampler = nil
        }
        transcription = newTranscription
        translateTo = newTranslateTo
        finalWindowMs = newFinalWindowMs
        interim = newInterim
        channels = newChannels
        outputFormat = newOutput
        if newTurns != turnSettings {
            turnSettings = newTurns
            turns = Self.turns(newTurns, detector: detector, splitting: configuration.turnSplitting)
            detectedUpTo = 0
        }
        let reply = type == "session.update" ? "session.updated" : "transcription_session.updated"
        return [.emit(RealtimeEvents.event(reply, ["session": self.session]))]
    }

    private mutating func append(_ event: JSONValue) throws -> [Action] {
        guard let audio = event["audio"]?.string else {
            throw RealtimeError(
                code: "invalid_value", message: "input_audio_buffer.append needs `audio`: base64 PCM16", param: "audio")
        }
        guard let data = Data(base64Encoded: audio) else {
            throw RealtimeError(
                code: "invalid_base64", message: "`audio` is not valid base64", param: "audio")
        }
        let side = try isDialogue ? channel(of: event, required: true) : nil
        if !isDialogue, event["channel"] != nil {
            throw RealtimeError(
                code: "invalid_value",
                message: "`channel` is for dialogue sessions (GET /v1/realtime?intent=dialogue); leave it out",
                param: "channel")
        }
        if inputDecoder == nil { inputDecoder = try LiveInputDecoder(format: inputFormat) }
        let bytes = try inputDecoder!.decode([UInt8](data))
        let limit = Int(configuration.maxBufferedAudio.components.seconds) * 16_000
        guard buffer.count + bytes.count / 2 * 16_000 / inputRate <= limit else {
            throw RealtimeError(
                code: "input_audio_buffer_full",
                message: "more than \(configuration.maxBufferedAudio) of audio is waiting; commit or clear the buffer",
                param: "audio")
        }
        if resampler == nil { resampler = try PCMResampler(inputRate: inputRate) }
        let samples = try resampler!.convert(bytes)
        if let recorder {
            do {
                try recorder.received(bytes, sampleRate: inputRate)
            } catch {
                throw RealtimeError(
                    type: "server_error", code: "server_error",
                    message: "the session's audio could not be kept (\(error)); the append was not taken")
            }
        }
        // The other side speaks now: the current side's turn ends before this audio joins the buffer.
        var actions: [Action] = []
        if let side {
            if let active = activeChannel, active != side { actions = switchSides() }
            activeChannel = side
        }
        audioReceived = true
        buffer += samples
        return try actions + detectTurns()
    }

    /// Looks for turn changes every `detectionInterval` of new audio; starts partial decodes while a turn goes on.
    private mutating func detectTurns() throws -> [Action] {
        guard var turns else { return [] }
        let step = configuration.detectionInterval.samples(atRate: 16_000)
        guard buffer.count - detectedUpTo >= max(160, step) else { return [] }
        detectedUpTo = buffer.count
        var actions: [Action] = []
        for change in try turns.update(buffer, start: bufferStart) {
            switch change {
            case .started(let at):
                let item = Identifier.make(prefix: "item")
                itemID = item
                partialUpTo = firstPartial(speechAt: at)
                actions.append(
                    .emit(
                        RealtimeEvents.event(
                            "input_audio_buffer.speech_started",
                            ["audio_start_ms": .number(Double((bufferStart + at) / 16)), "item_id": .string(item)],
                            channel: activeChannel)))
            case .stopped(let start, let end):
                actions += endTurn(start: start, end: end, committingTo: itemEnd(speechEnd: end))
            case .paused(let start, let end, let cut):
                // A long turn's piece up to the pause becomes an item; the speech after it is the next item's.
                actions += endTurn(start: start, end: end, committingTo: cut)
                turns.droppedFirst(cut)
                let next = Identifier.make(prefix: "item")
                itemID = next
                let resumed = turns.speechStart ?? 0
                partialUpTo = firstPartial(speechAt: resumed)
                actions.append(
                    .emit(
                        RealtimeEvents.event(
                            "input_audio_buffer.speech_started",
                            [
                                "audio_start_ms": .number(Double((bufferStart + resumed) / 16)),
                                "item_id": .string(next),
                            ],
                            channel: activeChannel)))
            }
        }
        // A turn gone quiet for `earlyFinal` is decoded now, as it will be committed if the silence lasts: the final
        // is then ready (or nearly) when the turn ends, instead of only starting.
        if earlyAskedFor != nil, turns.speechStart != nil, turns.quiet == nil {
            earlyAskedFor = nil
            actions.append(.dropEarly)
        }
        if let item = itemID, let start = turns.speechStart, let quiet = turns.quiet,
            let early = configuration.earlyFinal, quiet.length >= early.samples(atRate: 16_000),
            earlyAskedFor?.item != item || earlyAskedFor?.end != bufferStart + quiet.end
        {
            earlyAskedFor = (item, bufferStart + quiet.end)
            // Exactly the samples a commit at this silence will have (``endTurn``), so it can take the result.
            let ahead = utterance(item: item, from: itemStart(speechAt: start), to: itemEnd(speechEnd: quiet.end))
            actions.append(.early(ahead))
        }
        // A turn that goes on too long is committed without a pause (Whisper reads 30 s at a time).
        if let start = turns.speechStart, let item = itemID {
            let maxTurn = configuration.maxTurn.samples(atRate: 16_000)
            if buffer.count - start >= maxTurn {
                let from = itemStart(speechAt: start)
                turns.reset()
                actions += commitTurn(item: item, from: from, to: buffer.count)
            } else if configuration.partialInterval > .zero {
                if buffer.count - partialUpTo >= configuration.partialInterval.samples(atRate: 16_000) {
                    partialUpTo = buffer.count
                    let from = itemStart(speechAt: start)
                    actions.append(
                        .partial(
                            .init(
                                itemID: item, samples: Array(buffer[from...]), settings: spokenSettings,
                                channel: activeChannel, interim: interim)))
                }
            }
        } else if turns.speechStart == nil, buffer.count > 30 * 16_000 {
            // Long silence: keep only what a turn's prefix padding could need.
            let keep = 2 * 16_000
            bufferStart += buffer.count - keep
            buffer.removeFirst(buffer.count - keep)
            detectedUpTo = buffer.count
        }
        self.turns = turns
        return actions
    }

    /// `partialUpTo` for a turn whose speech starts at `at`: its first partial is asked for half an interval in, the
    /// next ones an interval apart, so two decodes agree on its first words (``StablePrefix``) half an interval
    /// sooner, for the same number of decodes.
    func firstPartial(speechAt at: Int) -> Int {
        at - configuration.partialInterval.samples(atRate: 16_000) / 2
    }

    /// The partial decode just asked for could not start (the engine was busy with this session's final or previous
    /// partial): ask again at the next detection step rather than a whole `partialInterval` later, so the words of a
    /// turn that begins while its predecessor's final decodes are not held back twice.
    mutating func partialNotStarted() {
        partialUpTo = buffer.count - configuration.partialInterval.samples(atRate: 16_000)
    }

    /// A turn that began at `start` and whose speech ended at `end` (buffer positions): `speech_stopped`, then the
    /// turn from `prefix_padding_ms` before its start up to `keepFrom` is committed.
    mutating func endTurn(start: Int, end: Int, committingTo keepFrom: Int) -> [Action] {
        let item = itemID ?? Identifier.make(prefix: "item")
        let stopped = RealtimeEvents.event(
            "input_audio_buffer.speech_stopped",
            ["audio_end_ms": .number(Double((bufferStart + end) / 16)), "item_id": .string(item)],
            channel: activeChannel)
        let from = itemStart(speechAt: start)
        return [.emit(stopped)] + commitTurn(item: item, from: from, to: keepFrom)
    }

    /// `input_audio_buffer.commit`: the whole buffer becomes an item.
    /// Forgets the uncommitted audio (cleared, or the rest of a dialogue side's turn), keeping the session's clock.
    mutating func dropBuffer() {
        bufferStart += buffer.count
        buffer = []
        turns?.reset()
        itemID = nil
        detectedUpTo = 0
        partialUpTo = 0
    }

    private mutating func commit(_ event: JSONValue) throws -> [Action] {
        if isDialogue, let channel = try channel(of: event, required: false), let active = activeChannel,
            channel != active, !buffer.isEmpty
        {
            throw RealtimeError(
                code: "invalid_value",
                message: "the buffer holds channel \(active)'s audio, not channel \(channel)'s; commit it with "
                    + "channel \(active) (or none), or clear it",
                param: "channel")
        } else if !isDialogue, event["channel"] != nil {
            throw RealtimeError(
                code: "invalid_value",
                message: "`channel` is for dialogue sessions (GET /v1/realtime?intent=dialogue); leave it out",
                param: "channel")
        }
        guard buffer.count >= 1_600 else {
            throw RealtimeError(
                code: "input_audio_buffer_commit_empty",
                message: "buffer too small: expected at least 100ms of audio, but buffer only has "
                    + "\(buffer.count / 16)ms of audio")
        }
        let item = itemID ?? Identifier.make(prefix: "item")
        turns?.reset()
        return commitTurn(item: item, from: 0, to: buffer.count)
    }

    /// A sample rate in whole Hz.
    private static func rate(_ value: Double) throws -> Int {
        guard value == value.rounded(), abs(value) < 1e9 else {
            throw RealtimeError(
                code: "unsupported_audio_format", message: "a sample rate is a whole number of Hz: 24000 or 16000",
                param: "rate")
        }
        return Int(value)
    }

    /// Whether `include` (an array of strings, or null) asks for interim text; throws for a value it does not know.
    static func interim(_ include: JSONValue) throws -> Bool {
        if include.isNull { return false }
        let notStrings = RealtimeError(
            code: "invalid_value", message: "`include` must be an array of strings, or null", param: "session.include")
        guard case .array(let values) = include else { throw notStrings }
        var interim = false
        for value in values {
            guard let name = value.string else { throw notStrings }
            if name == interimInclude {
                interim = true
            } else if !ignoredIncludes.contains(name) {
                throw RealtimeError(
                    code: "invalid_value",
                    message: "`include` value \"\(name.prefix(64))\" is unknown; this server takes \(interimInclude) "
                        + "(and accepts \(ignoredIncludes.sorted().joined(separator: ", ")) without providing it)",
                    param: "session.include")
            }
        }
        return interim
    }

    /// Refuses a field the session reads when it has the wrong JSON type (rather than ignoring it).
    static func checkTypes(_ session: JSONValue) throws {
        let input = session["audio"]?["input"]
        try check(session["audio"], "audio", ["object"])
        try check(input, "audio.input", ["object"])
        try check(input?["format"], "audio.input.format", ["object", "string"])
        try check(input?["format"]?["rate"], "audio.input.format.rate", ["number"])
        try check(session["input_audio_sample_rate"], "input_audio_sample_rate", ["number"])
        for (name, settings) in [
            ("audio.input.transcription", input?["transcription"]),
            ("input_audio_transcription", session["input_audio_transcription"]),
        ] {
            try check(settings, name, ["object", "null"])
            for key in ["model", "language", "prompt", "translate_to"] {
                try check(settings?[key], "\(name).\(key)", ["string", "null"])
            }
            try check(settings?["final_window_ms"], "\(name).final_window_ms", ["number", "null"])
        }
        for (name, turn) in [
            ("audio.input.turn_detection", input?["turn_detection"]), ("turn_detection", session["turn_detection"]),
        ] {
            try check(turn, name, ["object", "null"])
            try check(turn?["type"], "\(name).type", ["string"])
            for key in ["threshold", "prefix_padding_ms", "silence_duration_ms"] {
                try check(turn?[key], "\(name).\(key)", ["number"])
            }
        }
    }

    private static func check(_ value: JSONValue?, _ name: String, _ allowed: [String]) throws {
        guard let value else { return }
        let kind =
            switch value {
            case .null: "null"
            case .bool: "boolean"
            case .number: "number"
            case .string: "string"
            case .array: "array"
            case .object: "object"
            }
        guard allowed.contains(kind) else {
            throw RealtimeError(
                code: "invalid_value", message: "`\(name)` must be \(allowed.joined(separator: " or ")), not \(kind)",
                param: "session.\(name)")
        }
    }

    /// Where the item of a turn whose speech starts at `start` begins: `prefix_padding_ms` before it (buffer
    /// positions).
    func itemStart(speechAt start: Int) -> Int {
        max(0, start - (turnSettings?.prefixPaddingMs ?? 300) * 16)
    }

    /// Where the item of a turn whose speech ended at `end` ends when the turn stops there: 100 ms of the silence
    /// after it (buffer positions).
    func itemEnd(speechEnd end: Int) -> Int {
        min(buffer.count, end + 1_600)
    }

    /// `buffer[from..<to]` as `item`'s utterance, with the session's settings (and a dialogue's listener).
    func utterance(item: String, from: Int, to: Int) -> RealtimeTranscriptionSession.Utterance {
        var utterance = RealtimeTranscriptionSession.Utterance(
            itemID: item, samples: Array(buffer[from..<to]), settings: spokenSettings,
            start: bufferStart + from, translateTo: translateTo, channel: activeChannel,
            outputFormat: outputFormat, interim: interim, finalWindow: finalWindowMs * 16)
        if isDialogue, let channel = activeChannel, let channels {
            let listener = channels[1 - channel]
            utterance.translateTo = listener.language
            utterance.voice = listener.speak ? listener.voice : nil
        }
        return utterance
    }

    /// Commits `buffer[from..<to]` as `item` and drops the buffer up to `to`.
    mutating func commitTurn(item: String, from: Int, to keepFrom: Int) -> [Action] {
        let utterance = utterance(item: item, from: from, to: keepFrom)
        let committed = RealtimeEvents.event(
            "input_audio_buffer.committed",
            ["previous_item_id": previousItemID.map(JSONValue.string) ?? .null, "item_id": .string(item)],
            channel: activeChannel)
        previousItemID = item
        itemID = nil
        earlyAskedFor = nil
        bufferStart += keepFrom
        buffer.removeFirst(keepFrom)
        detectedUpTo = 0
        partialUpTo = 0
        return [.emit(committed), .commit(utterance)]
    }
}
