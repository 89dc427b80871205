import Dispatch
public import EarshotCore
public import EarshotSpeech
import Foundation

/// Who said what in a transcript: the one place every entry point (`earshot transcribe --diarize`, `earshot eval`,
/// the server's task workers) turns a ``Transcript`` and its audio into a transcript whose segments carry speakers.
///
/// Speech regions (the diarizer's energy detector by default; the speech engine's Silero detector on request) →
/// ``Diarizer`` (embeddings, clustering,
/// turns) → every segment split where the speaker changes between two words (transcribe with word timestamps:
/// ``prepare(_:)``) → labels `Speaker 1…N` in order of first appearance (template configurable), or the name of an
/// enrolled ``Voiceprint`` when a speaker matches it confidently.
///
/// Thread-safety: immutable; share one instance. The work is blocking CPU (about 1 s per audio minute on one
/// OpenBLAS thread) and runs on a dispatch queue, never on the cooperative pool; it is not interrupted by task
/// cancellation once started.
public struct SpeakerAttribution: Sendable {
    /// Name of the embedder behind ``Voiceprint/model`` (the Resemblyzer 0.1.4 port).
    public static let embedderName = "resemblyzer-0.1.4"
    /// Cosine similarity between a speaker's centroid and a voiceprint at or above which the speaker is named after
    /// it.
    ///
    /// Calibrated with `earshot-bench-diarization --voiceprints` (docs/diarization.md, "Voiceprints"): voiceprints
    /// enrolled from other audio scored 0.916–0.978 against their own speaker (espeak-ng voices; a pyannote caller
    /// enrolled from the first half of the call, matched in the second) and at most 0.854 against anyone else (the
    /// other pyannote caller; espeak-ng voices ≤ 0.77). 0.88 sits between the two.
    public static let defaultVoiceprintThreshold: Float = 0.88
    /// Least speech (seconds) of one speaker a voiceprint sample must hold.
    public static let minimumEnrolmentSpeech = 3.0

    /// What one attribution is asked to do.
    public struct Options: Sendable, Hashable {
        /// Exact number of speakers, when known (1…32).
        public var speakers: Int?
        /// Fewest speakers (1…32).
        public var minSpeakers: Int?
        /// Most speakers (1…32).
        public var maxSpeakers: Int?
        /// Label of speaker n; `{n}` is replaced by the number (`"发言人 {n}"`).
        public var labelTemplate: String
        /// Enrolled voices: a speaker whose centroid matches one at or above ``voiceprintThreshold`` gets its name.
        public var voiceprints: [Voiceprint]
        /// See ``SpeakerAttribution/defaultVoiceprintThreshold``.
        public var voiceprintThreshold: Float
        /// Keep word timestamps in the output (off: words are dropped after they served to split segments).
        public var keepWords: Bool

        /// Creates options; the defaults count speakers by threshold and label them `Speaker n`.
        public init(
            speakers: Int? = nil, minSpeakers: Int? = nil, maxSpeakers: Int? = nil,
            labelTemplate: String = "Speaker {n}", voiceprints: [Voiceprint] = [],
            voiceprintThreshold: Float = SpeakerAttribution.defaultVoiceprintThreshold, keepWords: Bool = false
        ) {
            self.speakers = speakers
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.labelTemplate = labelTemplate
            self.voiceprints = voiceprints
            self.voiceprintThreshold = voiceprintThreshold
            self.keepWords = keepWords
        }

        /// Checks the counts and the template and returns the diarizer configuration they make.
        ///
        /// - Throws: `.invalidConfiguration` naming the bad value.
        public func diarizerConfiguration() throws(DiarizationError) -> Diarizer.Configuration {
            for (name, value) in [("speakers", speakers), ("min_speakers", minSpeakers), ("max_speakers", maxSpeakers)]
            {
                if let value, !(1...32).contains(value) {
                    throw DiarizationError(.invalidConfiguration, "\(name) must be between 1 and 32 (got \(value))")
                }
            }
            let low = minSpeakers ?? 1
            let high = maxSpeakers ?? max(10, low)
            guard low <= high else {
                throw DiarizationError(
                    .invalidConfiguration, "min_speakers (\(low)) must not be greater than max_speakers (\(high))")
            }
            if let speakers, !(low...high).contains(speakers) {
                throw DiarizationError(
                    .invalidConfiguration, "speakers (\(speakers)) must lie within min_speakers…max_speakers")
            }
            guard labelTemplate.contains("{n}") else {
                throw DiarizationError(
                    .invalidConfiguration,
                    "the speaker label \"\(labelTemplate)\" needs {n} where the number goes (e.g. \"Speaker {n}\")")
            }
            return Diarizer.Configuration(
                speakerCount: speakers, minSpeakers: low, maxSpeakers: high, labelTemplate: labelTemplate)
        }
    }

