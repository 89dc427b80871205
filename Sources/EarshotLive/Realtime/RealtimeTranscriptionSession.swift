import EarshotAudio
import EarshotCore
public import EarshotSpeech
import Foundation
import Synchronization

/// One transcription session of the OpenAI Realtime API (`GET /v1/realtime?intent=transcription`), independent of
/// the transport: client events in, server events out (JSON text).
///
/// Client events: `transcription_session.update` (beta shape) or `session.update` (GA shape, `type:
/// "transcription"`), `input_audio_buffer.append` (base64 audio in the session's ``LiveAudioFormat``: PCM16 mono at
/// 24 kHz as OpenAI sends or 16 kHz, G.711 μ-law or A-law, or an Ogg Opus stream), `input_audio_buffer.commit`, `input_audio_buffer.clear`. Server events:
/// `transcription_session.created`/`updated` (or `session.created`/`updated`), `input_audio_buffer.speech_started`,
/// `speech_stopped`, `committed`, `cleared`, `conversation.item.input_audio_transcription.delta`, `completed`,
/// `failed`, and `error`.
///
/// With `server_vad` turn detection (the default) Silero VAD cuts turns, and a long turn is also cut at a short pause
/// inside it (``Configuration/turnSplitting``: each piece is an item of its own); with `turn_detection: null` the
/// client commits. Each committed utterance is decoded once more in full, in commit order; while a turn is still being
/// spoken the growing audio is re-decoded every ``Configuration/partialInterval`` and the words two successive
/// decodes agree on are sent as deltas at once (``StablePrefix``, LocalAgreement-2), never taken back; the final
/// decode (with `final_window_ms`, of the item after the same side's previous items: ``Said``) then adds the rest
/// and `completed` carries the whole text. A commit cancels the session's partial decode
/// still running, so the final does not wait behind a preview. Bad input gets an `error` event and the session goes
/// on.
///
/// With `translate_to` in the transcription settings (and a ``LiveTranslator``), each completed item is translated
/// after its `completed` event, one at a time in item order beside the decodes (so translations never hold up the
/// transcripts of later items): `conversation.item.input_audio_translation.completed` with the item's `item_id`, or
/// `….failed` saying why there is no trustworthy translation.
///
/// A **dialogue** (``Configuration/dialogue``, `GET /v1/realtime?intent=dialogue`) is the same session with two
/// sides (``DialogueChannel``): each append names its `channel`, one side speaks at a time (an append on the other
/// side ends the current side's turn), each item is transcribed in its side's language and translated into the other
/// side's, and — when that side listens (`speak`) — the translation is spoken through a ``LiveSpeaker`` and sent as
/// `response.output_audio.delta` events for the listener's channel, then `response.output_audio.done`. Every item
/// event carries its `channel`.
public struct RealtimeTranscriptionSession: Sendable {
    /// Limits and pacing.
    public struct Configuration: Sendable {
        /// Event names and session shape: the beta transcription session (`transcription_session.*`) or the GA one
        /// (`session.*` with `type: "transcription"`).
        public enum Dialect: Sendable { case beta, ga }

