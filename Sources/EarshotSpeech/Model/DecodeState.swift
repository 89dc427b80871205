internal import CWhisper

/// One decode's private whisper.cpp state (KV caches, mel, results) and its voice-activity detector.
///
/// Handed out by ``DecodeStatePool`` to one decode at a time.
final class DecodeState: @unchecked Sendable {
    // SAFETY: the pool gives a state to exactly one decode at a time, and that decode uses it from a single
    // compute thread; the pool's mutex orders the hand-over between threads.

    let model: SpeechModel
    let state: OpaquePointer
    /// The encoder context size whisper.cpp kept from the last `whisper_full_with_state` on this state
    /// (0 = the model's full 1500). whisper.cpp's language detection silently reuses it, so it is tracked.
    var lastAudioContext: Int32 = 0
    private var voiceActivityContext: OpaquePointer?
    private var voiceActivityModelPath: String?

    init(model: SpeechModel) throws(SpeechError) {
        guard let state = whisper_init_state(model.context) else {
            throw SpeechError(
                .decodeFailed,
                "whisper.cpp could not allocate a decode state for \(model.path)"
                    + (WhisperLog.lastError.map { " (\($0))" } ?? ""))
        }
        self.model = model
        self.state = state
    }

    deinit {
        whisper_free_state(state)
        if let voiceActivityContext { whisper_vad_free(voiceActivityContext) }
    }

    /// This state's Silero detector for `path`, loaded on first use.
    func voiceActivityDetector(path: String, threads: Int32) throws(SpeechError) -> OpaquePointer {
        if let voiceActivityContext, voiceActivityModelPath == path { return voiceActivityContext }
        if let voiceActivityContext { whisper_vad_free(voiceActivityContext) }
        voiceActivityContext = nil
        var parameters = whisper_vad_default_context_params()
        parameters.n_threads = threads
        parameters.use_gpu = false
        guard let context = whisper_vad_init_from_file_with_params(path, parameters) else {
            throw SpeechError(
                .voiceActivityFailed,
                "could not load the VAD model \(path): expected whisper.cpp's ggml Silero file "
                    + "(silero-v6.2.0-ggml.bin; run `make setup`), or disable VAD")
        }
        voiceActivityContext = context
        voiceActivityModelPath = path
        return context
    }
}
