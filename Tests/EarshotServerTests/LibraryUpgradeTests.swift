import EarshotCrypto
import EarshotSpeech
import EarshotStore
import Foundation
import Testing

@testable import EarshotServer

/// A database made by Earshot before schema components and the one library (its global migrations 1-7, frozen in
/// `Fixtures/legacy-schema/`) opens with today's schema: nothing is migrated twice, seed-001 transcription tasks
/// join the library as jobs of their files' records (with their transcripts, speaker renames and search rows),
/// pending webhook deliveries become jobs, and files get their media type.
@Suite struct LibraryUpgradeTests {
    static let legacyDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/legacy-schema")

    /// The legacy migrations as files: (version, name, SQL).
    static func legacyMigrations() throws -> [(version: Int, name: String, sql: String)] {
        try FileManager.default.contentsOfDirectory(atPath: legacyDirectory.path).sorted().map { file in
            let stem = (file as NSString).deletingPathExtension
            let version = Int(stem.prefix(3))!
            let name = String(stem.dropFirst(4))
            return (version, name, try String(contentsOf: legacyDirectory.appendingPathComponent(file), encoding: .utf8))
        }
    }

    @Test func everyComponentTakesOverALegacyMigrationWithItsRecordedChecksum() throws {
        let files = try Self.legacyMigrations()
        #expect(files.map(\.version) == Array(1...7))
        let claims = ServerSchema.components.flatMap(\.migrations).compactMap(\.legacy)
        for file in files {
            let checksum = DigestAlgorithm.sha256.hash(Array(file.sql.utf8)).hex
            let claimants = claims.filter { $0.version == file.version }
            #expect(!claimants.isEmpty, "no component takes over legacy migration \(file.version)")
            for claim in claimants {
                #expect(claim.name == file.name)
                #expect(claim.checksum == checksum, "legacy migration \(file.version) \(file.name)")
            }
        }
    }

    /// Builds the legacy database with data a pre-library server could hold.
    static func makeLegacyDatabase(at path: String) async throws {
        let store = try await SQLiteMetadataStore(configuration: .init(location: .file(URL(fileURLWithPath: path)), schema: []))
        let migrations = try legacyMigrations()
        let transcript = Transcript(
            language: "en", languageProbability: 0.98, durationMs: 4_000, speechMs: 3_800,
            segments: [
                .init(speaker: "Speaker 1", startMs: 0, endMs: 2_000, text: "The quarterly budget is approved."),
                .init(speaker: "Speaker 2", startMs: 2_000, endMs: 4_000, text: "Then we ship on Friday."),
            ])
        let result = String(decoding: try JSONEncoder().encode(transcript), as: UTF8.self)
        try await store.write { db in
            try db.execute("DELETE FROM schema_migrations")
            try db.execute("DROP TABLE schema_component_migrations")
            for migration in migrations {
                try db.executeScript(migration.sql)
                try db.execute(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                    migration.version, migration.name, DigestAlgorithm.sha256.hash(Array(migration.sql.utf8)).hex,
                    "2026-11-20T10:00:00Z")
            }
            try db.execute("INSERT INTO partners (id, name, secret_hash, created_at) VALUES ('ptn_a', 'A', 'x', 0)")
            for (file, user) in [("file_one", "u1"), ("file_two", "u2")] {
                try db.execute(
                    "INSERT INTO uploads (id, file_id, partner_id, user_id, filesize, filetype, chunk_size, part_count, "
                        + "state, created_at, updated_at) VALUES (?, ?, 'ptn_a', ?, 10, 'wav', 10, 1, 'completed', 1, 1)",
                    "upl_" + file, file, user)
                try db.execute(
                    "INSERT INTO files (id, partner_id, user_id, upload_id, size, sha256, filetype, blob_key, created_at) "
                        + "VALUES (?, 'ptn_a', ?, ?, 10, 'abc', 'wav', ?, 1764500000000)",
                    file, user, "upl_" + file, "files/" + file)
            }
            // file_two was already a record in the library; file_one only had a seed-001 task.
            try db.execute(
                "INSERT INTO records (id, partner_id, user_id, file_id, title, record_time, duration_ms, source, "
                    + "created_at, updated_at) VALUES ('rec_two', 'ptn_a', 'u2', 'file_two', 'Standup', 5, 4000, "
                    + "'import', 5, 5)")
            for (job, file, state, result) in [
                ("task_one", "file_one", "succeeded", result as String?), ("task_two", "file_two", "queued", nil),
            ] {
                let payload = "{\"callback_url\":\"http://127.0.0.1:9/hook\",\"file_id\":\"\(file)\","
                    + "\"model\":\"asr-fast\",\"task\":\"transcribe\",\"user_id\":\"u1\"}"
                try db.execute(
                    "INSERT INTO jobs (id, tenant, kind, payload, state, progress, attempts, max_attempts, run_after, "
                        + "result, created_at, updated_at, finished_at) VALUES (?, 'ptn_a', 'transcription', ?, ?, 0, 1, "
                        + "3, 0, ?, 10, 10, 10)",
                    job, payload, state, result)
            }
            try db.execute(
                "INSERT INTO transcript_speaker_names (job_id, label, name, updated_at) "
                    + "VALUES ('task_one', 'Speaker 1', 'Alice', 11)")
            try db.execute(
                "INSERT INTO webhook_deliveries (id, tenant, job_id, url, event, body, state, attempts, next_attempt_at, "
                    + "give_up_at, created_at, updated_at) VALUES ('whd_one', 'ptn_a', 'task_one', "
                    + "'http://127.0.0.1:9/hook', 'transcription.succeeded', '{}', 'pending', 2, 500, 99999999999999, 10, 10)")
        }
        await store.close()
    }

