import EarshotPostgres
import EarshotStore
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotServer

/// The records search with the real schema, on SQLite (FTS5 trigram + per-character table) and on PostgreSQL
/// (pg_trgm): ranking, snippets, `start_ms`, Chinese substrings, mixed English/Chinese queries, one- and
/// two-character Chinese queries, tenancy.
@Suite struct RecordsSearchTests {
    /// A migrated store (in-memory SQLite, or a new PostgreSQL database) with partners `p1`, `p2` and the records of
    /// `library`.
    static func store(_ backend: ServerTestBackend) async throws -> any MetadataStore {
        let store: any MetadataStore =
            switch backend {
            case .embedded:
                try await SQLiteMetadataStore(configuration: .init(location: .inMemory, schema: ServerSchema.components))
            case .scaled:
                try await PostgresMetadataStore(
                    configuration: .init(url: try ScaleOutBackends.newDatabase("search"), schema: ServerSchema.components))
            }
        try await store.write { db in
            for partner in ["p1", "p2"] {
                try db.execute(
                    "INSERT INTO partners (id, name, secret_hash, created_at) VALUES (?, ?, 'x', 0)", partner, partner)
            }
            for record in library { try record.insert(db) }
        }
        return store
    }

    struct Fixture: Sendable {
        var id: String
        var partner = "p1"
        var user: String? = "u1"
        var title: String
        var tags: [String] = []
        var time: Int64
        var sentences: [(startMs: Int, text: String)] = []

        func insert(_ db: any SQLDatabase) throws {
            try db.execute(
                "INSERT INTO records (id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, source, "
                    + "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 60000, 'import', 0, 0)",
                [
                    .text(id), .text(partner), user.sqlValue, .text("file_" + id), .text(title),
                    .text(try RecordsService.json(tags)), .integer(time),
                ])
            try RecordSearch.index(db, recordID: id, title: title, tags: tags, sentences: sentences)
        }
    }

    static let library: [Fixture] = [
        Fixture(
            id: "rec_budget", title: "Quarterly review", tags: ["finance"], time: 1000,
            sentences: [(0, "Good morning everyone."), (4200, "We reviewed the marketing budget for next quarter.")]),
        Fixture(
            id: "rec_split", title: "Team sync", time: 2000,
            sentences: [(0, "The budget is fine."), (7000, "Marketing wants two more people.")]),
        Fixture(id: "rec_budget_only", title: "Budget notes", time: 3000, sentences: [(0, "Only the budget here.")]),
        Fixture(
            id: "rec_launch", title: "周会记录", tags: ["产品"], time: 4000,
            sentences: [(0, "大家好。"), (12_000, "我们下周三召开产品发布会，请大家准备材料。")]),
        Fixture(
            id: "rec_iphone_zh", title: "苹果新品", time: 5000,
            sentences: [(3000, "苹果公司在 iPhone 发布会上介绍了新功能。")]),
        Fixture(
            id: "rec_iphone_split", title: "iPhone tips", time: 6000, sentences: [(9000, "明天的发布会取消了。")]),
        Fixture(id: "rec_iphone_only", title: "iPhone battery", time: 7000, sentences: [(0, "Charge it overnight.")]),
        Fixture(id: "rec_escape", title: "Q&A <session>", time: 8000),
        Fixture(
            id: "rec_other_tenant", partner: "p2", user: "u1", title: "Budget of another tenant", time: 9000,
            sentences: [(0, "我们的发布会和 marketing budget。")]),
        Fixture(
            id: "rec_other_user", user: "u2", title: "Budget of another user", time: 9500,
            sentences: [(0, "另一个用户的发布会。")]),
    ]

    /// The table with one row per indexed field or sentence: SQLite's `record_search_rows`, PostgreSQL's
    /// `record_search`.
    static func searchRows(_ db: any SQLDatabase) -> String {
        db.dialect == .postgresql ? "record_search" : "record_search_rows"
    }

    static let tenant = RecordSearch.Scope(partnerID: "p1", userID: nil)

    static func search(
        _ backend: ServerTestBackend, _ query: String, scope: RecordSearch.Scope = tenant
    ) async throws -> [RecordSearch.Hit] {
        let store = try await store(backend)
        let hits = try await store.read { db in try RecordSearch.search(db, query: query, scope: scope, limit: 50).hits }
        await store.close()
        return hits
    }

