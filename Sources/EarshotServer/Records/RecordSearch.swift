public import EarshotStore
import Foundation

/// Full-text search over records: titles, tags and transcript sentences in one SQLite FTS5 table with the
/// trigram tokenizer (`record_search`, migration 7), so substrings are found in any script — Chinese has no
/// spaces between words — and results are ranked by bm25.
///
/// A query is split on whitespace into terms; a record matches when every term occurs somewhere in it (title,
/// tags or any sentence). Terms of three or more characters go through the FTS5 index (`"term" OR …`, ranked);
/// trigrams cannot index shorter strings, so a query made only of one- or two-character terms (`会`, `发布`) is
/// answered by a `LIKE` scan of the caller's rows, newest first, and a short term next to long ones is checked
/// against the candidates the long terms found. See docs/records.md for the trade-offs.
///
/// Public so `Benchmarks/records` measures this exact query path; everything runs inside a caller-provided
/// ``SQLDatabase`` transaction.
public struct RecordSearch: Sendable {
    /// Whose records a search covers: the tenant's, or only one user's.
    public struct Scope: Sendable, Hashable {
        public var partnerID: String
        public var userID: String?

        public init(partnerID: String, userID: String?) {
            self.partnerID = partnerID
            self.userID = userID
        }
    }

    /// Where a query matched.
    public struct Match: Sendable, Hashable {
        /// `title`, `tags` or `transcript`.
        public var field: String
        /// Start of the sentence (transcript matches).
        public var startMs: Int?
        /// HTML-escaped text around the hits, hits wrapped in `<em>`…`</em>`.
        public var snippet: String
    }

    /// One record found, best matches first.
    public struct Hit: Sendable, Hashable {
        public var recordID: String
        /// Relevance, higher is better: the negated bm25 of the record's best row (0 on the short-query path).
        public var score: Double
        public var matches: [Match]
    }

    /// At most this many rows are read per query (the best by bm25 for indexed terms, the newest for the scan).
    public static let candidateRows = 5000
    /// The longest query accepted, in characters, and the most terms.
    public static let maxQueryLength = 256
    public static let maxTerms = 8

    /// Makes `recordID`'s rows match `title`, `tags` and `sentences` (replacing what was indexed before).
    public static func index(
        _ db: any SQLDatabase, recordID: String, title: String, tags: [String],
        sentences: [(startMs: Int, text: String)]
    ) throws {
        try remove(db, recordID: recordID)
        var rows: [(String, String, SQLValue)] = [(title, "title", .null)]
        if !tags.isEmpty { rows.append((tags.joined(separator: " · "), "tags", .null)) }
        for sentence in sentences where !sentence.text.isEmpty {
            rows.append((sentence.text, "transcript", .integer(Int64(sentence.startMs))))
        }
        for (body, field, startMs) in rows {
            guard
                let rowid = try db.scalar(
                    "INSERT INTO record_search_rows (record_id) VALUES (?) RETURNING search_rowid", recordID,
                    as: Int64.self)
            else { throw StoreError(.database, "record_search_rows returned no rowid") }
            try db.execute(
                "INSERT INTO record_search (rowid, body, record_id, field, start_ms) VALUES (?, ?, ?, ?, ?)",
                [.integer(rowid), .text(body), .text(recordID), .text(field), startMs])
        }
    }

    /// Removes every row of `recordID`.
    public static func remove(_ db: any SQLDatabase, recordID: String) throws {
        try db.execute(
            "DELETE FROM record_search WHERE rowid IN "
                + "(SELECT search_rowid FROM record_search_rows WHERE record_id = ?)", recordID)
        try db.execute("DELETE FROM record_search_rows WHERE record_id = ?", recordID)
    }