        public var dialect: Dialect = .beta
        /// A face-to-face dialogue (two channels, translations spoken to the other side) rather than transcription.
        public var dialogue = false
        /// Audio not yet committed, at most; an append beyond it is refused (`input_audio_buffer_full`).
        public var maxBufferedAudio: Duration = .seconds(600)
        /// A turn longer than this is committed by the server even without a pause (server VAD).
        public var maxTurn: Duration = .seconds(30)
        /// Server VAD: where a long turn is cut at a short pause, each piece its own item (nil: only when the speaker
        /// stops, or at ``maxTurn``).
        public var turnSplitting: TurnDetector.Splitting? = TurnDetector.Splitting()
        /// How often the growing turn is re-decoded for partial text (0 disables partials).
        public var partialInterval: Duration = .seconds(1)
        /// How often the VAD looks at the buffer.
        public var detectionInterval: Duration = .milliseconds(100)
        /// Server VAD: silence after which a turn is decoded ahead of its end, as its commit will be, when the
        /// engine is idle (``LiveDecode/early``; nil: only once committed). The final is then ready, or nearly,
        /// when the silence reaches `silence_duration_ms`; if speech resumes the early decode is dropped.
        public var earlyFinal: Duration? = .milliseconds(200)
        /// A session's `final_window_ms` before the client sets it: how much audio a final decode hears, the item
        /// after the same side's previous items (``Said``; zero: each item alone). The 25 s default (the most a final may
        /// hear) brought `make bench-live`'s streamed WER from 0.123 to 0.093 (offline 0.077) for about
        /// 0.4 s more from an utterance's end to its final (docs/live.md, "Audio context").
        public var finalWindow: Duration = .seconds(25)
        /// Settings before the client's first update.
        public var transcription = TranscriptionSettings()
        public var turnDetection: TurnDetector.Settings? = TurnDetector.Settings()
        /// The input's sample rate before the client's first update (OpenAI's `pcm16` is 24 kHz).
        public var inputRate = 24_000
        /// The record the session will become, told to the client as `record_id` in the `created` event; nil when
        /// the session is not kept.
        public var recordID: String?
        /// Settings to apply before the `created` event, as the `session` of an update event (beta or GA shape):
        /// those a client secret was minted with (checked then with ``settings(of:dialect:recognizer:)``).
        public var initialSession: JSONValue?

        public init() {}
    }

    /// A message from the client.
    public enum Incoming: Sendable {
        case text(String)
        /// A binary message (the protocol has none).
        case binary(Int)
    }

    public let configuration: Configuration
    let recognizer: any LiveRecognizer
    let detector: VoiceActivityStream
    let recorder: (any LiveSessionRecorder)?
    let translator: (any LiveTranslator)?
    let speaker: (any LiveSpeaker)?

    /// A session decoding with `recognizer`; `recorder`, when given, receives the audio as it is accepted and each
    /// item's final text (the server keeps the session as a record with it); `translator`, when given, serves
    /// `translate_to` and a dialogue's translations (without it the option is refused with `invalid_value`);
    /// `speaker`, when given, speaks a dialogue's translations (without it a channel must not ask to `speak`).
    public init(
        recognizer: any LiveRecognizer, detector: VoiceActivityStream, configuration: Configuration,
        recorder: (any LiveSessionRecorder)? = nil, translator: (any LiveTranslator)? = nil,
        speaker: (any LiveSpeaker)? = nil
    ) {
        self.recognizer = recognizer
        self.translator = translator
        self.speaker = speaker
        self.detector = detector
        self.configuration = configuration
        self.recorder = recorder
    }

