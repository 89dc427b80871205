public import EarshotCore
import Foundation

/// Transcribes audio with one shared ``SpeechModel`` and a bounded pool of decode states.
///
/// ```swift
/// let engine = SpeechEngine(model: try SpeechModel(path: "ggml-base-q8_0.bin"))
/// for try await event in engine.transcribe(samples: samples, options: .init()) {
///     if case .segment(let segment) = event { print(segment.text) }
/// }
/// ```
///
/// Audio is 16 kHz mono `Float` in −1…1 (EarshotAudio decodes files to this). Each decode runs on a thread
/// of its own (never on Swift's cooperative pool) with ``Configuration/threadsPerDecode`` compute threads;
/// at most ``Configuration/concurrentDecodes`` run at once and the rest wait. Safe to share across tasks.
public struct SpeechEngine: Sendable {
    /// Engine-wide settings.
    public struct Configuration: Sendable, Hashable {
        /// Decodes running at once (each holds its own whisper.cpp state, ≈ 30–60 MB for base).
        public var concurrentDecodes: Int
        /// Compute threads per decode.
        public var threadsPerDecode: Int
        /// The Silero VAD model used when options do not name one.
        public var voiceActivityModelPath: String

        /// One decode at a time, every core for it (when `threadsPerDecode` is nil), and the Silero model of the
        /// process's ``ModelHome`` (`$EARSHOT_HOME/models`).
        public init(
            concurrentDecodes: Int = 1,
            threadsPerDecode: Int? = nil,
            voiceActivityModelPath: String = ModelHome.current.voiceActivityModel
        ) {
            self.concurrentDecodes = max(1, concurrentDecodes)
            self.threadsPerDecode = max(1, threadsPerDecode ?? ProcessInfo.processInfo.activeProcessorCount)
            self.voiceActivityModelPath = voiceActivityModelPath
        }
    }

    /// The shared model.
    public var model: SpeechModel { pool.model }
    /// The settings in use.
    public let configuration: Configuration
    let pool: DecodeStatePool

    /// An engine over `model`.
    public init(model: SpeechModel, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.pool = DecodeStatePool(model: model, capacity: configuration.concurrentDecodes)
    }

    /// Transcribes `samples` (16 kHz mono), reporting progress and segments as they come; see
    /// ``TranscriptionStream`` for when work starts and how to cancel.
    ///
    /// Errors (bad options, empty or non-finite audio, a decode failure) are thrown by the iteration.
    public func transcribe(samples: [Float], options: TranscriptionOptions = TranscriptionOptions())
        -> TranscriptionStream
    {
        let pool = self.pool
        let configuration = self.configuration
        return TranscriptionStream { continuation, flag in
            let state: DecodeState
            do {
                try options.validate(multilingual: pool.model.isMultilingual)
                try WhisperDecode.validate(samples)
                state = try await pool.acquire()
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let decode = WhisperDecode(
                samples: samples, options: options, threads: Int32(configuration.threadsPerDecode),
                voiceActivityModelPath: options.voiceActivity?.modelPath ?? configuration.voiceActivityModelPath,
                flag: flag, emit: { continuation.yield($0) })
            let thread = Thread {
                defer { pool.release(state) }
                do {
                    let transcript = try decode.run(on: state)
                    continuation.yield(.completed(transcript))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = "earshot-decode"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Transcribes `samples` and returns the transcript.
    ///
    /// - Throws: `CancellationError` when the task is cancelled, ``SpeechError`` otherwise.
    public func transcript(of samples: [Float], options: TranscriptionOptions = TranscriptionOptions())
        async throws -> Transcript
    {
        try await transcribe(samples: samples, options: options).transcript()
    }

    /// Collects `chunks` of 16 kHz mono samples (as EarshotAudio's decoder yields them), then transcribes them.
    ///
    /// Whisper decodes long audio in 30 s windows that move with the text, so decoding starts once the audio is
    /// complete.
    public func transcript<Chunks: AsyncSequence>(
        ofChunks chunks: Chunks, options: TranscriptionOptions = TranscriptionOptions()
    ) async throws -> Transcript where Chunks.Element == [Float] {
        var samples: [Float] = []
        for try await chunk in chunks { samples.append(contentsOf: chunk) }
        return try await transcript(of: samples, options: options)
    }
}
