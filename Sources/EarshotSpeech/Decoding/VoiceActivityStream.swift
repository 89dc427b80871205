internal import CWhisper
public import EarshotCore
import Synchronization

/// Silero voice activity over audio as it arrives: a speech probability for each 32 ms frame, the detector's recurrent
/// state carried from one call to the next, so each sample is looked at once (a live session's turn detection).
///
/// ```swift
/// let vad = try VoiceActivityStream()
/// let probabilities = try vad.append(samples[...])   // one per whole 512-sample frame
/// ```
///
/// ``VoiceActivityDetector`` answers for a whole recording and starts from a clean state each call; re-running it over
/// a live buffer every 100 ms costs time in proportion to the buffer (about 5 ms per second of audio here, so a
/// second of CPU per second for a 20 s buffer). This one costs the same per second of audio whatever the buffer.
/// One stream per audio stream: it holds its own whisper.cpp context (the ≈ 0.9 MB model, loaded in milliseconds).
public final class VoiceActivityStream: Sendable {
    /// Samples (16 kHz) per probability: Silero's 32 ms frame.
    public static let frameLength = 512

    private struct State: @unchecked Sendable {
        // SAFETY: the context is only used inside `state`'s mutex.
        let context: OpaquePointer
        /// Samples after the last whole frame, waiting for the next call.
        var held: [Float] = []
    }

    private let state: Mutex<State>

    /// Loads the Silero model (default ``ModelHome/voiceActivityModel`` of the process's home).
    ///
    /// - Throws: ``SpeechError/Code/voiceActivityFailed`` when the file is missing or not a Silero ggml model.
    public init(modelPath: String = ModelHome.current.voiceActivityModel, threads: Int = 1) throws(SpeechError) {
        let context = try VoiceActivityDetector.load(modelPath, threads: threads)
        whisper_vad_reset_state(context)
        state = Mutex(State(context: context))
    }

    deinit {
        state.withLock { whisper_vad_free($0.context) }
    }

    /// Feeds the next samples of the stream (16 kHz mono) and returns the speech probability (0…1) of each frame
    /// they complete, in order; samples past the last whole frame are held for the next call.
    ///
    /// Blocking CPU work (about 5 ms per second of audio): call it from a thread you own.
    /// - Throws: ``SpeechError/Code/invalidAudio`` for non-finite samples (nothing is fed),
    ///   ``SpeechError/Code/voiceActivityFailed`` when the detector fails.
    public func append(_ samples: ArraySlice<Float>) throws(SpeechError) -> [Float] {
        try WhisperDecode.requireFinite(samples)
        return try state.withLock { (state) throws(SpeechError) -> [Float] in
            state.held += samples
            let whole = state.held.count / Self.frameLength * Self.frameLength
            guard whole > 0 else { return [] }
            let ok = state.held.withUnsafeBufferPointer {
                whisper_vad_detect_speech_no_reset(state.context, $0.baseAddress, Int32(whole))
            }
            guard ok, Int(whisper_vad_n_probs(state.context)) == whole / Self.frameLength,
                let probabilities = whisper_vad_probs(state.context)
            else {
                throw SpeechError(.voiceActivityFailed, "the VAD failed on \(whole) samples")
            }
            state.held.removeFirst(whole)
            return Array(UnsafeBufferPointer(start: probabilities, count: whole / Self.frameLength))
        }
    }

    /// Starts over: the held samples and the recurrent state are forgotten (the next audio does not continue what
    /// came before).
    public func reset() {
        state.withLock { state in
            state.held = []
            whisper_vad_reset_state(state.context)
        }
    }
}