    @Test(arguments: ServerTestBackend.available)
    func aRecordWithAllTermsInOneSentenceRanksAboveOneWithThemSpreadOut(backend: ServerTestBackend) async throws {
        let hits = try await Self.search(backend, "marketing budget")
        #expect(hits.map(\.recordID) == ["rec_budget", "rec_split"])
        let best = try #require(hits.first?.matches.first)
        #expect(best.field == "transcript")
        #expect(best.startMs == 4200)
        #expect(best.snippet == "We reviewed the <em>marketing</em> <em>budget</em> for next quarter.")
        #expect(hits[0].score > 0)
    }

    @Test(arguments: ServerTestBackend.available)
    func englishMatchesAreCaseInsensitiveAndFindSubstrings(backend: ServerTestBackend) async throws {
        let hits = try await Self.search(backend, "BUDG")
        #expect(Set(hits.map(\.recordID)) == ["rec_budget", "rec_split", "rec_budget_only", "rec_other_user"])
        let notes = try #require(hits.first { $0.recordID == "rec_budget_only" })
        #expect(notes.matches.contains { $0.field == "title" && $0.snippet == "<em>Budg</em>et notes" })
    }

    @Test(arguments: ServerTestBackend.available)
    func aChineseSubstringInsideASentenceIsFoundWithItsStartTime(backend: ServerTestBackend) async throws {
        for query in ["发布会", "产品发", "召开产品发布会"] {
            let hits = try await Self.search(backend, query)
            let launch = try #require(hits.first { $0.recordID == "rec_launch" }, "\(query)")
            let match = try #require(launch.matches.first { $0.field == "transcript" })
            #expect(match.startMs == 12_000)
            #expect(match.snippet.contains("<em>\(query)</em>"), "\(match.snippet)")
        }
        let tag = try await Self.search(backend, "产品")
        #expect(tag.contains { $0.recordID == "rec_launch" && $0.matches.contains { $0.field == "tags" } })
    }

    @Test(arguments: ServerTestBackend.available)
    func aMixedEnglishChineseQueryNeedsBothTermsAndPrefersThemTogether(backend: ServerTestBackend) async throws {
        let hits = try await Self.search(backend, "iPhone 发布会")
        #expect(hits.map(\.recordID) == ["rec_iphone_zh", "rec_iphone_split"])
        let together = try #require(hits.first?.matches.first)
        #expect(together.startMs == 3000)
        #expect(together.snippet == "苹果公司在 <em>iPhone</em> <em>发布会</em>上介绍了新功能。")
        #expect(hits[1].matches.contains { $0.field == "title" && $0.snippet == "<em>iPhone</em> tips" })
        #expect(hits[1].matches.contains { $0.field == "transcript" && $0.startMs == 9000 })
    }

    @Test(arguments: ServerTestBackend.available)
    func oneAndTwoCharacterChineseQueriesUseTheCharacterIndex(backend: ServerTestBackend) async throws {
        let expected: Set = ["rec_other_user", "rec_iphone_split", "rec_iphone_zh", "rec_launch"]
        let two = try await Self.search(backend, "发布")
        #expect(Set(two.map(\.recordID)) == expected)
        #expect(two.allSatisfy { $0.score > 0 })
        let one = try await Self.search(backend, "会")
        #expect(Set(one.map(\.recordID)) == expected)
        let launch = try #require(one.first { $0.recordID == "rec_launch" })
        #expect(launch.matches.contains { $0.field == "title" && $0.snippet == "周<em>会</em>记录" })
        #expect(launch.matches.contains { $0.startMs == 12_000 && $0.snippet.contains("发布<em>会</em>") })
        // Characters must be adjacent and in order.
        #expect(try await Self.search(backend, "布发").isEmpty)
        // Short Latin terms match words.
        let escaped = try await Self.search(backend, "Q")
        #expect(escaped.map(\.recordID) == ["rec_escape"])
    }

    @Test(arguments: ServerTestBackend.available)
    func aShortTermNextToALongOneIsCheckedAcrossTheWholeRecord(backend: ServerTestBackend) async throws {
        // "取消" (2 characters) is only in a sentence "iPhone" does not match.
        let hits = try await Self.search(backend, "iPhone 取消")
        #expect(hits.map(\.recordID) == ["rec_iphone_split"])
    }

