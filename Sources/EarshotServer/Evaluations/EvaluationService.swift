import EarshotAPI
import EarshotCore
import EarshotEval
import EarshotHTTP
import EarshotStore
import Foundation

/// Perfusion evaluations in the platform: a user's records (reference clips uploaded and transcribed like any other
/// recording) scored against what was really said, with the same scorer and HTML report as `earshot eval`
/// (EarshotEval). Scoring is pure computation on stored transcripts, so it runs in the request; the scores and the
/// report are kept in `evaluations` until deleted, even if the records go (docs/eval.md).
struct EvaluationService: Sendable {
    let metadata: any MetadataStore
    let records: RecordsService
    var now: @Sendable () -> Int64 = JobQueue.wallClock

    /// At most this many clips per evaluation, and reference characters per clip and in all.
    static let maximumClips = 200
    static let maximumReferenceCharacters = 200_000
    static let maximumTotalReferenceCharacters = 2_000_000

    /// Scores the clips and keeps the result. Records another caller cannot see are 404 `NOT_FOUND`; records
    /// without a transcript yet are 409 `CONFLICT`, naming them.
    func create(for caller: Principal, _ request: EvaluationCreateRequest) async throws -> EvaluationItem {
        guard (1...Self.maximumClips).contains(request.clips.count) else {
            throw PlatformError.invalidArgument("clips must hold 1 to \(Self.maximumClips) records")
        }
        guard Set(request.clips.map(\.recordID)).count == request.clips.count else {
            throw PlatformError.invalidArgument("each record may appear once in clips")
        }
        var total = 0
        for clip in request.clips {
            let length = clip.reference.count
            total += length
            guard clip.reference.contains(where: { !$0.isWhitespace }) else {
                throw PlatformError.invalidArgument("the reference of \(clip.recordID) is empty")
            }
            guard length <= Self.maximumReferenceCharacters else {
                throw PlatformError.invalidArgument(
                    "the reference of \(clip.recordID) is over \(Self.maximumReferenceCharacters) characters")
            }
        }
        guard total <= Self.maximumTotalReferenceCharacters else {
            throw PlatformError.invalidArgument(
                "the references are over \(Self.maximumTotalReferenceCharacters) characters in all")
        }
        let title = try RecordsService.title(request.title)
        var language: TextNormalizer.Language?
        if let code = request.language {
            guard let parsed = TextNormalizer.Language(rawValue: code) else {
                throw PlatformError.invalidArgument("language must be en or zh, not \"\(code.prefix(16))\"")
            }
            language = parsed
        }

        var documents: [TextEvaluation.Document] = []
        var pending: [String] = []
        var names: [String: String] = [:]
        var models: Set<String> = []
        for clip in request.clips {
            let row = try await records.record(for: caller, id: clip.recordID)
            guard let transcript = try row.transcript() else {
                pending.append(row.id)
                continue
            }
            if language == nil { language = TextNormalizer.Language(rawValue: transcript.language) ?? .english }
            var lines = clip.reference.split(whereSeparator: \.isNewline).map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            var speakers: [SpeakerUtterance]?
            if lines.allSatisfy({ $0.contains("\t") }) {
                do {
                    speakers = try ReferenceFiles.speakerUtterances(of: lines.joined(separator: "\n"))
                } catch {
                    throw PlatformError.invalidArgument("the reference of \(clip.recordID): \(error.message)")
                }
                lines = speakers!.map(\.text)
            }
            let labels = row.speakerNames
            documents.append(
                TextEvaluation.Document(
                    name: row.id, referenceLines: lines,
                    hypothesis: transcript.segments.map {
                        HypothesisSegment(
                            text: $0.text, speaker: $0.speaker.map { labels[$0] ?? $0 }, startMilliseconds: $0.startMs,
                            endMilliseconds: $0.endMs)
                    },
                    referenceSpeakers: speakers))
            names[row.id] = row.title
            if let model = try await lastTranscriptionModel(of: row.id) { models.insert(model) }
        }
        guard pending.isEmpty else {
            throw PlatformError.conflict(
                "these records have no transcript yet (wait for their transcription, or run task_type 0): "
                    + pending.joined(separator: ", "))
        }
        let rules = language ?? .english
        let created = now()
        let reportTitle = title ?? "Perfusion evaluation " + Self.day(created)
        let conditions = TestConditions(
            model: models.isEmpty ? nil : models.sorted().joined(separator: ", "),
            settings: ["normalisation": rules.rawValue, "source": "stored transcripts of the records"])
        let result = TextEvaluation(configuration: .init(language: rules)).evaluate(
            documents, conditions: conditions, title: reportTitle)
        let id = Identifier.make(prefix: "evl")
        let item = EvaluationItem(
            evaluationID: id, userID: caller.userID, title: reportTitle, language: rules.rawValue,
            createdAtMs: created, wer: result.wordErrorRate, cer: result.characterErrorRate,
            accuracy: result.accuracy, referenceWords: result.words.referenceLength,
            substitutions: result.words.substitutions, deletions: result.words.deletions,
            insertions: result.words.insertions, cpWER: result.permutationWER?.errorRate,
            models: models.sorted(),
            clips: result.documents.map {
                EvaluationClipScore(
                    recordID: $0.name, name: names[$0.name] ?? $0.name, wer: $0.words.errorRate,
                    referenceWords: $0.words.referenceLength)
            })
        let scores = try RecordsService.json(item)
        let report = HTMLReport(result: result).render()
        let partnerID = caller.partnerID
        try await metadata.write { db in
            _ = try db.execute(
                "INSERT INTO evaluations (id, partner_id, user_id, scores, report, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                id, partnerID, item.userID, scores, report, created)
        }
        return item
    }

    /// The caller's evaluations, newest first (a partner token sees its users' too, or one user's with `userID`).
    func list(for caller: Principal, userID: String?, limit: Int?) async throws -> EvaluationList {
        let limit = try RecordsService.limit(limit)
        let user = caller.userID ?? userID
        let rows = try await metadata.read { db in
            try db.query(
                "SELECT scores FROM evaluations WHERE partner_id = ? AND (? IS NULL OR user_id = ?) "
                    + "ORDER BY created_at DESC, id DESC LIMIT ?",
                caller.partnerID, user, user, limit
            ).map { try $0.decode("scores", as: String.self) }
        }
        return EvaluationList(evaluations: try rows.map(Self.item))
    }

    func item(for caller: Principal, id: String) async throws -> EvaluationItem {
        try Self.item(try await column("scores", for: caller, id: id))
    }

    /// The HTML report, served with a policy that lets it style itself and nothing else, sandboxed (no script, an
    /// opaque origin) and frameable only by the console on the same origin.
    func report(for caller: Principal, id: String) async throws -> Response {
        let html = try await column("report", for: caller, id: id)
        return Response(
            status: .ok,
            headers: [
                "Content-Type": "text/html; charset=utf-8",
                "Content-Security-Policy":
                    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'self'",
                "X-Content-Type-Options": "nosniff", "Cache-Control": "private, no-cache",
            ], body: .bytes(Array(html.utf8)))
    }

    func delete(for caller: Principal, id: String) async throws {
        _ = try await column("id", for: caller, id: id)
        try await metadata.write { db in _ = try db.execute("DELETE FROM evaluations WHERE id = ?", id) }
    }

    /// Deletes every evaluation of a user (account deletion).
    static func deleteAll(_ db: any SQLDatabase, partnerID: String, userID: String) throws {
        _ = try db.execute("DELETE FROM evaluations WHERE partner_id = ? AND user_id = ?", partnerID, userID)
    }

    // MARK: Helpers

    /// `name` of evaluation `id` if `caller` may see it; otherwise 404 exactly like a missing one.
    private func column(_ name: String, for caller: Principal, id: String) async throws -> String {
        guard Identifier.isValid(id, prefix: "evl"),
            let value = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT \(name) FROM evaluations WHERE id = ? AND partner_id = ? AND (? IS NULL OR user_id = ?)",
                    id, caller.partnerID, caller.userID, caller.userID
                ).map { try $0.decode(name, as: String.self) }
            })
        else { throw PlatformError.notFound("no evaluation \(id)") }
        return value
    }

    /// The model of the record's most recent transcription task, if any.
    private func lastTranscriptionModel(of recordID: String) async throws -> String? {
        try await metadata.read { db in
            try db.queryFirst(
                "SELECT model FROM record_tasks WHERE record_id = ? AND task_type = 0 AND model IS NOT NULL "
                    + "ORDER BY created_at DESC LIMIT 1", recordID
            ).map { try $0.decode("model", as: String.self) }
        }
    }

    private static func item(_ json: String) throws -> EvaluationItem {
        try JSONDecoder().decode(EvaluationItem.self, from: Data(json.utf8))
    }

    /// `2026-12-01` of Unix milliseconds (UTC).
    private static func day(_ milliseconds: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    static let schema = SchemaComponent(
        "evaluations",
        [
            Migration(
                version: 1, name: "evaluations",
                sql: """
                    -- A perfusion evaluation (docs/eval.md): scores is the EvaluationItem JSON, report the HTML
                    -- report. They are copies: deleting a scored record leaves its evaluations as they were.
                    CREATE TABLE evaluations (
                        id         TEXT PRIMARY KEY,
                        partner_id TEXT NOT NULL REFERENCES partners (id),
                        user_id    TEXT,
                        scores     TEXT NOT NULL,
                        report     TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX evaluations_partner_time ON evaluations (partner_id, user_id, created_at DESC);
                    """,
                postgresql: """
                    CREATE TABLE evaluations (
                        id         TEXT PRIMARY KEY,
                        partner_id TEXT NOT NULL REFERENCES partners (id),
                        user_id    TEXT,
                        scores     TEXT NOT NULL,
                        report     TEXT NOT NULL,
                        created_at BIGINT NOT NULL
                    );
                    CREATE INDEX evaluations_partner_time ON evaluations (partner_id, user_id, created_at DESC);
                    """)
        ])
}