    @Test func aLegacyDatabaseOpensWithItsTasksInTheLibrary() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-upgrade-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("earshot.sqlite").path
        try await Self.makeLegacyDatabase(at: path)

        let store = try await SQLiteMetadataStore(
            configuration: .init(location: .file(URL(fileURLWithPath: path)), schema: ServerSchema.components))
        defer { Task { await store.close() } }
        let applied = try await store.appliedMigrations()
        // Taken over (legacy date), then today's additions.
        #expect(applied.first { $0.component == "records" && $0.version == 1 }?.appliedAt == "2026-11-20T10:00:00Z")
        #expect(applied.contains { $0.component == "transcriptions" && $0.version == 2 })

        try await store.read { db in
            // The seed-001 task made its file's record: owned by the task's user, with its transcript and rename.
            let one = try #require(try Library.record(ofFile: "file_one", db))
            #expect(one.userID == "u1")
            #expect(one.partnerID == "ptn_a")
            #expect(try one.transcript()?.segments.count == 2)
            #expect(one.speakerNames == ["Speaker 1": "Alice"])
            #expect(one.durationMs == 4_000)
            #expect(try Library.record(ofJob: "task_one", db)?.id == one.id)
            // The task on a file that already had a record joined that record.
            #expect(try Library.record(ofJob: "task_two", db)?.id == "rec_two")
            // The transcript is searchable.
            let (hits, _) = try RecordSearch.search(
                db, query: "quarterly budget", scope: .init(partnerID: "ptn_a", userID: nil), limit: 10)
            #expect(hits.map(\.recordID) == [one.id])
            // The pending delivery is a queued webhook job with its attempts; files have media types.
            let webhook = try #require(
                try db.queryFirst("SELECT state, attempts, run_after FROM jobs WHERE id = 'whd_one' AND kind = 'webhook'"))
            #expect(try webhook.decode("state", as: String.self) == "queued")
            #expect(try webhook.decode("attempts", as: Int.self) == 2)
            #expect(try webhook.decode("run_after", as: Int64.self) == 500)
            #expect(try db.scalar("SELECT media_type FROM files WHERE id = 'file_one'", as: String.self) == "audio/wav")
            #expect(
                try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'transcript_speaker_names'", as: Int.self)
                    == 0)
        }
    }
}
