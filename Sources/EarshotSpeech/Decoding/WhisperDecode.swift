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
        try requireFinite(samples)
        guard samples.count < Int(Int32.max) else {
            throw SpeechError(.invalidAudio, "the audio is too long for one decode (over 37 hours); split it")
        }
    }

    /// Throws unless every sample is finite.
    static func requireFinite(_ samples: some Collection<Float>) throws(SpeechError) {
        guard samples.allSatisfy(\.isFinite) else {
            throw SpeechError(.invalidAudio, "the samples contain NaN or infinity; expected 16 kHz mono in -1…1")
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
        case .rule(let rule):
            audioContext = Int32(
                rule.positions(forSamples: regions.samples.count, fullWindow: model.audioContext))
        case .fixed(let positions): audioContext = Int32(positions)
        }

        // 3. Language.
        var language: String
        var languageProbability: Double?
        var ranked: [(code: String, probability: Double)] = []
        if !model.isMultilingual {
            language = "en"
        } else if let fixed = options.language {
            language = whisper_lang_str(whisper_lang_id(fixed)).map { String(cString: $0) } ?? fixed
        } else {
            ranked = try detectLanguages(regions.samples, state: state, audioContext: audioContext)
            (language, languageProbability) = (ranked[0].code, ranked[0].probability)
        }
        try checkCancellation()

        // 4. Decode: once, or once per likely language when detection is unsure.
        let candidates = Self.candidates(ranked, options: options)
        var warnings: [String] = []
        var segments: [Transcript.Segment]
        if candidates.count <= 1 {
            emit(.language(code: language, probability: languageProbability))
            segments = try decode(regions, language: language, audioContext: audioContext, state: state, emit: emit)
        } else {
            var best: (code: String, probability: Double, segments: [Transcript.Segment], score: Double)?
            for (attempt, candidate) in candidates.enumerated() {
                // Each attempt's segments are held back until one is chosen; progress covers all attempts.
                let attempts = Double(candidates.count)
                let decoded = try decode(
                    regions, language: candidate.code, audioContext: audioContext, state: state,
                    emit: { [emit] event in
                        if case .progress(let fraction) = event {
                            emit(.progress((Double(attempt) + fraction) / attempts))
                        }
                    })
                let score = Self.score(decoded)
                if best == nil || score > best!.score {
                    best = (candidate.code, candidate.probability, decoded, score)
                }
                // The most likely language settles it when it decodes confidently, or decodes acceptably and was
                // detected with some confidence.
                if attempt == 0,
                    score >= Self.confidentScore
                        || (candidate.probability >= options.languageConfidence && score >= Self.acceptableScore)
                {
                    break
                }
            }
            let chosen = best!
            (language, languageProbability, segments) = (chosen.code, chosen.probability, chosen.segments)
            emit(.language(code: language, probability: languageProbability))
            for segment in segments { emit(.segment(segment)) }
            if language != candidates[0].code || candidates[0].probability < options.languageConfidence {
                let shown = candidates.map { "\($0.code) \(Int(($0.probability * 100).rounded())) %" }
                warnings.append(
                    "the spoken language was uncertain (detected " + shown.joined(separator: ", ")
                        + "): transcribed as \(language), the candidate that decoded best; pass the language if this "
                        + "is wrong")
            }
        }
        if segments.isEmpty, speechMs >= 1_000 {
            let detected =
                languageProbability.map { " (language \(language), detected with probability \(Self.twoDigits($0)))" }
                ?? ""
            warnings.append(
                "no words were recognised in \(Self.twoDigits(Double(speechMs) / 1000)) s of speech\(detected); pass "
                    + "the spoken language, or try a larger model (asr-pro)")
        }
        emit(.progress(1))
        return Transcript(
            language: language, languageProbability: languageProbability, durationMs: durationMs, speechMs: speechMs,
            segments: segments, warnings: warnings)
    }

    /// One `whisper_full_with_state` over the speech in `language`; returns the kept segments.
    private func decode(
        _ regions: SpeechRegions, language: String, audioContext: Int32, state: DecodeState,
        emit: @escaping @Sendable (TranscriptionEvent) -> Void
    ) throws -> [Transcript.Segment] {
        let model = state.model
        let collector = SegmentCollector(
            model: model, timeMap: regions.timeMap, durationMs: samples.count / 16,
            wordTimestamps: options.wordTimestamps, tokenDetails: options.tokenDetails,
            numberFormsLanguage: options.numberForms ? (options.task == .translate ? "en" : language) : nil,
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
        return collector.segments
    }

    /// The languages worth trying: the detected one alone when detection is sure (``trustedProbability``) or
    /// candidates are off, else the most likely few (each at least 2 %).
    static func candidates(_ ranked: [(code: String, probability: Double)], options: TranscriptionOptions)
        -> [(code: String, probability: Double)]
    {
        guard let first = ranked.first, first.probability < trustedProbability, options.languageCandidates > 1
        else { return Array(ranked.prefix(1)) }
        return [first] + ranked.dropFirst().prefix(options.languageCandidates - 1).filter { $0.probability >= 0.02 }
    }

    /// A decode's confidence: the token-weighted mean log-probability of its segments, lowered for looping text;
    /// −∞ when nothing was recognised.
    static func score(_ segments: [Transcript.Segment]) -> Double {
        var total = 0.0
        var weight = 0.0
        for segment in segments {
            let length = Double(max(1, segment.text.utf8.count))
            let penalty = segment.compressionRatio > 2.4 ? 1.0 : 0
            total += (segment.averageLogProbability - penalty) * length
            weight += length
        }
        return weight > 0 ? total / weight : -.infinity
    }

    /// A first candidate scoring at least this is kept without trying the others.
    static let confidentScore = -0.35
    /// A first candidate detected with at least ``TranscriptionOptions/languageConfidence`` and scoring at least
    /// this is kept (measured: German speech detected as Thai with 68 % decodes at about −1.2 in Thai).
    static let acceptableScore = -0.8
    /// Detection at least this sure is not second-guessed (no extra decode).
    static let trustedProbability = 0.9

    static func twoDigits(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    private func checkCancellation() throws {
        if flag.isCancelled { throw CancellationError() }
    }

    /// Language id on the first 30 s with the same encoder window the decode will use: every language with its
    /// probability, most likely first.
    private func detectLanguages(
        _ samples: [Float], state: DecodeState, audioContext: Int32
    ) throws -> [(code: String, probability: Double)] {
        let model = state.model
        if state.lastAudioContext != audioContext { setAudioContext(audioContext, on: state) }
        let head = samples.prefix(30 * 16_000)
        let status = head.withUnsafeBufferPointer {
            whisper_pcm_to_mel_with_state(model.context, state.state, $0.baseAddress, Int32($0.count), threads)
        }
        try check(status, "whisper_pcm_to_mel_with_state")
        var probabilities = [Float](repeating: 0, count: Int(whisper_lang_max_id()) + 1)
        let id = whisper_lang_auto_detect_with_state(model.context, state.state, 0, threads, &probabilities)
        guard id >= 0, whisper_lang_str(id) != nil else {
            throw SpeechError(.decodeFailed, "whisper.cpp language detection failed with status \(id)")
        }
        return probabilities.enumerated().compactMap { index, probability in
            whisper_lang_str(Int32(index)).map { (String(cString: $0), Double(probability)) }
        }.sorted { $0.probability > $1.probability }
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
