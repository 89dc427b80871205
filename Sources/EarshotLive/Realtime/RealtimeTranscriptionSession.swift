import EarshotAudio
import EarshotCore
public import EarshotSpeech
import Foundation
import Synchronization

/// One transcription session of the OpenAI Realtime API (`GET /v1/realtime?intent=transcription`), independent of
/// the transport: client events in, server events out (JSON text).
///
/// Client events: `transcription_session.update` (beta shape) or `session.update` (GA shape, `type:
/// "transcription"`), `input_audio_buffer.append` (base64 PCM16 mono, 24 kHz as OpenAI sends, or 16 kHz when the
/// session says so), `input_audio_buffer.commit`, `input_audio_buffer.clear`. Server events:
/// `transcription_session.created`/`updated` (or `session.created`/`updated`), `input_audio_buffer.speech_started`,
/// `speech_stopped`, `committed`, `cleared`, `conversation.item.input_audio_transcription.delta`, `completed`,
/// `failed`, and `error`.
///
/// With `server_vad` turn detection (the default) Silero VAD cuts turns; with `turn_detection: null` the client
/// commits. Each committed utterance is decoded once more in full, in commit order; while a turn is still being
/// spoken the growing audio is re-decoded every ``Configuration/partialInterval`` and the words two successive
/// decodes agree on are sent as deltas at once (``StablePrefix``, LocalAgreement-2), never taken back; the final
/// decode then adds the rest and `completed` carries the whole text. Bad input gets an `error` event and the session
/// goes on.
public struct RealtimeTranscriptionSession: Sendable {
    /// Limits and pacing.
    public struct Configuration: Sendable {
        /// Event names and session shape: the beta transcription session (`transcription_session.*`) or the GA one
        /// (`session.*` with `type: "transcription"`).
        public enum Dialect: Sendable { case beta, ga }

        public var dialect: Dialect = .beta
        /// Audio not yet committed, at most; an append beyond it is refused (`input_audio_buffer_full`).
        public var maxBufferedAudio: Duration = .seconds(600)
        /// A turn longer than this is committed by the server even without a pause (server VAD).
        public var maxTurn: Duration = .seconds(30)
        /// How often the growing turn is re-decoded for partial text (0 disables partials).
        public var partialInterval: Duration = .seconds(1)
        /// How often the VAD looks at the buffer.
        public var detectionInterval: Duration = .milliseconds(100)
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
    let detector: VoiceActivityDetector
    let recorder: (any LiveSessionRecorder)?

    /// A session decoding with `recognizer`; `recorder`, when given, receives the audio as it is accepted and each
    /// item's final text (the server keeps the session as a record with it).
    public init(
        recognizer: any LiveRecognizer, detector: VoiceActivityDetector, configuration: Configuration,
        recorder: (any LiveSessionRecorder)? = nil
    ) {
        self.recognizer = recognizer
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
        let texts = Transcripts(out: out, recorder: recorder)
        let recognizer = self.recognizer
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The one writer: events leave in the order they were emitted.
                for await event in outbox {
                    do { try await send(event.text) } catch { break }
                }
            }
            group.addTask {
                for await utterance in finals {
                    do {
                        let recognition = try await recognizer.transcribe(
                            utterance.samples, settings: utterance.settings, partial: false)
                        await texts.complete(utterance, recognition ?? Recognition(text: ""))
                    } catch {
                        await texts.fail(utterance, message: "\(error)")
                    }
                }
            }
            let partialRunning = Flag()
            var state = SessionState(configuration: configuration, detector: detector, recorder: recorder)
            var pending = await state.start(recognizer: recognizer)
            var iterator = messages.makeAsyncIterator()
            while true {
                for action in pending {
                    switch action {
                    case .emit(let event):
                        out.yield(event)
                    case .commit(let utterance):
                        finalQueue.yield(utterance)
                    case .partial(let utterance):
                        guard partialRunning.begin() else { break }
                        group.addTask {
                            defer { partialRunning.end() }
                            guard
                                let recognition = try? await recognizer.transcribe(
                                    utterance.samples, settings: utterance.settings, partial: true)
                            else { return }
                            await texts.partial(utterance.itemID, text: recognition.text)
                        }
                    }
                }
                guard let message = try? await iterator.next() else { break }
                pending = await state.handle(message, recognizer: recognizer)
            }
            finalQueue.finish()
            // Let the decodes of committed turns finish and their events go out, then stop the writer.
            await texts.waitForPending(state.committedItems)
            out.finish()
        }
    }

    /// Checks the `session` of an update (beta or GA shape) as a session would take it, and returns the session
    /// object it yields in `dialect`'s shape (for minting a client secret with these settings).
    /// - Throws: the ``RealtimeError`` the session would answer (`invalid_value`, `unsupported_audio_format`).
    public static func settings(
        of session: JSONValue, dialect: Configuration.Dialect, recognizer: any LiveRecognizer
    ) async throws -> JSONValue {
        var configuration = Configuration()
        configuration.dialect = dialect
        var state = SessionState(configuration: configuration, detector: nil)
        _ = try await state.update(["type": "session.update", "session": session], type: "session.update", recognizer: recognizer)
        return state.session
    }

    /// The text of an `error` event (for a server that refuses a session before running it).
    public static func errorEvent(_ error: RealtimeError) -> String {
        RealtimeEvents.error(error).text
    }

    /// Whether a partial decode is running (one at a time per session).
    final class Flag: Sendable {
        private let running = Mutex(false)
        func begin() -> Bool {
            running.withLock { running in
                defer { running = true }
                return !running
            }
        }
        func end() { running.withLock { $0 = false } }
    }

    /// A committed (or growing) turn to decode.
    struct Utterance: Sendable {
        let itemID: String
        let samples: [Float]
        let settings: TranscriptionSettings
        /// Where `samples` start on the session's audio clock (16 kHz samples since its first audio).
        var start = 0
    }
}