    /// The terms of `query`: whitespace-separated, lower-cased, duplicates dropped, in order.
    public static func terms(_ query: String) -> [String] {
        var seen = Set<String>()
        return query.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init).filter {
            seen.insert($0).inserted
        }
    }

    /// Whether a term can use the trigram index.
    static func isIndexable(_ term: String) -> Bool { term.unicodeScalars.count >= 3 }

    /// The records of `scope` matching every term of `query`, best first, skipping `offset` and returning at
    /// most `limit` (plus whether more exist).
    public static func search(
        _ db: any SQLDatabase, query: String, scope: Scope, limit: Int, offset: Int = 0
    ) throws -> (hits: [Hit], more: Bool) {
        let terms = terms(query)
        guard !terms.isEmpty else { return ([], false) }
        let indexed = terms.filter(isIndexable)
        var rows: [Row] = []
        if indexed.isEmpty {
            rows = try scan(db, terms: terms, scope: scope)
        } else {
            let match = indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
                .joined(separator: " OR ")
            try db.forEachRow(
                "SELECT s.record_id, s.field, s.start_ms, s.body, bm25(record_search) AS score "
                    + "FROM record_search s JOIN records r ON r.id = s.record_id "
                    + "WHERE record_search MATCH ? AND r.partner_id = ? AND (? IS NULL OR r.user_id = ?) "
                    + "ORDER BY score LIMIT ?",
                [
                    .text(match), .text(scope.partnerID), scope.userID.sqlValue, scope.userID.sqlValue,
                    .integer(Int64(candidateRows)),
                ]
            ) { rows.append(try Row($0)) }
        }
        var records: [String: Aggregate] = [:]
        var order: [String] = []
        for (position, row) in rows.enumerated() {
            let found = row.terms(among: terms)
            guard !found.isEmpty else { continue }
            if records[row.recordID] == nil {
                records[row.recordID] = Aggregate(first: position, score: row.score)
                order.append(row.recordID)
            }
            records[row.recordID]!.add(row, found: found)
        }
        // A short term next to long ones may sit in a sentence the long terms did not match: look at the rest of
        // those records before dropping them.
        if !indexed.isEmpty, indexed.count < terms.count {
            for id in order where records[id]!.covered.count < terms.count {
                try db.forEachRow(
                    "SELECT record_id, field, start_ms, body, 0.0 AS score FROM record_search WHERE rowid IN "
                        + "(SELECT search_rowid FROM record_search_rows WHERE record_id = ?)",
                    [.text(id)]
                ) { sqlRow in
                    let row = try Row(sqlRow)
                    let found = row.terms(among: terms)
                    if !found.isEmpty { records[id]!.add(row, found: found) }
                }
            }
        }
        let ranked = order.compactMap { id -> (String, Aggregate)? in
            guard let aggregate = records[id], aggregate.covered.count == terms.count else { return nil }
            return (id, aggregate)
        }.sorted { a, b in
            if a.1.bestCoverage != b.1.bestCoverage { return a.1.bestCoverage > b.1.bestCoverage }
            return a.1.first < b.1.first
        }
        let page = ranked.dropFirst(offset).prefix(limit)
        let hits = page.map { id, aggregate in
            Hit(
                recordID: id, score: -aggregate.score,
                matches: aggregate.rows.sorted { $0.found.count > $1.found.count }.prefix(3).map {
                    Match(field: $0.row.field, startMs: $0.row.startMs, snippet: snippet($0.row.body, terms: terms))
                })
        }
        return (hits, ranked.count > offset + limit)
    }

    /// Short-query path: the caller's rows whose text contains the first term, newest records first.
    private static func scan(_ db: any SQLDatabase, terms: [String], scope: Scope) throws -> [Row] {
        var rows: [Row] = []
        let pattern =
            "%"
            + terms[0].replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        // CROSS JOIN keeps record_search as the outer loop: its record_id column has no index to join through.
        try db.forEachRow(
            "SELECT s.record_id, s.field, s.start_ms, s.body, 0.0 AS score "
                + "FROM record_search s CROSS JOIN records r ON r.id = s.record_id "
                + "WHERE s.body LIKE ? ESCAPE '\\' AND r.partner_id = ? AND (? IS NULL OR r.user_id = ?) "
                + "ORDER BY r.record_time DESC, r.id DESC LIMIT ?",
            [
                .text(pattern), .text(scope.partnerID), scope.userID.sqlValue, scope.userID.sqlValue,
                .integer(Int64(candidateRows)),
            ]
        ) { rows.append(try Row($0)) }
        return rows
    }

    private struct Row {
        let recordID: String
        let field: String
        let startMs: Int?
        let body: String
        let score: Double

        init(_ row: SQLRow) throws {
            recordID = try row.decode("record_id")
            field = try row.decode("field")
            startMs = try row.decode("start_ms", as: Int?.self)
            body = try row.decode("body")
            score = try row.decode("score")
        }

        /// The (lower-cased) terms this row contains, compared as the trigram tokenizer folds case.
        func terms(among terms: [String]) -> [String] {
            let folded = body.lowercased()
            return terms.filter { folded.contains($0) }
        }
    }

    private struct Aggregate {
        let first: Int
        let score: Double
        var covered = Set<String>()
        var bestCoverage = 0
        var rows: [(row: Row, found: [String])] = []

        init(first: Int, score: Double) {
            self.first = first
            self.score = score
        }

        mutating func add(_ row: Row, found: [String]) {
            guard !rows.contains(where: { $0.row.field == row.field && $0.row.startMs == row.startMs }) else { return }
            covered.formUnion(found)
            bestCoverage = max(bestCoverage, found.count)
            rows.append((row, found))
        }
    }

    // MARK: Snippets

    /// Characters kept before the first hit and in total.
    static let contextBefore = 24
    static let snippetLength = 96

    /// `body` cut around its first hit, HTML-escaped, every hit of any term wrapped in `<em>`…`</em>`.
    static func snippet(_ body: String, terms: [String]) -> String {
        var hits: [Range<String.Index>] = []
        for term in terms {
            var from = body.startIndex
            while from < body.endIndex,
                let range = body.range(of: term, options: [.caseInsensitive], range: from..<body.endIndex)
            {
                hits.append(range)
                from = range.upperBound
            }
        }
        hits.sort { $0.lowerBound < $1.lowerBound }
        // Merge overlapping hits.
        var merged: [Range<String.Index>] = []
        for hit in hits {
            if let last = merged.last, hit.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, hit.upperBound)
            } else {
                merged.append(hit)
            }
        }
        let firstHit = merged.first?.lowerBound ?? body.startIndex
        let start =
            body.index(firstHit, offsetBy: -contextBefore, limitedBy: body.startIndex) ?? body.startIndex
        let end = body.index(start, offsetBy: snippetLength, limitedBy: body.endIndex) ?? body.endIndex
        var out = start > body.startIndex ? "…" : ""
        var cursor = start
        for hit in merged where hit.lowerBound < end && hit.upperBound > start {
            let lower = max(hit.lowerBound, cursor)
            out += escape(body[cursor..<lower])
            out += "<em>" + escape(body[lower..<min(hit.upperBound, end)]) + "</em>"
            cursor = min(hit.upperBound, end)
        }
        out += escape(body[cursor..<end])
        return end < body.endIndex ? out + "…" : out
    }

    private static func escape(_ text: Substring) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
