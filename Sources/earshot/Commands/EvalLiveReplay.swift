import EarshotAudio
import EarshotCore
import EarshotEval
import EarshotLive
import EarshotSpeech
import Foundation
import Synchronization

/// `earshot eval --live`: each file through the live path in-process — the ``RealtimeTranscriptionSession`` that
/// `GET /v1/realtime` runs, minus the socket — fed `input_audio_buffer.append` events of 100 ms of PCM16 at 16 kHz
/// at real-time pace (or `speed` times faster), server VAD with OpenAI's defaults, then 2 s of silence so the last
/// turn is committed. Decodes use the same engine and tier settings as the offline run.
///
/// The utterances (committed items) and their latencies are collected as files are recognised
/// (``utterances``), for ``LiveFigures``.
final class LiveReplayRecognizer: Recognizer {
    let transcriber: FileTranscriber
    let recognizer: EngineLiveRecognizer
    let settings: TranscriptionSettings
    let speed: Double
    /// The session's `final_window_ms`.
    let finalWindow: Duration
    private let collected = Mutex<[LiveFigures.Utterance]>([])

    /// Replays through `engine` with `options` (the tier's settings, as the server's live sessions decode);
    /// `settings` are the session's transcription settings (model name and language).
    init(
        transcriber: FileTranscriber, engine: SpeechEngine, options: TranscriptionOptions,
        settings: TranscriptionSettings, speed: Double, finalWindow: Duration
    ) {
        self.finalWindow = finalWindow
        self.transcriber = transcriber
        self.recognizer = EngineLiveRecognizer(engine: engine, options: options, model: settings.model)
        self.settings = settings
        self.speed = speed
    }

    /// Every utterance of the files recognised so far, in file order.
    var utterances: [LiveFigures.Utterance] { collected.withLock { $0 } }

    static let chunk = 1_600  // 100 ms at 16 kHz
    static let tail = 32_000  // 2 s of silence: the VAD's 500 ms pause and then some

    func recognize(_ file: URL) async throws -> RecognizedFile {
        let clock = ContinuousClock()
        let started = clock.now
        let audio = try await transcriber.prepareAudio(file)
        var configuration = RealtimeTranscriptionSession.Configuration()
        configuration.inputRate = 16_000
        configuration.transcription = settings
        configuration.finalWindow = finalWindow
        let session = RealtimeTranscriptionSession(
            recognizer: recognizer, detector: try VoiceActivityStream(), configuration: configuration)

        let samples = audio.samples + [Float](repeating: 0, count: Self.tail)
        let (messages, input) = AsyncStream<RealtimeTranscriptionSession.Incoming>.makeStream()
        let events = EventLog()
        let speed = self.speed
        let start = clock.now
        let feeder = Task {
            for (index, offset) in stride(from: 0, to: samples.count, by: Self.chunk).enumerated() {
                // A chunk leaves when its last sample would have been recorded.
                try? await clock.sleep(until: start + .milliseconds(100) * (Double(index + 1) / speed))
                let slice = samples[offset..<min(offset + Self.chunk, samples.count)]
                input.yield(.text(Self.append(slice)))
            }
            input.finish()
        }
        await session.run(messages) { text in events.append(text, at: clock.now - start) }
        feeder.cancel()
        let timeline = LiveTimeline(events: events.all, speed: speed)
        let name = file.deletingPathExtension().lastPathComponent
        collected.withLock { $0 += timeline.utterances(document: name) }
        let info = audio.info
        return RecognizedFile(
            segments: timeline.segments, audio: .milliseconds(audio.samples.count / 16),
            elapsed: clock.now - started, warnings: audio.warnings + timeline.failures,
            audioFormat: "\(info.container) \(info.codec) \(info.sampleRate) Hz \(info.channels) ch")
    }

    /// The server events of one replay with the time each was sent, since the replay started.
    final class EventLog: Sendable {
        private let events = Mutex<[(at: Duration, text: String)]>([])

        func append(_ text: String, at: Duration) { events.withLock { $0.append((at, text)) } }

        var all: [(at: Duration, text: String)] { events.withLock { $0 } }
    }

    /// An `input_audio_buffer.append` event with `samples` as base64 PCM16 little-endian.
    static func append(_ samples: ArraySlice<Float>) -> String {
        // As the decoder read them: a PCM16 file is sent sample for sample, as bench-live sends it.
        let bytes = samples.map(Int16.init(pcmSample:)).littleEndianBytes
        return #"{"type":"input_audio_buffer.append","audio":""# + Data(bytes).base64EncodedString() + #""}"#
    }
}

/// The live path's decodes in-process, as the server's recogniser does them minus its HTTP admission: a partial
/// runs only when no decode of this replay is in flight (a preview never waits), a final always runs.
struct EngineLiveRecognizer: LiveRecognizer {
    let engine: SpeechEngine
    let options: TranscriptionOptions
    let model: String?
    private let inFlight = InFlight()

