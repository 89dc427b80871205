public import EarshotStore
import Foundation

/// Full-text search over records: titles, tags and transcript sentences, one row each, in two SQLite FTS5
/// tables that share rowids (migration 7):
///
/// - `record_search`, trigram tokenizer: any substring of three or more characters in any script (Chinese has no
///   spaces between words), case-insensitive;
/// - `record_search_chars`, unicode61 over the same text with every Chinese/Japanese character and every pair of
///   adjacent ones as tokens: one- and two-character terms (`会`, `发布`) are single-token lookups; short Latin
///   terms match words.
///
/// A query is split on whitespace into terms; a record matches when every term occurs somewhere in it (title,
/// tags or any sentence). Each table answers its terms (`"t1" OR "t2"`) with the newest ``candidateRows``
/// matching rows, so the cost is bounded however common a term is; the rows are ranked by bm25 and grouped by
/// record, records holding all terms in one row first. Ranking is exact when the query matches at most
/// ``candidateRows`` rows; beyond that the most recent matches are ranked. See docs/records.md.
///
/// On PostgreSQL (no FTS5) the rows live in one table, `record_search`, with the text lower-cased in `folded` under a
/// `pg_trgm` GIN index: each term is a `folded LIKE '%term%'`, which the trigram index answers for terms of three or
/// more characters in any script (CJK included, in a UTF-8 database with a non-C `LC_CTYPE`); one- and
/// two-character terms are checked by the same `LIKE` over the tenant's rows. Matching is the same (every term a
/// case-insensitive substring of the record); rows are ranked by how many terms they hold, then by shortness, instead
/// of bm25. See docs/scale-out.md.
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
        /// Relevance, higher is better: the negated bm25 of the record's best row.
        public var score: Double
        public var matches: [Match]
    }

    /// At most this many rows are read per table and query (the newest matching ones).
    public static let candidateRows = 500
    /// Records whose rows found so far lack a term get their other rows checked, at most this many per query.
    static let coverageChecks = 100
    /// Records checked per statement.
    static let coverageBatch = 20
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
        if db.dialect == .postgresql {
            for (body, field, startMs) in rows {
                try db.execute(
                    "INSERT INTO record_search (record_id, field, start_ms, body, folded) VALUES (?, ?, ?, ?, ?)",
                    [.text(recordID), .text(field), startMs, .text(body), .text(body.lowercased())])
            }
            return
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
            try db.execute(
                "INSERT INTO record_search_chars (rowid, body) VALUES (?, ?)", [.integer(rowid), .text(spaced(body))])
        }
    }

    /// Removes every row of `recordID`.
    public static func remove(_ db: any SQLDatabase, recordID: String) throws {
        if db.dialect == .postgresql {
            try db.execute("DELETE FROM record_search WHERE record_id = ?", recordID)
            return
        }
        for table in ["record_search", "record_search_chars"] {
            try db.execute(
                "DELETE FROM \(table) WHERE rowid IN (SELECT search_rowid FROM record_search_rows WHERE record_id = ?)",
                recordID)
        }
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

    /// Characters written without spaces between words (CJK ideographs, kana), which get one token each in
    /// `record_search_chars`.
    static func isSpacedOut(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
        default: false
        }
    }

    /// The text indexed in `record_search_chars`: `text` with every ``isSpacedOut(_:)`` character as a token of
    /// its own, followed by each pair of adjacent such characters as a token (`发布会` → `发 布 会 发布 布会`),
    /// so a one- or two-character term is a single-token lookup.
    static func spaced(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var bigrams = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            if isSpacedOut(scalar) {
                out.append(" ")
                out.append(scalar)
                out.append(" ")
                if let previous {
                    bigrams.append(" ")
                    bigrams.append(previous)
                    bigrams.append(scalar)
                }
                previous = scalar
            } else {
                out.append(scalar)
                previous = nil
            }
        }
        return String(out) + " " + String(bigrams)
    }

    /// `term` as an FTS5 string (a quoted token or phrase).
    private static func phrase(_ term: String) -> String {
        "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The records of `scope` matching every term of `query`, best first, skipping `offset` and returning at
    /// most `limit` (plus whether more exist).
    public static func search(
        _ db: any SQLDatabase, query: String, scope: Scope, limit: Int, offset: Int = 0
    ) throws -> (hits: [Hit], more: Bool) {
        let terms = terms(query)
        guard !terms.isEmpty else { return ([], false) }
        let long = terms.filter(isIndexable)
        let short = terms.filter { !isIndexable($0) }
        var byRowid: [Int64: Row] = [:]
        func collect(_ sql: String, _ match: String) throws {
            try db.forEachRow(
                sql,
                [
                    .text(match), .text(scope.partnerID), scope.userID.sqlValue, scope.userID.sqlValue,
                    .integer(Int64(candidateRows)),
                ]
            ) { sqlRow in
                let row = try Row(sqlRow)
                if let seen = byRowid[row.rowid], seen.score <= row.score { return }
                byRowid[row.rowid] = row
            }
        }
        // CROSS JOIN keeps the FTS table as the outer loop (rowid order, stopping at the limit); the planner would
        // otherwise drive the character table's join from `records`.
        let scoped = "AND r.partner_id = ? AND (? IS NULL OR r.user_id = ?)"
        let postgres = db.dialect == .postgresql
        if postgres {
            // Every term as a substring of the lower-cased text (the trigram index serves terms of 3+ characters).
            // A short term written with spaces (Latin) matches a whole word, as SQLite's unicode61 tokens do.
            let words = Set(short.filter { !$0.unicodeScalars.allSatisfy(isSpacedOut) })
            let conditions = terms.map { words.contains($0) ? "s.folded ~ ?" : "s.folded LIKE ? ESCAPE '!'" }
            try db.forEachRow(
                "SELECT s.search_rowid AS rowid, s.record_id, s.field, s.start_ms, s.body, 0.0 AS score "
                    + "FROM record_search s JOIN records r ON r.id = s.record_id "
                    + "WHERE (\(conditions.joined(separator: " OR "))) \(scoped) "
                    + "ORDER BY s.search_rowid DESC LIMIT ?",
                terms.map { words.contains($0) ? .text(wordPattern($0)) : .text("%" + likePattern($0) + "%") }
                    + [
                        .text(scope.partnerID), scope.userID.sqlValue, scope.userID.sqlValue,
                        .integer(Int64(candidateRows)),
                    ]
            ) { sqlRow in
                let row = try Row(sqlRow, rankedAmong: terms)
                byRowid[row.rowid] = row
            }
        }
        if !long.isEmpty && !postgres {
            try collect(
                "SELECT s.rowid AS rowid, s.record_id, s.field, s.start_ms, s.body, bm25(record_search) AS score "
                    + "FROM record_search s CROSS JOIN records r ON r.id = s.record_id "
                    + "WHERE record_search MATCH ? \(scoped) ORDER BY s.rowid DESC LIMIT ?",
                long.map(phrase).joined(separator: " OR "))
        }
        if !short.isEmpty && !postgres {
            try collect(
                "SELECT c.rowid AS rowid, s.record_id, s.field, s.start_ms, s.body, "
                    + "bm25(record_search_chars) AS score FROM record_search_chars c "
                    + "CROSS JOIN record_search s ON s.rowid = c.rowid CROSS JOIN records r ON r.id = s.record_id "
                    + "WHERE record_search_chars MATCH ? \(scoped) ORDER BY c.rowid DESC LIMIT ?",
                short.map(phrase).joined(separator: " OR "))
        }
        let rows = byRowid.values.sorted { $0.score != $1.score ? $0.score < $1.score : $0.rowid > $1.rowid }
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
        // A term may sit in a row the candidates did not include (another sentence, or beyond the newest
        // candidateRows): look at the other rows of the best partially matching records, a batch at a time, until
        // the page is full.
        if terms.count > 1 {
            let partial = order.filter { records[$0]!.covered.count < terms.count }.prefix(coverageChecks)
            var complete = order.filter { records[$0]!.covered.count == terms.count }.count
            for batch in stride(from: partial.startIndex, to: partial.endIndex, by: coverageBatch) {
                guard complete <= offset + limit else { break }
                let ids = Array(partial[batch..<min(batch + coverageBatch, partial.endIndex)])
                try db.forEachRow(
                    postgres
                        ? "SELECT search_rowid AS rowid, record_id, field, start_ms, body, 0.0 AS score "
                            + "FROM record_search WHERE record_id IN (SELECT json_array_elements_text(?::json))"
                        : "SELECT rowid, record_id, field, start_ms, body, 0.0 AS score FROM record_search "
                            + "WHERE rowid IN (SELECT search_rowid FROM record_search_rows WHERE record_id IN "
                            + "(SELECT value FROM json_each(?)))",
                    [.text("[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]")]
                ) { sqlRow in
                    let row = try Row(sqlRow)
                    let found = row.terms(among: terms)
                    if !found.isEmpty { records[row.recordID]?.add(row, found: found) }
                }
                complete += ids.filter { records[$0]!.covered.count == terms.count }.count
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

    private struct Row {
        let rowid: Int64
        let recordID: String
        let field: String
        let startMs: Int?
        let body: String
        var score: Double

        init(_ row: SQLRow) throws {
            rowid = try row.decode("rowid")
            recordID = try row.decode("record_id")
            field = try row.decode("field")
            startMs = try row.decode("start_ms", as: Int?.self)
            body = try row.decode("body")
            score = try row.decode("score")
        }

        /// A row of the PostgreSQL search, scored like bm25's sign (lower is better): more of `terms`, then
        /// shorter text, first.
        init(_ row: SQLRow, rankedAmong terms: [String]) throws {
            try self.init(row)
            let held = Double(self.terms(among: terms).count)
            score = -(held + 1 / Double(max(body.unicodeScalars.count, 1) + 1))
        }

        /// The (lower-cased) terms this row contains, compared as the trigram tokenizer folds case.
        /// Compares UTF-8 bytes: a byte-wise search is ~10× faster here than `String.contains`, which walks
        /// grapheme clusters (measured on 100,000 records: 500 rows took ~50 ms that way).
        func terms(among terms: [String]) -> [String] {
            let folded = Array(body.lowercased().utf8)
            return terms.filter { RecordSearch.contains(folded, Array($0.utf8)) }
        }
    }

    /// A POSIX regular expression matching `term` as a whole word (between non-alphanumeric characters).
    static func wordPattern(_ term: String) -> String {
        var escaped = ""
        for character in term {
            if "\\^$.|?*+()[]{}".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return "(^|[^[:alnum:]])" + escaped + "([^[:alnum:]]|$)"
    }

    /// `term` with LIKE's wildcards escaped (escape character `!`).
    static func likePattern(_ term: String) -> String {
        var out = ""
        for character in term {
            if character == "%" || character == "_" || character == "!" { out.append("!") }
            out.append(character)
        }
        return out
    }

    /// Whether `needle` occurs in `haystack` (naive search: rows are a sentence long).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var offset = 1
                while offset < needle.count && haystack[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            index += 1
        }
        return false
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
            guard !rows.contains(where: { $0.row.rowid == row.rowid }) else { return }
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
