internal import CWhisper
public import EarshotCore
import Synchronization

/// The Silero voice-activity detector the engine decodes with, for other pipelines (speaker diarization): speech
/// as sample ranges of 16 kHz mono audio.
///
/// ```swift
/// let vad = try VoiceActivityDetector()
/// let speech = try vad.speechRanges(in: samples)   // [Range<Int>], sample positions
/// ```
///
/// Loading the ggml Silero model (≈ 0.9 MB) takes a few milliseconds. One detector runs one call at a time (its
/// whisper.cpp context holds the model's recurrent state); concurrent calls wait. Blocking CPU work (about 5 ms per
/// second of audio here): call it from a thread you own. For audio that arrives as it is spoken, use
/// ``VoiceActivityStream``, which looks at each sample once.
public final class VoiceActivityDetector: Sendable {
    private final class Context: @unchecked Sendable {
        // SAFETY: only used inside `VoiceActivityDetector.context`'s mutex.
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { whisper_vad_free(pointer) }
    }

    private let context: Mutex<Context>
    /// The model file in use.
    public let modelPath: String

    /// Loads the Silero model (whisper.cpp's ggml file; default ``ModelHome/voiceActivityModel`` of the process's
    /// home, `$EARSHOT_HOME/models/silero-v6.2.0-ggml.bin`).
    ///
    /// - Throws: ``SpeechError/Code/voiceActivityFailed`` when the file is missing or not a Silero ggml model.
    public init(modelPath: String = ModelHome.current.voiceActivityModel, threads: Int = 1)
        throws(SpeechError)
    {
        context = Mutex(Context(try Self.load(modelPath, threads: threads)))
        self.modelPath = modelPath
    }

    /// A whisper.cpp VAD context for the Silero model at `modelPath` (CPU, `threads` threads); the caller frees it.
    static func load(_ modelPath: String, threads: Int) throws(SpeechError) -> OpaquePointer {
        WhisperLog.install()
        var parameters = whisper_vad_default_context_params()
        parameters.n_threads = Int32(max(1, threads))
        parameters.use_gpu = false
        guard let pointer = whisper_vad_init_from_file_with_params(modelPath, parameters) else {
            throw SpeechError(
                .voiceActivityFailed,
                "could not load the VAD model \(modelPath): expected whisper.cpp's ggml Silero file "
                    + "(silero-v6.2.0-ggml.bin; run `make setup`)")
        }
        return pointer
    }

    /// Sample ranges of `samples` (16 kHz mono) judged to be speech with `options` (threshold, minimum speech and
    /// silence, padding; `overlap` and `gap` only matter to the decoder and are ignored here), in time order.
    ///
    /// - Throws: ``SpeechError/Code/invalidAudio`` for non-finite samples, ``SpeechError/Code/voiceActivityFailed``
    ///   when the detector fails.
    public func speechRanges(in samples: [Float], options: VoiceActivityOptions = VoiceActivityOptions())
        throws(SpeechError) -> [Range<Int>]
    {
        guard !samples.isEmpty else { return [] }
        try WhisperDecode.validate(samples)
        return try context.withLock { (context) throws(SpeechError) -> [Range<Int>] in
            try SpeechRegions.speechRanges(in: samples, detector: context.pointer, options: options)
        }
    }
}