    init(engine: SpeechEngine, options: TranscriptionOptions, model: String?) {
        self.engine = engine
        self.options = options
        self.model = model
    }

    func validate(_ settings: TranscriptionSettings) async throws {
        guard settings.model == nil || settings.model == model else {
            throw ArgumentError(command: "earshot eval", "the replay decodes with \(model ?? "the default model") only")
        }
    }

    func transcribe(_ samples: [Float], settings: TranscriptionSettings, as decode: LiveDecode) async throws
        -> Recognition?
    {
        guard inFlight.enter(onlyIfIdle: decode.onlyWhenIdle) else { return nil }
        defer { inFlight.leave() }
        // As the server's recogniser: finals and early finals with word times (a final's audio context is found by
        // them), partials without temperature fallback.
        return Recognition(try await engine.transcript(of: samples, options: options.live(settings, decode)))
    }

    /// Decodes running now.
    final class InFlight: Sendable {
        private let count = Mutex(0)

        func enter(onlyIfIdle: Bool) -> Bool {
            count.withLock { count in
                if onlyIfIdle, count > 0 { return false }
                count += 1
                return true
            }
        }

        func leave() { count.withLock { $0 -= 1 } }
    }
}

/// The server events of one replay, read back: the items' final text and times, and the utterance latencies.
struct LiveTimeline {
    struct Item {
        var startMs: Int?
        var endMs: Int?
        var committedAt: Duration?
        var firstPartialAt: Duration?
        var completedAt: Duration?
        var text: String?
        var failure: String?
    }

    /// Items in the order the server opened them.
    private(set) var order: [String] = []
    private(set) var items: [String: Item] = [:]
    let speed: Double

    init(events: [(at: Duration, text: String)], speed: Double) {
        self.speed = speed
        let parsed = events.compactMap { event -> (Duration, [String: Any])? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(event.text.utf8)) as? [String: Any] else {
                return nil
            }
            return (event.at, object)
        }
        for (index, (at, event)) in parsed.enumerated() {
            guard let id = event["item_id"] as? String, let type = event["type"] as? String else { continue }
            if items[id] == nil {
                order.append(id)
                items[id] = Item()
            }
            switch type {
            case "input_audio_buffer.speech_started":
                items[id]?.startMs = Self.milliseconds(event["audio_start_ms"])
            case "input_audio_buffer.speech_stopped":
                items[id]?.endMs = Self.milliseconds(event["audio_end_ms"])
            case "input_audio_buffer.committed":
                items[id]?.committedAt = at
            case "conversation.item.input_audio_transcription.delta":
                // The final decode's delta comes right before its `completed`; any other delta is a partial.
                let next = index + 1 < parsed.count ? parsed[index + 1].1 : [:]
                let isFinal =
                    next["type"] as? String == "conversation.item.input_audio_transcription.completed"
                    && next["item_id"] as? String == id
                if !isFinal, items[id]?.firstPartialAt == nil { items[id]?.firstPartialAt = at }
            case "conversation.item.input_audio_transcription.completed":
                items[id]?.completedAt = at
                items[id]?.text = event["transcript"] as? String
            case "conversation.item.input_audio_transcription.failed":
                items[id]?.completedAt = at
                items[id]?.failure = ((event["error"] as? [String: Any])?["message"] as? String) ?? "failed"
            default:
                break
            }
        }
    }

    /// A JSON number of milliseconds.
    static func milliseconds(_ value: Any?) -> Int? {
        if let value = value as? Int { return value }
        if let value = value as? Double { return Int(value) }
        return nil
    }

    /// When the audio at `ms` (on the session's clock) was sent: chunks leave at real time divided by `speed`.
    func sent(_ ms: Int) -> Duration { .milliseconds(ms) / speed }

    /// One hypothesis segment per completed item.
    var segments: [HypothesisSegment] {
        order.compactMap { id in
            guard let item = items[id], let text = item.text else { return nil }
            return HypothesisSegment(
                text: text, speaker: nil, startMilliseconds: item.startMs ?? 0,
                endMilliseconds: item.endMs ?? item.startMs ?? 0)
        }
    }

    /// Items whose final decode failed, as warnings.
    var failures: [String] {
        order.compactMap { id in items[id]?.failure.map { "live item \(id) failed: \($0)" } }
    }

    /// Latencies of the completed items: speech start → first partial, speech end (or, for a turn the server cut
    /// without a pause, its commit) → final.
    func utterances(document: String) -> [LiveFigures.Utterance] {
        order.compactMap { id in
            guard let item = items[id], item.text != nil, let completed = item.completedAt else { return nil }
            guard let end = item.endMs.map(sent) ?? item.committedAt else { return nil }
            let partial = item.firstPartialAt.flatMap { at in item.startMs.map { seconds(at - sent($0)) } }
            return LiveFigures.Utterance(
                document: document, firstPartialSeconds: partial, finalSeconds: seconds(completed - end))
        }
    }

    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
