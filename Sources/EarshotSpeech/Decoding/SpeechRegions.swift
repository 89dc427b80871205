internal import CWhisper

/// Speech found by the Silero detector, and the audio the decoder gets: the speech laid end to end.
struct SpeechRegions: Sendable {
    /// The filtered samples (speech segments separated by short silences).
    var samples: [Float]
    /// Filtered → original positions.
    var timeMap: TimeMap
    /// Original sample ranges judged to be speech.
    var ranges: [Range<Int>]

    /// Everything is speech (VAD off).
    static func all(_ samples: [Float]) -> SpeechRegions {
        SpeechRegions(samples: samples, timeMap: .identity, ranges: samples.isEmpty ? [] : [0..<samples.count])
    }

    /// Runs the detector over `samples` and keeps the speech, as whisper.cpp's own `whisper_full` VAD does
    /// (each segment but the last extended by `overlap`, segments joined by `gap` of silence).
    static func detect(
        in samples: [Float], detector: OpaquePointer, options: VoiceActivityOptions
    ) throws(SpeechError) -> SpeechRegions {
        let ranges = try speechRanges(in: samples, detector: detector, options: options)
        let overlap = Int(options.overlap.milliseconds) * 16
        let gap = Int(options.gap.milliseconds) * 16
        var filtered: [Float] = []
        filtered.reserveCapacity(ranges.reduce(0) { $0 + $1.count + overlap + gap })
        var knots: [(filtered: Int, original: Int)] = []
        for (index, range) in ranges.enumerated() {
            let isLast = index == ranges.count - 1
            let copyEnd = isLast ? range.upperBound : min(samples.count, range.upperBound + overlap)
            knots.append((filtered.count, range.lowerBound))
            knots.append((filtered.count + range.count, range.upperBound))
            filtered.append(contentsOf: samples[range.lowerBound..<copyEnd])
            if !isLast { filtered.append(contentsOf: repeatElement(0, count: gap)) }
        }
        // Keep the knots strictly increasing on the filtered side (overlap can make an end pass the next start).
        var monotonic: [(filtered: Int, original: Int)] = []
        for knot in knots
        where monotonic.last.map({ knot.filtered > $0.filtered && knot.original >= $0.original }) ?? true {
            monotonic.append(knot)
        }
        return SpeechRegions(samples: filtered, timeMap: TimeMap(knots: monotonic), ranges: ranges)
    }

    /// The detector's speech segments as sample ranges of `samples` (not joined; the audio is not copied).
    static func speechRanges(
        in samples: [Float], detector: OpaquePointer, options: VoiceActivityOptions
    ) throws(SpeechError) -> [Range<Int>] {
        var parameters = whisper_vad_default_params()
        parameters.threshold = options.threshold
        parameters.min_speech_duration_ms = Int32(options.minimumSpeech.milliseconds)
        parameters.min_silence_duration_ms = Int32(options.minimumSilence.milliseconds)
        parameters.speech_pad_ms = Int32(options.speechPadding.milliseconds)
        parameters.samples_overlap = Float(options.overlap.milliseconds) / 1000
        let found = samples.withUnsafeBufferPointer {
            whisper_vad_segments_from_samples(detector, parameters, $0.baseAddress, Int32($0.count))
        }
        guard let found else {
            throw SpeechError(.voiceActivityFailed, "the VAD failed on \(samples.count) samples")
        }
        defer { whisper_vad_free_segments(found) }
        let count = Int(whisper_vad_segments_n_segments(found))
        var ranges: [Range<Int>] = []
        for index in 0..<count {
            // Segment times are in centiseconds.
            let start = min(
                samples.count, max(0, Int((whisper_vad_segments_get_segment_t0(found, Int32(index)) * 160).rounded())))
            let end = min(
                samples.count,
                max(start, Int((whisper_vad_segments_get_segment_t1(found, Int32(index)) * 160).rounded())))
            if end > start { ranges.append(start..<end) }
        }
        return ranges
    }
}
