extension APIPath {
    /// `POST` (partner or user token): score records' transcripts against reference texts (a perfusion evaluation);
    /// `GET`: the caller's evaluations, newest first.
    public static let evaluations = "/open/partner/evaluations"
    /// `GET`: one evaluation's scores; `DELETE`: delete it.
    public static let evaluation = "/open/partner/evaluations/{evaluation_id}"
    /// `GET`: the evaluation's HTML report (the same report as `earshot eval --html`).
    public static let evaluationReport = "/open/partner/evaluations/{evaluation_id}/report"
}

/// `POST /open/partner/evaluations`: score the transcripts of some records against what was really said.
///
/// Each clip names a record with a transcript and its reference text: one sentence per line, or
/// `speaker<TAB>text` on every line for a speaker-attributed reference (then cpWER is scored too).
public struct EvaluationCreateRequest: Codable, Sendable, Hashable {
    /// The report's title (default "Perfusion evaluation" and the date).
    public var title: String?
    /// Normalisation rules: `en` or `zh` (default: the first record's transcript language when it is one of them,
    /// else `en`).
    public var language: String?
    /// 1–200 clips, each record at most once.
    public var clips: [EvaluationClip]

    public init(title: String? = nil, language: String? = nil, clips: [EvaluationClip]) {
        self.title = title
        self.language = language
        self.clips = clips
    }
}

/// One record of an evaluation and its reference text.
public struct EvaluationClip: Codable, Sendable, Hashable {
    public var recordID: String
    /// What was said (at most 200,000 characters).
    public var reference: String

    public init(recordID: String, reference: String) {
        self.recordID = recordID
        self.reference = reference
    }

    enum CodingKeys: String, CodingKey {
        case reference
        case recordID = "record_id"
    }
}

/// An evaluation's scores (the report has the sentence-by-sentence detail).
public struct EvaluationItem: Codable, Sendable, Hashable {
    public var evaluationID: String
    public var userID: String?
    public var title: String
    /// Normalisation rules used: `en` or `zh`.
    public var language: String
    public var createdAtMs: Int64
    /// Word error rate over every clip ((S + D + I) / reference words).
    public var wer: Double
    /// Character error rate.
    public var cer: Double
    /// Word accuracy, 1 − WER floored at 0.
    public var accuracy: Double
    public var referenceWords: Int
    public var substitutions: Int
    public var deletions: Int
    public var insertions: Int
    /// Concatenated minimum-permutation WER, when every reference was speaker-attributed.
    public var cpWER: Double?
    /// The models that made the transcripts (from each record's last transcription task).
    public var models: [String]
    public var clips: [EvaluationClipScore]

    public init(
        evaluationID: String, userID: String?, title: String, language: String, createdAtMs: Int64, wer: Double,
        cer: Double, accuracy: Double, referenceWords: Int, substitutions: Int, deletions: Int, insertions: Int,
        cpWER: Double?, models: [String], clips: [EvaluationClipScore]
    ) {
        self.evaluationID = evaluationID
        self.userID = userID
        self.title = title
        self.language = language
        self.createdAtMs = createdAtMs
        self.wer = wer
        self.cer = cer
        self.accuracy = accuracy
        self.referenceWords = referenceWords
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
        self.cpWER = cpWER
        self.models = models
        self.clips = clips
    }

    enum CodingKeys: String, CodingKey {
        case title, language, wer, cer, accuracy, substitutions, deletions, insertions, models, clips
        case evaluationID = "evaluation_id"
        case userID = "user_id"
        case createdAtMs = "created_at_ms"
        case referenceWords = "reference_words"
        case cpWER = "cp_wer"
    }
}

/// One clip's scores in an evaluation.
public struct EvaluationClipScore: Codable, Sendable, Hashable {
    public var recordID: String
    /// The record's title when the evaluation ran.
    public var name: String
    public var wer: Double
    public var referenceWords: Int

    public init(recordID: String, name: String, wer: Double, referenceWords: Int) {
        self.recordID = recordID
        self.name = name
        self.wer = wer
        self.referenceWords = referenceWords
    }

    enum CodingKeys: String, CodingKey {
        case name, wer
        case recordID = "record_id"
        case referenceWords = "reference_words"
    }
}

/// `GET /open/partner/evaluations`.
public struct EvaluationList: Codable, Sendable, Hashable {
    public var evaluations: [EvaluationItem]

    public init(evaluations: [EvaluationItem]) {
        self.evaluations = evaluations
    }
}