    /// Runs the session until `messages` ends (the client closed) or `send` fails, then waits for the decodes in
    /// progress (a client that goes away mid-utterance only loses its own events). Events are sent in order.
    public func run<Messages: AsyncSequence>(
        _ messages: Messages, send: @escaping @Sendable (String) async throws -> Void
    ) async where Messages.Element == Incoming {
        let (outbox, out) = AsyncStream<JSONValue>.makeStream()
        let (finals, finalQueue) = AsyncStream<Utterance>.makeStream()
        let (translations, translationQueue) = AsyncStream<(Utterance, Recognition)>.makeStream()
        let texts = Transcripts(out: out, recorder: recorder)
        let finalsDue = Counter()
        let said = Said()
        let early = EarlyFinal()
        let recognizer = self.recognizer
        let translator = self.translator
        let speaker = self.speaker
        let recorder = self.recorder
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The one writer: events leave in the order they were emitted.
                for await event in outbox {
                    do { try await send(event.text) } catch { break }
                }
            }
            group.addTask {
                for await utterance in finals {
                    defer { finalsDue.end() }
                    do {
                        // Decoded early, when the turn went quiet and ended there; else now.
                        let recognition: Recognition
                        if let ahead = await early.take(EarlyFinal.Key(utterance)) {
                            recognition = ahead
                        } else {
                            recognition =
                                try await Self.finalRecognition(
                                    of: utterance, said: said, recognizer: recognizer, as: .final)
                                ?? Recognition(text: "")
                        }
                        said.record(recognition, of: utterance)
                        await texts.complete(utterance, recognition)
                        if utterance.translateTo != nil { translationQueue.yield((utterance, recognition)) }
                    } catch {
                        await texts.fail(utterance, message: "\(error)")
                    }
                }
                translationQueue.finish()
            }
            group.addTask {
                // Interpretation: one translation at a time, in item order, beside the decodes of later items. The
                // last producer of events: it ends the writer once the last item's translation went out.
                for await (utterance, recognition) in translations {
                    guard let target = utterance.translateTo else { continue }
                    let translation = await Self.translate(
                        utterance, recognition, to: target, with: translator, recorder: recorder, out: out)
                    if let translation, !translation.isEmpty, let voice = utterance.voice, let speaker {
                        await Self.speak(
                            translation, of: utterance, language: target, voice: voice, with: speaker, out: out)
                    }
                }
                out.finish()
            }
            let partials = PartialDecode()
            var state = SessionState(
                configuration: configuration, detector: detector, recorder: recorder, translator: translator,
                speaker: speaker)
            var pending = await state.start(recognizer: recognizer)
            var iterator = messages.makeAsyncIterator()
            while true {
                for action in pending {
                    switch action {
                    case .emit(let event):
                        out.yield(event)
                    case .commit(let utterance):
                        // Finals first: a preview still decoding stops, so the final need not wait for the engine.
                        partials.cancel()
                        finalsDue.begin()
                        finalQueue.yield(utterance)
                    case .partial(let utterance):
                        // No preview while a committed item of this session waits for its text, or while its early
                        // decode has the engine; the state asks again at its next look.
                        guard finalsDue.isZero, !early.isRunning,
                            let decode = partials.start({
                                // nil: the engine was busy (another session's decode); asked again at the next look.
                                // With the prompt its final will have (what was said before): without it, the
                                // first word of a turn flipped between decodes ("that he married", "had he married")
                                // and LocalAgreement showed nothing of the turn until its final.
                                guard
                                    let recognition = try? await recognizer.transcribe(
                                        utterance.samples, settings: said.conditioning(utterance), as: .partial)
                                else { return false }
                                if !Task.isCancelled { await texts.partial(utterance, text: recognition.text) }
                                return true
                            })
                        else {
                            state.partialNotStarted()
                            break
                        }
                        group.addTask { await Self.follow(decode) }
                    case .dropEarly:
                        // Speech resumed after a short pause: the early decode is of the turn up to that pause, so
                        // its text is the turn's next partial rather than work thrown away (it had replaced one).
                        if let decode = early.demote({ utterance, recognition in
                            await texts.partial(utterance, text: recognition.text)
                        }) {
                            group.addTask { await Self.follow(decode) }
                        }
                    case .early(let utterance):
                        // Work ahead, while none of this session's items waits for its final (so the text it is
                        // conditioned on is complete); it replaces a preview still decoding.
                        guard finalsDue.isZero else { break }
                        partials.cancel()
                        let decode = early.start(utterance) {
                            try? await Self.finalRecognition(
                                of: utterance, said: said, recognizer: recognizer, as: .early)
                        }
                        group.addTask { await Self.follow(decode) }
                    }
                }
                guard let message = try? await iterator.next() else { break }
                if partials.missed() { state.partialNotStarted() }
                pending = await state.handle(message, recognizer: recognizer)
            }
            finalQueue.finish()
            early.cancel()
            // The decodes of committed turns finish and their events go out; the translation task then stops the
            // writer.
        }
    }

    /// Translates one completed item and emits its translation event (or `failed`, saying why); returns the
    /// translation (nil when there is none), which the recorder keeps.
    static func translate(
        _ utterance: Utterance, _ recognition: Recognition, to target: String, with translator: (any LiveTranslator)?,
        recorder: (any LiveSessionRecorder)?, out: AsyncStream<JSONValue>.Continuation
    ) async -> String? {
        let item = utterance.itemID
        let channel = utterance.channel
        guard let translator else { return nil }
        let text = recognition.text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            out.yield(RealtimeEvents.translated(item: item, language: target, translation: "", channel: channel))
            return ""
        }
        do {
            let translation = try await translator.translate(
                utterance.samples, recognition: recognition, settings: utterance.settings, to: target
            ).trimmingCharacters(in: .whitespaces)
            out.yield(
                RealtimeEvents.translated(item: item, language: target, translation: translation, channel: channel))
            recorder?.translated(item, language: target, text: translation)
            return translation
        } catch let error as RealtimeError {
            out.yield(
                RealtimeEvents.translationFailed(
                    item: item, language: target, code: error.code, message: error.message, channel: channel))
        } catch {
            out.yield(
                RealtimeEvents.translationFailed(
                    item: item, language: target, code: "translation_failed", message: "\(error)", channel: channel))
        }
        return nil
    }

    /// A dialogue: speaks an item's translation to the listening side — audio deltas of about half a second each for
    /// the listener's channel, then `done` (or `failed`; the session goes on).
    static func speak(
        _ text: String, of utterance: Utterance, language: String, voice: String, with speaker: any LiveSpeaker,
        out: AsyncStream<JSONValue>.Continuation
    ) async {
        let listener = 1 - (utterance.channel ?? 0)
        let response = Identifier.make(prefix: "resp")
        let rate = utterance.outputFormat.pcmRate
        do {
            let audio = try await speaker.speak(text, language: language, voice: voice, sampleRate: rate)
            for chunk in try LiveOutputEncoder.chunks(audio, format: utterance.outputFormat) {
                out.yield(
                    RealtimeEvents.audioDelta(
                        response: response, item: utterance.itemID, channel: listener, audio: chunk))
            }
            out.yield(
                RealtimeEvents.audioDone(
                    response: response, item: utterance.itemID, channel: listener, language: language,
                    transcript: text, audioMs: audio.count / 2 * 1000 / rate))
        } catch {
            out.yield(
                RealtimeEvents.audioFailed(
                    response: response, item: utterance.itemID, channel: listener, language: language,
                    message: "\(error)"))
        }
    }

    /// Checks the `session` of an update (beta or GA shape) as a session would take it, and returns the session
    /// object it yields in `dialect`'s shape (for minting a client secret with these settings).
    /// - Throws: the ``RealtimeError`` the session would answer (`invalid_value`, `unsupported_audio_format`).
    public static func settings(
        of session: JSONValue, dialect: Configuration.Dialect, recognizer: any LiveRecognizer,
        translator: (any LiveTranslator)? = nil
    ) async throws -> JSONValue {
        var configuration = Configuration()
        configuration.dialect = dialect
        var state = SessionState(configuration: configuration, detector: nil, translator: translator)
        _ = try await state.update(
            ["type": "session.update", "session": session], type: "session.update", recognizer: recognizer)
        return state.session
    }

    /// The text of an `error` event (for a server that refuses a session before running it).
    public static func errorEvent(_ error: RealtimeError) -> String {
        RealtimeEvents.error(error).text
    }

    /// The prompt of a final decode: the session's own (names, spelling), then the last words said before the item
    /// (at most ``contextWords``, so the session's prompt always fits Whisper's 224-token prompt window).
    static func prompt(_ prompt: String?, after previous: String?) -> String? {
        let context = (previous ?? "").split(whereSeparator: \.isWhitespace).suffix(contextWords).joined(separator: " ")
        let parts = [prompt ?? "", context].filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// How many words of what was said before condition a final decode.
    static let contextWords = 40

    /// The session's partial decode: one at a time, and cancelled when a turn is committed (its final then has the
    /// engine at once rather than after a preview of the same words).
    final class PartialDecode: Sendable {
        private let running = Mutex<Task<Void, Never>?>(nil)
        private let missedOne = Mutex(false)

        /// Starts `body` unless a partial decode is running; returns its task, or nil. `body` returns false when the
        /// engine was busy and nothing was decoded.
        func start(_ body: @escaping @Sendable () async -> Bool) -> Task<Void, Never>? {
            running.withLock { running in
                guard running == nil else { return nil }
                let task = Task {
                    let ran = await body()
                    self.running.withLock { $0 = nil }
                    if !ran { self.missedOne.withLock { $0 = true } }
                }
                running = task
                return task
            }
        }

        func cancel() { running.withLock { $0?.cancel() } }

        /// Whether a partial decode found the engine busy since the last call (the session then asks again).
        func missed() -> Bool {
            missedOne.withLock { missed in
                let was = missed
                missed = false
                return was
            }
        }
    }

    /// Waits for a decode started outside the session's task group, and cancels it when the group is cancelled.
    static func follow<Result: Sendable>(_ decode: Task<Result, Never>) async {
        await withTaskCancellationHandler {
            _ = await decode.value
        } onCancel: {
            decode.cancel()
        }
    }

    /// The session's early final (``LiveDecode/early``): at most one at a time. The commit of the same audio takes its
    /// result; a newer one, or a commit of other audio, cancels it.
    final class EarlyFinal: Sendable {
        /// The audio a decode is of: the item and where its samples lie on the session's clock.
        struct Key: Hashable, Sendable {
            let item: String
            let start: Int
            let count: Int

            init(_ utterance: Utterance) {
                (item, start, count) = (utterance.itemID, utterance.start, utterance.samples.count)
            }
        }

        private let running = Mutex<(utterance: Utterance, task: Task<Recognition?, Never>)?>(nil)

        /// Starts the decode of `utterance`, cancelling the one before; returns its task.
        func start(_ utterance: Utterance, _ body: @escaping @Sendable () async -> Recognition?) -> Task<
            Recognition?, Never
        > {
            let task = Task { await body() }
            running.withLock { running in
                running?.task.cancel()
                running = (utterance, task)
            }
            return task
        }

        /// Whether an early decode is running (or done and not taken).
        var isRunning: Bool { running.withLock { $0 != nil } }

        /// The turn went on: no commit will take the early decode, which is left to finish and handed to `use` (as
        /// a partial of its item); returns the task doing that, or nil when there is no early decode.
        func demote(_ use: @escaping @Sendable (Utterance, Recognition) async -> Void) -> Task<Void, Never>? {
            let taken = running.withLock { running in
                let current = running
                running = nil
                return current
            }
            guard let (utterance, task) = taken else { return nil }
            return Task {
                let recognition = await withTaskCancellationHandler {
                    await task.value
                } onCancel: {
                    task.cancel()
                }
                if let recognition, !Task.isCancelled { await use(utterance, recognition) }
            }
        }

        /// The early result for `key` (waiting for it when still decoding), or nil when there is none or it failed
        /// or was cancelled; any other early decode is cancelled.
        func take(_ key: Key) async -> Recognition? {
            let task = running.withLock { running -> Task<Recognition?, Never>? in
                defer { running = nil }
                guard let current = running else { return nil }
                guard Key(current.utterance) == key else {
                    current.task.cancel()
                    return nil
                }
                return current.task
            }
            return await task?.value
        }

        func cancel() {
            running.withLock { running in
                running?.task.cancel()
                running = nil
            }
        }
    }

    /// Committed items whose final decode has not finished.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func begin() { count.withLock { $0 += 1 } }
        func end() { count.withLock { $0 -= 1 } }
        var isZero: Bool { count.withLock { $0 == 0 } }
    }

    /// A committed (or growing) turn to decode.
    struct Utterance: Sendable {
        let itemID: String
        let samples: [Float]
        let settings: TranscriptionSettings
        /// Where `samples` start on the session's audio clock (16 kHz samples since its first audio).
        var start = 0
        /// The language to translate the item into once completed (`translate_to`, or a dialogue's other side), or
        /// nil.
        var translateTo: String?
        /// A dialogue: the side that spoke it.
        var channel: Int?
        /// A dialogue: the voice that speaks the translation to the other side, or nil when that side does not
        /// listen (`speak: false`).
        var voice: String?
        /// The format spoken audio is sent in.
        var outputFormat = LiveAudioFormat.pcm16(rate: 24_000)
        /// Whether the client asked for interim text (``RealtimeEvents/interim(item:text:channel:)``).
        var interim = false
        /// How long its final decode's window is, in 16 kHz samples (`final_window_ms`): the item after the same
        /// side's previous items (``Said``); 0 decodes it alone.
        var finalWindow = 0
    }
}