    /// Where the diarizer's speech regions come from.
    public enum SpeechDetection: Sendable {
        /// The diarizer's built-in energy detector (the default: it measured better than Silero for diarization,
        /// docs/diarization.md "Speech regions").
        case energy
        /// whisper.cpp's Silero detector with these settings (a detector is loaded per call, a few milliseconds, so
        /// concurrent attributions never wait for each other).
        case silero(VoiceActivityOptions)
    }

    private let embedder: any SpeakerEmbedder
    private let speechDetection: SpeechDetection
    private let modelHome: ModelHome

    /// An attribution with `embedder` (normally a shared ``ResemblyzerEmbedder``); ``SpeechDetection/silero(_:)``
    /// loads the VAD model of `modelHome` unless its options name one.
    public init(
        embedder: any SpeakerEmbedder, speechDetection: SpeechDetection = SpeakerAttribution.defaultSpeechDetection,
        modelHome: ModelHome = .current
    ) {
        self.embedder = embedder
        self.speechDetection = speechDetection
        self.modelHome = modelHome
    }

    /// The speech detection attributions use unless told otherwise: ``SpeechDetection/energy``.
    ///
    /// Measured by `make bench-diar` against ``sileroForDiarization``: Silero regions found a spurious third speaker
    /// on the pyannote call (DER 7.5 % against 6.7 %) and on espeak-ng dialogues with 0.1 s pauses (1.2 % against
    /// 2.0 %, but 3 speakers instead of 2).
    public static var defaultSpeechDetection: SpeechDetection { .energy }

    /// Silero settings for diarization: whisper.cpp's defaults with 300 ms of silence to end a region (shorter
    /// pauses inside one person's sentence do not cut it).
    public static var sileroForDiarization: SpeechDetection {
        var options = VoiceActivityOptions()
        options.minimumSilence = .milliseconds(300)
        return .silero(options)
    }

    /// `options` with word timestamps on, which speaker changes inside a segment need.
    public static func prepare(_ options: TranscriptionOptions) -> TranscriptionOptions {
        var options = options
        options.wordTimestamps = true
        return options
    }

    /// `transcript` with a speaker on every segment, split where the speaker changes (see the type's overview).
    ///
    /// `samples` are the 16 kHz mono samples that were transcribed. A recording without detectable speech comes
    /// back unchanged (no speakers).
    ///
    /// - Throws: `.invalidConfiguration` for bad options, `.speechDetectionFailed` when the Silero model is missing,
    ///   and the embedder's errors.
    public func attribute(
        _ transcript: Transcript, samples: [Float], options: Options
    ) async throws(DiarizationError) -> Transcript {
        let configuration = try options.diarizerConfiguration()
        return try await offPool { () throws(DiarizationError) in
            let diarizer = try Diarizer(embedder: embedder, configuration: configuration)
            let result = try diarizer.diarize(
                samples: samples, segments: Self.timed(transcript), speech: try speechRegions(samples))
            return Self.merge(result, into: transcript, names: Self.names(result, options: options), options: options)
        }
    }

    /// The diarization of `samples` alone (turns, labels, centroids), with the same speech detection.
    public func diarize(samples: [Float], options: Options = Options()) async throws(DiarizationError)
        -> DiarizationResult
    {
        let configuration = try options.diarizerConfiguration()
        return try await offPool { () throws(DiarizationError) in
            let diarizer = try Diarizer(embedder: embedder, configuration: configuration)
            return try diarizer.diarize(samples: samples, speech: try speechRegions(samples))
        }
    }

    /// A voiceprint named `name` from `samples` (16 kHz mono): the centroid of the sample's dominant speaker, so a
    /// little background speech from someone else does not spoil it.
    ///
    /// - Throws: `.invalidInput` for a bad name or a sample with less than ``minimumEnrolmentSpeech`` seconds of
    ///   that speaker; `.speechDetectionFailed`; the embedder's errors.
    public func voiceprint(named name: String, samples: [Float]) async throws(DiarizationError) -> Voiceprint {
        let name = try Voiceprint.validName(name)
        let result = try await diarize(samples: samples)
        var spoken = [Double](repeating: 0, count: result.speakerCount)
        for turn in result.turns { spoken[turn.speaker - 1] += turn.end - turn.start }
        guard let best = spoken.indices.max(by: { spoken[$0] < spoken[$1] }),
            spoken[best] >= Self.minimumEnrolmentSpeech, !result.centroids[best].isEmpty
        else {
            let seconds = spoken.max() ?? 0
            throw DiarizationError(
                .invalidInput,
                String(format: "the sample holds %.1f s of one person's speech; ", seconds)
                    + "enrol with at least \(Int(Self.minimumEnrolmentSpeech)) s (10–30 s is best)")
        }
        return Voiceprint(name: name, vector: result.centroids[best], speechSeconds: spoken[best])
    }

