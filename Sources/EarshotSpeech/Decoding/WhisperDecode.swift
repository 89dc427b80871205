internal import CWhisper

/// One transcription on one decode state, run synchronously on a compute thread:
/// VAD → encoder window size → language → `whisper_full_with_state` → segments through the filter.
struct WhisperDecode: Sendable {
    let samples: [Float]
    let options: TranscriptionOptions
    let threads: Int32
    let voiceActivityModelPath: String
    let flag: CancellationFlag
    let emit: @Sendable (TranscriptionEvent) -> Void

    /// Throws unless `samples` is non-empty and finite.
    static func validate(_ samples: [Float]) throws(SpeechError) {
        guard !samples.isEmpty else { throw SpeechError(.invalidAudio, "no samples to transcribe (empty audio)") }
        guard samples.allSatisfy(\.isFinite) else {
            throw SpeechError(.invalidAudio, "the samples contain NaN or infinity; expected 16 kHz mono in -1…1")
        }
        guard samples.count < Int(Int32.max) else {
            throw SpeechError(.invalidAudio, "the audio is too long for one decode (over 37 hours); split it")
        }
    }

    func run(on state: DecodeState) throws -> Transcript {
        let model = state.model
        let durationMs = samples.count / 16

        // 1. Voice activity.
        let regions: SpeechRegions
        if let vad = options.voiceActivity {
            let detector = try state.voiceActivityDetector(path: voiceActivityModelPath, threads: threads)
            regions = try SpeechRegions.detect(in: samples, detector: detector, options: vad)
        } else {
            regions = .all(samples)
        }
        try checkCancellation()
        let speechMs = regions.ranges.reduce(0) { $0 + $1.count } / 16
        // Whisper ignores anything under 100 ms; treat it as silence.
        guard regions.samples.count >= 1_600 else {
            let language = options.language ?? (model.isMultilingual ? "en" : "en")
            emit(.progress(1))
            return Transcript(
                language: language, languageProbability: nil, durationMs: durationMs, speechMs: 0, segments: [])
        }

        // 2. Encoder window.
        let audioContext: Int32
        switch options.audioContext {
        case .full: audioContext = 0
        case .automatic:
            audioContext = Int32(
                AudioContextRule.standard.positions(forSamples: regions.samples.count, fullWindow: model.audioContext))
        case .fixed(let positions): audioContext = Int32(positions)
        }

        // 3. Language.
        let language: String
        var languageProbability: Double?
        if !model.isMultilingual {
            language = "en"
        } else if let fixed = options.language {
            language = whisper_lang_str(whisper_lang_id(fixed)).map { String(cString: $0) } ?? fixed
        } else {
            (language, languageProbability) = try detectLanguage(
                regions.samples, state: state, audioContext: audioContext)
        }
        emit(.language(code: language, probability: languageProbability))
        try checkCancellation()

        // 4. Decode.
        let collector = SegmentCollector(
            model: model, timeMap: regions.timeMap, durationMs: durationMs, wordTimestamps: options.wordTimestamps,
            filter: HallucinationFilter(configuration: options.filter), flag: flag, emit: emit)
        let status = try withParameters(language: language, audioContext: audioContext, collector: collector) {
            parameters in
            regions.samples.withUnsafeBufferPointer {
                whisper_full_with_state(model.context, state.state, parameters, $0.baseAddress, Int32($0.count))
            }
        }
        state.lastAudioContext = audioContext
        try checkCancellation()
        try check(status, "whisper_full_with_state")
        collector.drain(state.state)
        emit(.progress(1))
        return Transcript(
            language: language, languageProbability: languageProbability, durationMs: durationMs, speechMs: speechMs,
            segments: collector.segments)
    }

    private func checkCancellation() throws {
        if flag.isCancelled { throw CancellationError() }
    }