/// The text of each item: partial deltas, then the final delta and `completed` (or `failed`), emitted in order.
actor Transcripts {
    private let out: AsyncStream<JSONValue>.Continuation
    private let recorder: (any LiveSessionRecorder)?
    private var prefixes: [String: StablePrefix] = [:]
    private var done: Set<String> = []
    private var waiters: [(items: Set<String>, continuation: CheckedContinuation<Void, Never>)] = []

    init(out: AsyncStream<JSONValue>.Continuation, recorder: (any LiveSessionRecorder)?) {
        self.out = out
        self.recorder = recorder
    }

    func partial(_ item: String, text: String) {
        guard !done.contains(item) else { return }
        var prefix = prefixes[item] ?? StablePrefix()
        let delta = prefix.agree(with: text)
        prefixes[item] = prefix
        if !delta.isEmpty { out.yield(RealtimeEvents.delta(item: item, delta: delta)) }
    }

    func complete(_ utterance: RealtimeTranscriptionSession.Utterance, _ recognition: Recognition) {
        let item = utterance.itemID
        var prefix = prefixes[item] ?? StablePrefix()
        let delta = prefix.finish(with: recognition.text)
        prefixes[item] = nil
        if !delta.isEmpty { out.yield(RealtimeEvents.delta(item: item, delta: delta)) }
        let transcript = recognition.text.trimmingCharacters(in: .whitespaces)
        out.yield(RealtimeEvents.completed(item: item, transcript: transcript))
        recorder?.finished(
            LiveItem(
                id: item, startMs: utterance.start / 16, endMs: (utterance.start + utterance.samples.count) / 16,
                text: transcript, language: recognition.language, model: utterance.settings.model))
        finished(item)
    }

    func fail(_ utterance: RealtimeTranscriptionSession.Utterance, message: String) {
        let item = utterance.itemID
        prefixes[item] = nil
        out.yield(RealtimeEvents.failed(item: item, message: message))
        recorder?.finished(
            LiveItem(
                id: item, startMs: utterance.start / 16, endMs: (utterance.start + utterance.samples.count) / 16,
                text: nil, failure: message, model: utterance.settings.model))
        finished(item)
    }

    private func finished(_ item: String) {
        done.insert(item)
        waiters.removeAll { waiter in
            guard waiter.items.isSubset(of: done) else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    /// Returns once every item of `items` is completed or failed.
    func waitForPending(_ items: Set<String>) async {
        guard !items.isSubset(of: done) else { return }
        await withCheckedContinuation { waiters.append((items, $0)) }
    }
}