/// The text of each item: partial deltas, then the final delta and `completed` (or `failed`), emitted in order.
actor Transcripts {
    private let out: AsyncStream<JSONValue>.Continuation
    private let recorder: (any LiveSessionRecorder)?
    private var prefixes: [String: StablePrefix] = [:]
    private var done: Set<String> = []
    /// The interim text last sent for each item still being spoken.
    private var interims: [String: String] = [:]

    init(out: AsyncStream<JSONValue>.Continuation, recorder: (any LiveSessionRecorder)?) {
        self.out = out
        self.recorder = recorder
    }

    func partial(_ utterance: RealtimeTranscriptionSession.Utterance, text: String) {
        let item = utterance.itemID
        guard !done.contains(item) else { return }
        var prefix = prefixes[item] ?? StablePrefix()
        let delta = prefix.agree(with: text)
        prefixes[item] = prefix
        if !delta.isEmpty { out.yield(RealtimeEvents.delta(item: item, delta: delta, channel: utterance.channel)) }
        // After the delta: the words shown greyed after the stable ones, sent again only when they change.
        let interim = prefix.pending.joined(separator: " ")
        if utterance.interim, interim != interims[item] ?? "" {
            interims[item] = interim
            out.yield(RealtimeEvents.interim(item: item, text: interim, channel: utterance.channel))
        }
    }

    func complete(_ utterance: RealtimeTranscriptionSession.Utterance, _ recognition: Recognition) {
        let item = utterance.itemID
        var prefix = prefixes[item] ?? StablePrefix()
        let delta = prefix.finish(with: recognition.text)
        prefixes[item] = nil
        if !delta.isEmpty { out.yield(RealtimeEvents.delta(item: item, delta: delta, channel: utterance.channel)) }
        let transcript = recognition.text.trimmingCharacters(in: .whitespaces)
        // Word times on the session's clock: the item's start plus the decode's own times.
        let offset = utterance.start / 16
        let words = recognition.words.map { word in
            Transcript.Word(
                startMs: offset + word.startMs, endMs: offset + word.endMs,
                text: word.text.trimmingCharacters(in: .whitespaces), probability: word.probability)
        }
        out.yield(
            RealtimeEvents.completed(item: item, transcript: transcript, words: words, channel: utterance.channel))
        recorder?.finished(
            LiveItem(
                id: item, startMs: utterance.start / 16, endMs: (utterance.start + utterance.samples.count) / 16,
                text: transcript, language: recognition.language, model: utterance.settings.model,
                channel: utterance.channel, words: words))
        finished(item)
    }

    func fail(_ utterance: RealtimeTranscriptionSession.Utterance, message: String) {
        let item = utterance.itemID
        prefixes[item] = nil
        out.yield(RealtimeEvents.failed(item: item, message: message, channel: utterance.channel))
        recorder?.finished(
            LiveItem(
                id: item, startMs: utterance.start / 16, endMs: (utterance.start + utterance.samples.count) / 16,
                text: nil, failure: message, model: utterance.settings.model, channel: utterance.channel))
        finished(item)
    }

    private func finished(_ item: String) {
        done.insert(item)
        interims[item] = nil
    }
}
