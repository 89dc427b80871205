import EarshotAPI
import EarshotCore
import EarshotStore
import Foundation
import EarshotServerTestSupport
import Testing

@testable import EarshotServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The records library over HTTP: creation from an upload with envelope and duration, list order and paging
/// under inserts, filters, tenancy and user scope, update, delete without leftovers, audio with Range, bad
/// inputs.
@Suite struct RecordsLibraryTests {
    @Test(arguments: ServerTestBackend.available)
    func aRecordIsCreatedFromAnUploadWithItsEnvelopeAndDuration(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, user) = try await platform.newUser("alice")
            let detail = try await platform.createRecord(
                token: user,
                [
                    "title": "  JFK  ", "tags": ["speech", "history", "speech"], "record_time_ms": 1_700_000_000_000,
                    "language": "EN", "source": "device:RC-0042",
                ])
            let record = detail.record
            #expect(record.title == "JFK")
            #expect(record.tags == ["speech", "history"])
            #expect(record.userID == "alice")
            #expect(record.language == "en")
            #expect(record.source == "device:RC-0042")
            #expect(record.recordTimeMs == 1_700_000_000_000)
            #expect((10_900...11_100).contains(record.durationMs), "\(record.durationMs)")
            #expect(!record.hasTranscript && !record.hasSummary && record.translations.isEmpty)
            let envelope = try #require(detail.envelope)
            #expect(envelope.pointsPerSecond == 50)
            #expect((545...556).contains(envelope.count), "\(envelope.count)")
            let bytes = try #require(Data(base64Encoded: envelope.data))
            #expect(bytes.count == 16 + 3 * envelope.count)
            #expect(bytes.prefix(4) == Data("EENV".utf8))
            // Someone speaks: the RMS column is not all silence.
            #expect(stride(from: 18, to: bytes.count, by: 3).contains { bytes[$0] > 20 })

            let defaulted = try await platform.createRecord(token: user)
            #expect(defaulted.record.title.hasPrefix("Recording 20"))
            #expect(defaulted.record.source == "import")
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func theListIsNewestFirstAndPagingIsStableUnderInserts(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, user) = try await platform.newUser()
            var ids: [String] = []
            for time in [5_000, 1_000, 4_000, 2_000, 3_000] as [Int64] {
                ids.append(try await platform.createRecord(token: user, ["record_time_ms": time]).record.recordID)
            }
            let expected = [ids[0], ids[2], ids[4], ids[3], ids[1]]  // 5000, 4000, 3000, 2000, 1000
            let first = try await platform.send("GET", APIPath.records + "?limit=2", token: user).decode(
                RecordList.self)
            #expect(first.records.map(\.recordID) == Array(expected.prefix(2)))
            // New records arrive between pages: a newer one and one in the middle of the unread part.
            let newest = try await platform.createRecord(token: user, ["record_time_ms": 9_000]).record.recordID
            let middle = try await platform.createRecord(token: user, ["record_time_ms": 2_500]).record.recordID
            var seen = first.records.map(\.recordID)
            var cursor = first.nextCursor
            while let next = cursor {
                let page = try await platform.send(
                    "GET", APIPath.records + "?limit=2&cursor=\(next)", token: user
                ).decode(RecordList.self)
                seen += page.records.map(\.recordID)
                cursor = page.nextCursor
            }
            #expect(!seen.contains(newest))
            #expect(seen == Array(expected.prefix(3)) + [middle] + Array(expected.suffix(2)))
            #expect(Set(seen).count == seen.count)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func filtersSelectByTagDateSourceAndTranscript(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, user) = try await platform.newUser()
            let day = Int64(1_764_374_400_000)  // 2025-11-29T00:00:00Z
            let a = try await platform.createRecord(
                token: user, ["tags": ["work"], "record_time_ms": day + 3_600_000, "source": "phone"])
            let b = try await platform.createRecord(token: user, ["tags": ["home"], "record_time_ms": day - 1])
            let c = try await platform.createRecord(token: user, ["record_time_ms": day - 2, "source": "device:RC-7"])
            func list(_ query: String) async throws -> [String] {
                let response = try await platform.send("GET", APIPath.records + "?" + query, token: user)
                try #require(response.status == 200, "\(response.text)")
                return try response.decode(RecordList.self).records.map(\.recordID)
            }
            #expect(try await list("tag=work") == [a.record.recordID])
            #expect(try await list("from=2025-11-29") == [a.record.recordID])
            #expect(try await list("to=2025-11-28") == [b.record.recordID, c.record.recordID])
            #expect(try await list("from=\(day - 10)&to=2025-11-29T00:30:00Z") == [b.record.recordID, c.record.recordID])
            #expect(try await list("source=phone") == [a.record.recordID])
            #expect(try await list("source=device:RC-7") == [c.record.recordID])
            #expect(try await list("source=device") == [c.record.recordID])  // any device
            #expect(try await list("source=device:RC-8").isEmpty)
            #expect(try await list("has_transcript=false").count == 3)
            #expect(try await list("has_transcript=true").isEmpty)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func usersSeeTheirOwnRecordsPartnersTheTenantsAndNobodyAnotherTenants(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, partner, alice) = try await platform.newUser("alice")
            let bob = try await platform.userToken(partnerToken: partner, userID: "bob")
            let (_, otherPartner, otherUser) = try await platform.newUser("alice", partner: "Other")
            let alices = try await platform.createRecord(token: alice, ["title": "alice budget"]).record.recordID
            let bobs = try await platform.createRecord(token: bob, ["title": "bob budget"]).record.recordID
            // The partner records a file for a user by id.
            let upload = try await platform.upload(try TestAudio.jfk(), token: partner)
            let created = try await platform.send(
                "POST", APIPath.records, token: partner,
                json: ["file_id": upload.fileID, "user_id": "bob", "title": "partner budget"])
            #expect(created.status == 201, "\(created.text)")
            let partners = try created.decode(RecordDetail.self).record.recordID
            let foreign = try await platform.createRecord(token: otherUser, ["title": "foreign budget"]).record.recordID