    /// Language id on the first 30 s with the same encoder window the decode will use.
    private func detectLanguage(
        _ samples: [Float], state: DecodeState, audioContext: Int32
    ) throws -> (String, Double) {
        let model = state.model
        if state.lastAudioContext != audioContext { setAudioContext(audioContext, on: state) }
        let head = samples.prefix(30 * 16_000)
        let status = head.withUnsafeBufferPointer {
            whisper_pcm_to_mel_with_state(model.context, state.state, $0.baseAddress, Int32($0.count), threads)
        }
        try check(status, "whisper_pcm_to_mel_with_state")
        var probabilities = [Float](repeating: 0, count: Int(whisper_lang_max_id()) + 1)
        let id = whisper_lang_auto_detect_with_state(model.context, state.state, 0, threads, &probabilities)
        guard id >= 0, let code = whisper_lang_str(id) else {
            throw SpeechError(.decodeFailed, "whisper.cpp language detection failed with status \(id)")
        }
        return (String(cString: code), Double(probabilities[Int(id)]))
    }

    /// whisper.cpp keeps a state's encoder window size from its last full decode and has no setter; a decode
    /// that stops before the encoder (the encoder-begin callback says no) sets it for nearly nothing.
    private func setAudioContext(_ audioContext: Int32, on state: DecodeState) {
        var parameters = whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        parameters.n_threads = 1
        parameters.audio_ctx = audioContext
        parameters.no_timestamps = true
        parameters.encoder_begin_callback = { _, _, _ in false }
        let silence = [Float](repeating: 0, count: 3_200)
        _ = "en".withCString { english in
            parameters.language = english
            return silence.withUnsafeBufferPointer {
                whisper_full_with_state(state.model.context, state.state, parameters, $0.baseAddress, Int32($0.count))
            }
        }
        state.lastAudioContext = audioContext
    }

    /// Builds `whisper_full_params` for the options and calls `body` while every pointer in them is valid.
    private func withParameters<R>(
        language: String, audioContext: Int32, collector: SegmentCollector,
        _ body: (whisper_full_params) throws -> R
    ) throws -> R {
        let beam = options.beamSize > 1
        var parameters = whisper_full_default_params(beam ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY)
        parameters.n_threads = threads
        parameters.translate = options.task == .translate
        parameters.no_context = !options.conditionOnPreviousText
        parameters.no_timestamps = false
        parameters.single_segment = false
        parameters.print_special = false
        parameters.print_progress = false
        parameters.print_realtime = false
        parameters.print_timestamps = false
        parameters.token_timestamps = options.wordTimestamps
        parameters.audio_ctx = audioContext
        parameters.suppress_blank = options.suppressBlank
        parameters.suppress_nst = options.suppressNonSpeech
        parameters.temperature = options.temperature
        parameters.temperature_inc = options.temperatureIncrement
        parameters.entropy_thold = options.entropyThreshold
        parameters.logprob_thold = options.logProbabilityThreshold
        parameters.no_speech_thold = options.noSpeechThreshold
        parameters.greedy.best_of = Int32(options.bestOf)
        parameters.beam_search.beam_size = Int32(options.beamSize)
        parameters.detect_language = false
        parameters.vad = false  // done above, so the state split and original times both hold

        let context = Unmanaged.passUnretained(collector).toOpaque()
        parameters.new_segment_callback = { _, state, count, context in
            guard let context, let state else { return }
            Unmanaged<SegmentCollector>.fromOpaque(context).takeUnretainedValue().collect(state, newCount: count)
        }
        parameters.new_segment_callback_user_data = context
        parameters.progress_callback = { _, _, percent, context in
            guard let context else { return }
            Unmanaged<SegmentCollector>.fromOpaque(context).takeUnretainedValue().progress(percent)
        }
        parameters.progress_callback_user_data = context
        parameters.encoder_begin_callback = { _, _, context in
            guard let context else { return true }
            return !Unmanaged<SegmentCollector>.fromOpaque(context).takeUnretainedValue().flag.isCancelled
        }
        parameters.encoder_begin_callback_user_data = context
        parameters.abort_callback = { context in
            guard let context else { return false }
            return Unmanaged<SegmentCollector>.fromOpaque(context).takeUnretainedValue().flag.isCancelled
        }
        parameters.abort_callback_user_data = context

        return try withExtendedLifetime(collector) {
            try language.withCString { language in
                parameters.language = language
                return try withOptionalCString(options.effectivePrompt) { prompt in
                    parameters.initial_prompt = prompt
                    return try body(parameters)
                }
            }
        }
    }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
    guard let string else { return try body(nil) }
    return try string.withCString { try body($0) }
}
