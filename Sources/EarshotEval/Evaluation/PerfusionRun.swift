public import Foundation

/// The perfusion test: every audio file in a directory goes through a ``Recognizer`` and is scored against the
/// reference text with the same stem (and, when given, the RTTM speaker turns with the same stem).
///
/// Files run one after another so the timing figures (elapsed, real-time factor) are not distorted by each other.
public struct PerfusionRun: Sendable {
    /// Audio extensions that are paired with references.
    public static let audioExtensions: Set<String> = ["wav", "mp3", "m4a", "aac", "flac", "ogg", "opus", "webm", "raw"]

    /// A file that could not be recognised.
    public struct Failure: Sendable, Hashable {
        public var name: String
        public var message: String
    }

    /// The scored run.
    public struct Outcome: Sendable {
        /// Scores, report and JSON of the files that were recognised.
        public var result: EvaluationResult
        /// Files whose recognition failed (refused WAVs, corrupt files…), with the reason.
        public var failures: [Failure]
        /// Warnings per file name.
        public var warnings: [String: [String]]
    }

    public let evaluation: TextEvaluation

    public init(evaluation: TextEvaluation) {
        self.evaluation = evaluation
    }

    /// Pairs `audio` with `references` (and `rttm`) by name, recognises each file and scores the lot.
    ///
    /// - Throws: ``EvalError`` when the directories cannot be read or files are unpaired; recognition failures
    ///   are reported in ``Outcome/failures`` instead.
    public func run(
        audio: URL, references: URL, rttm: URL? = nil, recognizer: some Recognizer, conditions: TestConditions,
        title: String = "Earshot perfusion report"
    ) async throws -> Outcome {
        let pairs = try ReferenceFiles.pair(audio, extensions: Self.audioExtensions, with: references)
        var turnsByRecording: [String: [SpeakerTurn]] = [:]
        if let rttm {
            let withTurns = try ReferenceFiles.pair(
                audio, extensions: Self.audioExtensions, with: rttm, extensions: ["rttm"], allowUnpaired: true)
            for pair in withTurns {
                turnsByRecording[pair.name] = try RTTM.read(pair.second)
            }
        }
        var documents: [TextEvaluation.Document] = []
        var failures: [Failure] = []
        var warnings: [String: [String]] = [:]
        var elapsed = Duration.zero
        var audioLength = Duration.zero
        var formats: Set<String> = []
        for pair in pairs {
            try Task.checkCancellation()
            let recognized: RecognizedFile
            do {
                recognized = try await recognizer.recognize(pair.first)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failures.append(Failure(name: pair.name, message: "\(error)"))
                continue
            }
            var notes = recognized.warnings
            var turns = turnsByRecording[pair.name]
            if turns != nil, !recognized.segments.contains(where: { $0.speaker != nil }) {
                notes.append("the recogniser labelled no speakers, so this file's RTTM is not scored (no DER)")
                turns = nil
            }
            if !notes.isEmpty { warnings[pair.name] = notes }
            if let format = recognized.audioFormat { formats.insert(format) }
            elapsed += recognized.elapsed
            audioLength += recognized.audio
            // A reference whose every line is `speaker<TAB>text` is speaker-attributed: it also feeds cpWER.
            var lines = try ReferenceFiles.readLines(pair.second)
            var speakers: [SpeakerUtterance]?
            if !lines.isEmpty, lines.allSatisfy({ $0.contains("\t") }) {
                let utterances = try ReferenceFiles.speakerUtterances(of: lines.joined(separator: "\n"))
                speakers = utterances
                lines = utterances.map(\.text)
            }
            documents.append(
                TextEvaluation.Document(
                    name: pair.name, referenceLines: lines, hypothesis: recognized.segments,
                    referenceSpeakers: speakers, referenceTurns: turns))
        }
        var conditions = conditions
        if conditions.audioFormat == nil, !formats.isEmpty {
            conditions.audioFormat = formats.sorted().joined(separator: "; ")
        }
        let result = evaluation.evaluate(
            documents, conditions: conditions, timing: Timing(elapsed: elapsed, audio: audioLength), title: title)
        return Outcome(result: result, failures: failures, warnings: warnings)
    }
}