            func ids(_ path: String, _ token: String) async throws -> Set<String> {
                let response = try await platform.send("GET", path, token: token)
                try #require(response.status == 200, "\(response.text)")
                if path.contains("search") {
                    return Set(try response.decode(RecordSearchResults.self).hits.map(\.record.recordID))
                }
                return Set(try response.decode(RecordList.self).records.map(\.recordID))
            }
            #expect(try await ids(APIPath.records, alice) == [alices])
            #expect(try await ids(APIPath.records, bob) == [bobs, partners])
            #expect(try await ids(APIPath.records, partner) == [alices, bobs, partners])
            #expect(try await ids(APIPath.records + "?user_id=bob", partner) == [bobs, partners])
            #expect(try await ids(APIPath.records, otherPartner) == [foreign])
            #expect(try await ids(APIPath.recordSearch + "?q=budget", alice) == [alices])
            #expect(try await ids(APIPath.recordSearch + "?q=budget", partner) == [alices, bobs, partners])

            // Another user's or tenant's record answers exactly like a missing one.
            let missing = try await platform.send(
                "GET", platform.recordPath(APIPath.record, Identifier.make(prefix: "rec")), token: alice)
            #expect(missing.status == 404)
            for (id, token) in [(bobs, alice), (foreign, alice), (foreign, partner), (alices, otherPartner)] {
                for path in [APIPath.record, APIPath.recordAudio, APIPath.recordTasks, APIPath.recordExport] {
                    let response = try await platform.send("GET", platform.recordPath(path, id), token: token)
                    #expect(response.status == 404, "\(path) \(response.text)")
                    #expect(response.errorCode == missing.errorCode)
                    #expect(response.errorMessage == "no record \(id)")
                }
                let delete = try await platform.send("DELETE", platform.recordPath(APIPath.record, id), token: token)
                #expect(delete.status == 404)
            }
            // A user cannot record another user's file, nor pretend to be someone else.
            let bobsFile = try await platform.upload(try TestAudio.jfk(), token: bob)
            let stolen = try await platform.send(
                "POST", APIPath.records, token: alice, json: ["file_id": bobsFile.fileID])
            #expect(stolen.status == 404)
            let pretend = try await platform.send(
                "POST", APIPath.records, token: alice, json: ["file_id": bobsFile.fileID, "user_id": "bob"])
            #expect(pretend.status == 400)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func updatesChangeTitleAndTagsAndTheSearchFollows(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user, ["title": "Old title"]).record.recordID
            let response = try await platform.send(
                "PATCH", platform.recordPath(APIPath.record, id), token: user,
                json: ["title": "季度预算 review", "tags": ["预算"]])
            #expect(response.status == 200, "\(response.text)")
            let detail = try response.decode(RecordDetail.self)
            #expect(detail.record.title == "季度预算 review")
            #expect(detail.record.tags == ["预算"])
            let found = try await platform.send("GET", APIPath.recordSearch + "?q=季度预算", token: user)
                .decode(RecordSearchResults.self)
            #expect(found.hits.map(\.record.recordID) == [id])
            #expect(found.hits.first?.matches.first?.snippet == "<em>季度预算</em> review")
            let old = try await platform.send("GET", APIPath.recordSearch + "?q=old", token: user)
                .decode(RecordSearchResults.self)
            #expect(old.hits.isEmpty)
            // Speaker names must name speakers the transcript has: this record has no transcript yet, and nothing
            // changes.
            let renamed = try await platform.send(
                "PATCH", platform.recordPath(APIPath.record, id), token: user,
                json: ["title": "New", "speaker_names": ["SPEAKER_00": "Alice"]])
            #expect(renamed.status == 400 && renamed.errorMessage.contains("no speakers"), "\(renamed.text)")
            let unchanged = try await platform.send("GET", platform.recordPath(APIPath.record, id), token: user)
                .decode(RecordDetail.self)
            #expect(unchanged.record.title == "季度预算 review")
            #expect(unchanged.speakerNames.isEmpty)
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func deletingARecordLeavesNoBlobNoRowsAndNoSearchHits(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, user) = try await platform.newUser()
            let keep = try await platform.createRecord(token: user, ["title": "keep me"])
            let gone = try await platform.createRecord(token: user, ["title": "delete me"])
            #expect(try await platform.blobFiles().contains { $0.contains(gone.record.fileID) })
            let response = try await platform.send(
                "DELETE", platform.recordPath(APIPath.record, gone.record.recordID), token: user)
            #expect(response.status == 204, "\(response.text)")
            let files = try await platform.blobFiles()
            #expect(!files.contains { $0.contains(gone.record.fileID) }, "\(files)")
            #expect(files.contains { $0.contains(keep.record.fileID) })
            #expect(
                try await platform.send("GET", platform.recordPath(APIPath.record, gone.record.recordID), token: user)
                    .status == 404)
            #expect(
                try await platform.send(
                    "GET", APIPath.file.replacingOccurrences(of: "{file_id}", with: gone.record.fileID), token: user
                )
                .status == 404)
            let search = try await platform.send("GET", APIPath.recordSearch + "?q=delete", token: user)
                .decode(RecordSearchResults.self)
            #expect(search.hits.isEmpty)
            // Nothing about the record is left in the database.
            let store = try await platform.openStore()
            let counts = try await store.read { db in
                [
                    try db.scalar("SELECT COUNT(*) FROM records WHERE id = ?", gone.record.recordID, as: Int.self),
                    try db.scalar("SELECT COUNT(*) FROM files WHERE id = ?", gone.record.fileID, as: Int.self),
                    try db.scalar("SELECT COUNT(*) FROM uploads WHERE file_id = ?", gone.record.fileID, as: Int.self),
                    try db.scalar(
                        "SELECT COUNT(*) FROM \(RecordsSearchTests.searchRows(db)) WHERE record_id = ?", gone.record.recordID,
                        as: Int.self),
                    try db.scalar(
                        "SELECT COUNT(*) FROM record_search WHERE record_id = ?", gone.record.recordID, as: Int.self),
                ]
            }
            await store.close()
            #expect(counts == [0, 0, 0, 0, 0])
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func theAudioStreamsWithRange(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, _, user) = try await platform.newUser()
            let audio = try TestAudio.jfk()
            let id = try await platform.createRecord(token: user, audio: audio).record.recordID
            let whole = try await platform.send("GET", platform.recordPath(APIPath.recordAudio, id), token: user)
            #expect(whole.status == 200)
            #expect(whole.data == audio)
            let part = try await platform.send(
                "GET", platform.recordPath(APIPath.recordAudio, id), token: user, headers: ["Range": "bytes=100-199"])
            #expect(part.status == 206)
            #expect(part.data == audio[100..<200])
            #expect(part.header("Content-Range") == "bytes 100-199/\(audio.count)")
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func badInputsGetClearErrors(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, partner, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user).record.recordID
            let upload = try await platform.upload(try TestAudio.jfk(), token: user)
            let cases: [(String, String, [String: Any]?, Int, String)] = [
                ("GET", APIPath.records + "?cursor=garbage", nil, 400, "cursor is malformed"),
                ("GET", APIPath.records + "?from=yesterday", nil, 400, "from \"yesterday\" is not a date"),
                ("GET", APIPath.records + "?from=2026-02-01&to=2026-01-01", nil, 400, "from is after to"),
                ("GET", APIPath.records + "?has_transcript=maybe", nil, 400, "must be true or false"),
                ("GET", APIPath.records + "?source=fax", nil, 400, "source \"fax\" is unknown"),
                ("GET", APIPath.records + "?limit=0", nil, 400, "limit must be between 1 and 200"),
                ("GET", APIPath.recordSearch, nil, 400, "q is required"),
                ("GET", APIPath.recordSearch + "?q=a+b+c+d+e+f+g+h+i", nil, 400, "more than 8 words"),
                (
                    "POST", APIPath.records,
                    [
                        "file_id": upload.fileID,
                        "tags": Array(repeating: "t", count: 33).enumerated().map { "t\($0.offset)" },
                    ], 400, "at most 32 tags"
                ),
                (
                    "POST", APIPath.records, ["file_id": upload.fileID, "tags": [String(repeating: "x", count: 65)]],
                    400, "each tag must be 1-64 characters"
                ),
                (
                    "POST", APIPath.records, ["file_id": upload.fileID, "title": "   "], 400,
                    "title must be 1-200 characters"
                ),
                (
                    "POST", APIPath.records, ["file_id": upload.fileID, "source": "device:"], 400,
                    "use import, phone or device:<serial>"
                ),
                (
                    "POST", APIPath.records, ["file_id": upload.fileID, "language": "klingon"], 400,
                    "language \"klingon\" is unknown"
                ),
                (
                    "POST", APIPath.records, ["file_id": upload.fileID, "record_time_ms": -5], 400,
                    "record_time_ms must be"
                ),
                ("POST", APIPath.records, ["file_id": "https://evil.example/a.wav"], 400, "never fetched"),
                ("PATCH", platform.recordPath(APIPath.record, id), [:], 400, "nothing to update"),
                ("POST", platform.recordPath(APIPath.recordTasks, id), ["task_type": 3], 400, "task_type 3 is unknown"),
                (
                    "POST", platform.recordPath(APIPath.recordTasks, id), ["task_type": 2], 400,
                    "target_language is required"
                ),
                (
                    "POST", platform.recordPath(APIPath.recordTasks, id), ["task_type": 2, "target_language": "xx"],
                    400, "is not offered"
                ),
                (
                    "POST", platform.recordPath(APIPath.recordTasks, id),
                    ["task_type": 2, "target_language": "ja", "source": "speech"], 400, "only produces English"
                ),
                (
                    "POST", platform.recordPath(APIPath.recordTasks, id), ["task_type": 0, "model": "gpt-9"], 400,
                    "model \"gpt-9\" is not offered"
                ),
                (
                    "POST", platform.recordPath(APIPath.recordTasks, id), ["task_type": 0, "target_language": "en"],
                    400, "only applies to task_type 2"
                ),
                ("POST", platform.recordPath(APIPath.recordTasks, id), ["task_type": 1], 409, "has no transcript yet"),
                (
                    "GET", platform.recordPath(APIPath.recordExport, id) + "?format=docx", nil, 400,
                    "format \"docx\" is unknown"
                ),
                (
                    "GET", platform.recordPath(APIPath.recordExport, id) + "?format=srt", nil, 409,
                    "has no transcript yet"
                ),
            ]
            for (method, path, body, status, message) in cases {
                let response = try await platform.send(method, path, token: user, json: body)
                #expect(response.status == status, "\(method) \(path): \(response.text)")
                #expect(response.errorMessage.contains(message), "\(method) \(path): \(response.errorMessage)")
            }
            // A file can back one record only; a non-audio file is refused at creation.
            let first = try await platform.send("POST", APIPath.records, token: user, json: ["file_id": upload.fileID])
            #expect(first.status == 201)
            let again = try await platform.send("POST", APIPath.records, token: user, json: ["file_id": upload.fileID])
            #expect(again.status == 409)
            #expect(again.errorMessage.contains("already has a record"))
            let noise = try await platform.upload(testContent(50_000), token: partner)
            let refused = try await platform.send(
                "POST", APIPath.records, token: partner, json: ["file_id": noise.fileID])
            #expect(refused.status == 400)
            #expect(refused.errorMessage.contains("is not audio Earshot can decode"), "\(refused.errorMessage)")
            // The markdown note exists before any transcript.
            let note = try await platform.send(
                "GET", platform.recordPath(APIPath.recordExport, id) + "?format=md", token: user)
            #expect(note.status == 200)
            #expect(note.text.contains("_Not transcribed yet._"))
        }
    }
}

extension TestPlatform {
    /// A second connection to the server's database (for checks the API does not expose).
    /// The platform's metadata store (its SQLite file or its PostgreSQL database), opened a second time.
    func openStore() async throws -> any MetadataStore {
        try await Application.openMetadataStore(configuration)
    }
}