    @Test(arguments: ServerTestBackend.available)
    func snippetsEscapeHTMLAndCutLongSentencesAroundTheHit(backend: ServerTestBackend) async throws {
        let hits = try await Self.search(backend, "session")
        #expect(hits.first?.matches.first?.snippet == "Q&amp;A &lt;<em>session</em>&gt;")
        let long = String(repeating: "word ", count: 40) + "needle " + String(repeating: "tail ", count: 40)
        let snippet = RecordSearch.snippet(long, terms: ["needle"])
        #expect(snippet.hasPrefix("…") && snippet.hasSuffix("…"))
        #expect(snippet.contains("<em>needle</em>"))
        #expect(snippet.count < 140)
    }

    @Test(arguments: ServerTestBackend.available)
    func searchStaysInsideTheTenantAndTheUser(backend: ServerTestBackend) async throws {
        let tenant = try await Self.search(backend, "budget")
        #expect(!tenant.contains { $0.recordID == "rec_other_tenant" })
        #expect(tenant.contains { $0.recordID == "rec_other_user" })
        let user = try await Self.search(backend, "budget", scope: .init(partnerID: "p1", userID: "u1"))
        #expect(!user.contains { $0.recordID == "rec_other_user" || $0.recordID == "rec_other_tenant" })
        #expect(user.count == 3)
        let other = try await Self.search(backend, "发布会", scope: .init(partnerID: "p2", userID: nil))
        #expect(other.map(\.recordID) == ["rec_other_tenant"])
    }

    @Test(arguments: ServerTestBackend.available)
    func reindexingReplacesARecordsRowsAndRemoveDeletesThem(backend: ServerTestBackend) async throws {
        let store = try await Self.store(backend)
        defer { Task { await store.close() } }
        try await store.write { db in
            try RecordSearch.index(
                db, recordID: "rec_budget", title: "Renamed", tags: [], sentences: [(0, "Completely different.")])
        }
        let (old, renamed, rows) = try await store.read { db in
            (
                try RecordSearch.search(db, query: "marketing budget", scope: Self.tenant, limit: 10).hits,
                try RecordSearch.search(db, query: "renamed", scope: Self.tenant, limit: 10).hits,
                try db.scalar(
                    "SELECT COUNT(*) FROM \(Self.searchRows(db)) WHERE record_id = 'rec_budget'", as: Int.self)
            )
        }
        #expect(old.map(\.recordID) == ["rec_split"])
        #expect(renamed.map(\.recordID) == ["rec_budget"])
        #expect(rows == 2)
        let left = try await store.write { db in
            if db.dialect == .postgresql {
                try RecordSearch.remove(db, recordID: "rec_budget")
                return [
                    try db.scalar("SELECT COUNT(*) FROM record_search WHERE record_id = 'rec_budget'", as: Int.self),
                    0,
                ]
            }
            let rowids = try db.query("SELECT search_rowid FROM record_search_rows WHERE record_id = 'rec_budget'")
                .map { try $0.decode(0, as: Int64.self) }
            try RecordSearch.remove(db, recordID: "rec_budget")
            return [
                try db.scalar("SELECT COUNT(*) FROM record_search WHERE record_id = 'rec_budget'", as: Int.self),
                try db.scalar(
                    "SELECT COUNT(*) FROM record_search_chars WHERE rowid IN ("
                        + rowids.map(String.init).joined(separator: ",") + ")",
                    as: Int.self),
            ]
        }
        #expect(left == [0, 0])
    }

    @Test(arguments: ServerTestBackend.available)
    func pagingWithOffsetReportsWhetherMoreHitsExist(backend: ServerTestBackend) async throws {
        let store = try await Self.store(backend)
        defer { Task { await store.close() } }
        let (first, second) = try await store.read { db in
            (
                try RecordSearch.search(db, query: "发布", scope: Self.tenant, limit: 3),
                try RecordSearch.search(db, query: "发布", scope: Self.tenant, limit: 3, offset: 3)
            )
        }
        #expect(first.hits.count == 3 && first.more)
        #expect(second.hits.count == 1 && !second.more)
        #expect(
            Set((first.hits + second.hits).map(\.recordID))
                == ["rec_launch", "rec_iphone_zh", "rec_iphone_split", "rec_other_user"])
        // bm25 (SQLite) puts the record whose matching sentence has the most other trigrams last; PostgreSQL ranks
        // by terms held, then shorter rows (docs/scale-out.md).
        #expect(second.hits.map(\.recordID) == [backend == .embedded ? "rec_launch" : "rec_iphone_zh"])
    }
}