    // MARK: Steps

    private func speechRegions(_ samples: [Float]) throws(DiarizationError) -> [Range<Int>]? {
        switch speechDetection {
        case .energy:
            return nil
        case .silero(let options):
            do {
                let detector = try VoiceActivityDetector(
                    modelPath: options.modelPath ?? modelHome.voiceActivityModel)
                return try detector.speechRanges(in: samples, options: options)
            } catch {
                throw DiarizationError(.speechDetectionFailed, error.message, underlying: error)
            }
        }
    }

    /// Segments and words in seconds, words with a leading space where the language separates words by spaces.
    static func timed(_ transcript: Transcript) -> [TimedSegment] {
        let spaced = !unspacedLanguages.contains(transcript.language)
        return transcript.segments.map { segment in
            TimedSegment(
                start: Double(segment.startMs) / 1000, end: Double(segment.endMs) / 1000, text: segment.text,
                words: segment.words.map {
                    TimedWord(
                        start: Double($0.startMs) / 1000, end: Double($0.endMs) / 1000,
                        text: spaced ? " " + $0.text : $0.text)
                })
        }
    }

    /// Languages written without spaces between words.
    static let unspacedLanguages: Set<String> = ["zh", "ja", "th", "lo", "my", "km", "yue", "bo"]

    /// Speaker number → enrolled name, for the confident matches. Pairs are taken best first; each voiceprint and
    /// each speaker is used once.
    static func names(_ result: DiarizationResult, options: Options) -> [Int: String] {
        var pairs: [(speaker: Int, name: String, score: Float)] = []
        for (index, centroid) in result.centroids.enumerated() where !centroid.isEmpty {
            for voiceprint in options.voiceprints where voiceprint.vector.count == centroid.count {
                let score = voiceprint.similarity(to: centroid)
                if score >= options.voiceprintThreshold { pairs.append((index + 1, voiceprint.name, score)) }
            }
        }
        var names: [Int: String] = [:]
        var used: Set<String> = []
        for pair in pairs.sorted(by: { $0.score > $1.score })
        where names[pair.speaker] == nil && !used.contains(pair.name) {
            names[pair.speaker] = pair.name
            used.insert(pair.name)
        }
        return names
    }

    /// The transcript's segments replaced by the diarized ones (original times, texts and scores where a segment
    /// was not split; the words' times and texts where it was).
    static func merge(
        _ result: DiarizationResult, into transcript: Transcript, names: [Int: String], options: Options
    ) -> Transcript {
        guard !result.turns.isEmpty else { return transcript }
        let spaced = !unspacedLanguages.contains(transcript.language)
        var parts: [Int: Int] = [:]
        for segment in result.segments { parts[segment.sourceIndex, default: 0] += 1 }
        var wordOffset: [Int: Int] = [:]
        var out: [Transcript.Segment] = []
        for part in result.segments {
            let source = transcript.segments[part.sourceIndex]
            let offset = wordOffset[part.sourceIndex, default: 0]
            let words = Array(source.words[offset..<min(source.words.count, offset + part.words.count)])
            wordOffset[part.sourceIndex] = offset + part.words.count
            let whole = parts[part.sourceIndex] == 1
            let text = whole ? source.text : words.map(\.text).joined(separator: spaced ? " " : "")
            out.append(
                Transcript.Segment(
                    speaker: names[part.speaker] ?? part.label,
                    startMs: whole ? source.startMs : Int((part.start * 1000).rounded()),
                    endMs: whole ? source.endMs : Int((part.end * 1000).rounded()),
                    text: text.trimmingCharacters(in: .whitespaces), words: options.keepWords ? words : [],
                    noSpeechProbability: source.noSpeechProbability,
                    averageLogProbability: source.averageLogProbability))
        }
        var merged = transcript
        merged.segments = out
        return merged
    }

    /// Runs `body` on a global dispatch queue.
    private func offPool<T: Sendable>(
        _ body: @escaping @Sendable () throws(DiarizationError) -> T
    ) async throws(DiarizationError) -> T {
        let result: Result<T, DiarizationError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(DiarizationError) in try body() })
            }
        }
        return try result.get()
    }
}
