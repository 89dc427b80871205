import EarshotAPI
import EarshotCore
import EarshotHTTP
import EarshotStore
import Foundation
import Testing

@testable import EarshotServer

/// Tenant and user isolation, route by route: every route the server registers is called by another partner, by
/// another user of the same partner and by another account (its session and its access token) with the ids of one
/// user's upload, file, task, record, record task and voiceprint, and of one account's session. None may answer
/// 2xx about them, none may show one of their ids, and none may change them.
///
/// The matrix comes from the router itself (as `OpenAPITests` builds it): a new route is called here as soon as it
/// is registered, and a route with a path parameter this test does not know fails until the parameter is added
/// to ``fixtureValue(for:route:)`` — so no route goes unchecked (issue 13).
@Suite(.timeLimit(.minutes(30)))
struct IsolationMatrixTests {
    /// Routes whose credential is not a token, or that hold no tenant's data, with the test that covers them.
    static let withoutTokens: [String: String] = [
        "GET /v1/models/{model}": "the model catalogue, the same for every caller: OpenAICompatibilityTests",
        "GET /healthz": "no data", "GET /readyz": "no data", "GET /metrics": "no tenant data",
        "GET /openapi.json": "no data", "POST /open/partner/token": "client credentials: TokenTests",
        "PUT /open/partner/files/upload/parts/{upload_id}/{part_number}": "signed URL: UploadErrorTests",
        "GET /open/partner/files/{file_id}/download": "signed URL: UploadErrorTests",
        "GET /open/accounts/countries": "no data", "POST /open/accounts/sign-up": "no credential: AccountsTests",
        "POST /open/accounts/verify": "a code: AccountsTests",
        "POST /open/accounts/codes": "no credential: AccountsTests",
        "POST /open/accounts/sign-in": "a password: AccountsTests",
        "POST /open/accounts/password/reset": "a code: AccountsTests",
    ]

    struct Fixture {
        var uploadID = ""
        var fileID = ""
        var taskID = ""
        var recordID = ""
        var recordTaskID = ""
        var voiceprintID = ""
        var sessionID = ""
        var keyID = ""
        var serial = "ES1-ISOLATION"
        var homeID = ""
        var evaluationID = ""
        var partnerID = ""
        let title = "Isolation secret title"

        /// What must never appear in another principal's answers.
        var secrets: [String] {
            [
                uploadID, fileID, taskID, recordID, recordTaskID, voiceprintID, sessionID, keyID, serial, homeID,
                evaluationID, title,
            ]
        }
    }

    /// The value of path parameter `name` in `route`, from the owner's resources; nil for an unknown parameter.
    static func fixtureValue(for name: String, route: String, _ fixture: Fixture) -> String? {
        switch name {
        case "upload_id": fixture.uploadID
        case "part_number": "1"
        case "file_id": fixture.fileID
        case "record_id": fixture.recordID
        case "task_id": route.contains("{record_id}") ? fixture.recordTaskID : fixture.taskID
        case "voiceprint_id": fixture.voiceprintID
        case "session_id": fixture.sessionID
        case "key_id": fixture.keyID
        case "serial": fixture.serial
        case "home_id": fixture.homeID
        case "evaluation_id": fixture.evaluationID
        // Admin routes: the owner's tenant, a delivery id (only the instance owner's session gets past the check).
        case "partner_id": fixture.partnerID
        case "delivery_id": "whd_isolationmatrix0001"
        default: nil
        }
    }

    /// The JSON body sent to a route (the owner's ids where the route takes one).
    static func body(for route: String, _ fixture: Fixture) -> [String: Any] {
        switch route {
        case "POST /open/partner/transcriptions": ["file_url": fixture.fileID, "model": "asr-fast"]
        case "POST /open/partner/records": ["file_id": fixture.fileID, "title": "stolen"]
        case "POST /open/partner/voiceprints": ["file_id": fixture.fileID, "name": "Stolen", "user_id": "owner"]
        case "POST /open/partner/files/upload/complete-upload":
            ["file_id": fixture.fileID, "upload_id": fixture.uploadID, "part_list": [["part_number": 1, "etag": "x"]]]
        case "POST /open/partner/files/upload/generate-presigned-urls": ["filesize": 10, "filetype": "m4a"]
        case "POST /open/partner/user-token": ["user_id": "owner"]
        case "PATCH /open/partner/records/{record_id}": ["title": "changed"]
        case "PUT /open/partner/transcriptions/{task_id}/speakers": ["names": ["SPEAKER_00": "Eve"]]
        case "POST /open/partner/records/{record_id}/tasks": ["task_type": 1]
        case "POST /open/partner/api-keys": ["name": "stolen", "scopes": ["partner"]]
        case "POST /open/partner/homes": ["name": "stolen"]
        case "PATCH /open/partner/homes/{home_id}": ["name": "stolen", "current": true]
        case "POST /open/partner/devices": ["serial": fixture.serial, "model": "ES1", "firmware": "1.0"]
        case "PATCH /open/partner/devices/{serial}": ["name": "stolen", "auto_transcribe": false]
        case "PUT /open/partner/devices/{serial}/secret":
            ["secret": Data(repeating: 9, count: 32).base64EncodedString()]
        case "POST /open/partner/devices/{serial}/proof":
            ["challenge": Data(repeating: 9, count: 16).base64EncodedString()]
        case "POST /open/partner/devices/{serial}/status":
            [
                "report": [
                    "battery": 5, "charging": false, "storage_used": 0, "storage_total": 10, "recording_count": 0,
                    "recording": false,
                ]
            ]
        case "POST /open/partner/devices/{serial}/recordings":
            [
                "recording_id": 1, "started_at_ms": 0, "duration_ms": 1, "size": 1, "codec": "wav",
                "sha256": String(repeating: "0", count: 64), "file_id": fixture.fileID,
            ]
        case "POST /open/partner/devices/{serial}/upload-plan": ["recording_id": 2, "size": 10, "codec": "wav"]
        case "POST /open/partner/devices/{serial}/upload-plans":
            ["recordings": [["recording_id": 2, "size": 10, "codec": "wav"]]]
        case "POST /open/partner/evaluations": ["clips": [["record_id": fixture.recordID, "reference": "stolen"]]]
        case "PATCH /open/admin/partners/{partner_id}": ["status": "disabled"]
        case "POST /open/admin/partners/{partner_id}/rotate-secret": ["overlap_seconds": 0]
        case "POST /open/admin/partners": ["name": "stolen"]
        default: [:]
        }
    }

    /// Signs `email` in (an account of the default tenant made as `earshot accounts create` does).
    static func account(_ platform: TestPlatform, _ email: String) async throws -> SignInResponse {
        let password = "correct horse battery staple"
        _ = try await AccountAdministration(configuration: platform.configuration).create(
            tenant: nil, email: email, phone: nil, country: nil, password: password, nickname: nil)
        let response = try await platform.send(
            "POST", APIPath.accountSignIn, json: ["email": email, "password": password])
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(SignInResponse.self)
    }

    /// Every registered route as `METHOD /pattern`, the ones that end sessions last (so the other account's
    /// session is still there for every other route).
    static func orderedRoutes() async throws -> [String] {
        let routes = try await routes()
        return routes.filter { !$0.contains("sign-out") } + routes.filter { $0.contains("sign-out") }
    }

    /// Every registered route as `METHOD /pattern`.
    static func routes() async throws -> [String] {
        let directory = try TestEnvironment.makeTemporaryDirectory("isolation-routes")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory.path
        let store = try await Application.openMetadataStore(configuration)
        let blobs = try await FileSystemBlobStore(root: directory.appendingPathComponent("blobs"))
        let router = Router()
        HealthRoutes(metadata: store, blobs: blobs, metrics: HTTPMetrics(), process: ProcessMetrics()).register(
            on: router)
        Services(configuration: configuration, metadata: store, blobs: blobs).register(on: router)
        await store.close()
        return router.routes.map { "\($0.method.rawValue) \($0.pattern)" }
    }

    @Test func noRouteLetsAnotherPartnerOrUserReachAUsersData() async throws {
        let routes = try await Self.orderedRoutes()
        #expect(routes.count >= 30)
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (owner, ownerToken, ownerUser) = try await platform.newUser("owner", partner: "Owner")
            let otherUser = try await platform.userToken(partnerToken: ownerToken, userID: "neighbour")
            let (_, otherPartner, otherPartnersUser) = try await platform.newUser("owner", partner: "Other")
            var fixture = Fixture()
            fixture.partnerID = owner.clientID
            fixture.uploadID = try await platform.plan(100_000, token: ownerUser).uploadID
            fixture.fileID = try await platform.upload(testContent(1000), token: ownerUser).fileID
            let task = try await platform.createTask(
                ["file_url": fixture.fileID, "model": "asr-fast", "user_id": "owner"], token: ownerToken)
            try #require(task.status == 201, "\(task.text)")
            fixture.taskID = try task.decode(TranscriptionTask.self).taskID
            let record = try await platform.createRecord(token: ownerUser, ["title": fixture.title])
            fixture.recordID = record.record.recordID
            let recordTask = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, fixture.recordID), token: ownerUser,
                json: ["task_type": 0])
            try #require(recordTask.status == 201, "\(recordTask.text)")
            fixture.recordTaskID = try recordTask.decode(RecordTask.self).taskID
            fixture.voiceprintID = "vp_isolationmatrix00001"
            let key = try await platform.send(
                "POST", APIPath.apiKeys, token: ownerToken, json: ["name": "owner's key", "scopes": ["partner"]])
            try #require(key.status == 201, "\(key.text)")
            fixture.keyID = try key.decode(CreatedAPIKey.self).key.keyID
            // The owner's evaluation of the record (scored as the service stores it; no transcript is needed here).
            fixture.evaluationID = Identifier.make(prefix: "evl")
            let scores = try RecordsService.json(
                EvaluationItem(
                    evaluationID: fixture.evaluationID, userID: "owner", title: fixture.title, language: "en",
                    createdAtMs: 1, wer: 0, cer: 0, accuracy: 1, referenceWords: 1, substitutions: 0, deletions: 0,
                    insertions: 0, cpWER: nil, models: [],
                    clips: [.init(recordID: fixture.recordID, name: fixture.title, wer: 0, referenceWords: 1)]))
            let store = try await platform.openStore()
            try await store.write { [fixture] db in
                let partnerID = try db.scalar(
                    "SELECT partner_id FROM files WHERE id = ?", fixture.fileID, as: String.self)
                try db.execute(
                    "INSERT INTO voiceprints (id, partner_id, user_id, name, model, vector, speech_ms, file_id, "
                        + "created_at) VALUES (?, ?, 'owner', 'Owner', 'resemblyzer', x'00000000', 5000, ?, 1)",
                    fixture.voiceprintID, partnerID, fixture.fileID)
                try db.execute(
                    "INSERT INTO evaluations (id, partner_id, user_id, scores, report, created_at) "
                        + "VALUES (?, ?, 'owner', ?, ?, 1)",
                    fixture.evaluationID, partnerID, scores, "<p>\(fixture.title)</p>")
            }
            await store.close()
            // The owner's device (bound, online) and home.
            let device = try await platform.bindDevice(fixture.serial, token: ownerUser).0
            fixture.homeID = device.homeID
            let status = try await platform.send(
                "POST", platform.devicePath(APIPath.deviceStatus, fixture.serial), token: ownerUser,
                json: Self.body(for: "POST /open/partner/devices/{serial}/status", fixture))
            try #require(status.status == 200, "\(status.text)")
            let ownerAccount = try await Self.account(platform, "owner@example.com")
            fixture.sessionID = ownerAccount.session.id
            let otherAccount = try await Self.account(platform, "other@example.com")

            let otherSession = try #require(otherAccount.sessionToken)
            let foreign = [
                ("another partner", otherPartner), ("another partner's user of the same name", otherPartnersUser),
                ("another user of the partner", otherUser), ("another account's session", otherSession),
                ("another account's access token", otherAccount.accessToken),
            ]
            var checked = 0
            for route in routes {
                if Self.withoutTokens[route] != nil { continue }
                let (method, pattern) = route.split(separator: " ", maxSplits: 1).map(String.init).pair
                var path = pattern
                for name in PathPattern(pattern).parameterNames {
                    let value = try #require(
                        Self.fixtureValue(for: name, route: route, fixture),
                        "route \(route): add its parameter {\(name)} to IsolationMatrixTests.fixtureValue")
                    path = path.replacingOccurrences(of: "{\(name)}", with: value)
                }
                let takesResource = !PathPattern(pattern).parameterNames.isEmpty
                let body = ["POST", "PUT", "PATCH"].contains(method) ? Self.body(for: route, fixture) : nil
                for (who, token) in foreign {
                    let response = try await platform.send(method, path, token: token, json: body)
                    let success = (200..<300).contains(response.status)
                    if takesResource {
                        #expect(!success, "\(who): \(route) answered \(response.status) about the owner's resource")
                    }
                    // An id the request itself named may be echoed ("no record rec_…"); any other is a leak.
                    let sent = path + (body.map { "\($0)" } ?? "")
                    for secret in fixture.secrets where response.text.contains(secret) && !sent.contains(secret) {
                        Issue.record("\(who): \(route) (\(response.status)) shows the owner's \(secret)")
                    }
                    #expect(response.status != 500, "\(who): \(route) answered 500: \(response.text)")
                    checked += 1
                }
            }
            #expect(checked >= foreign.count * (routes.count - Self.withoutTokens.count))

            // The owner still has everything, unchanged.
            #expect(try await platform.task(fixture.taskID, token: ownerToken).status == .pending)
            let detail = try await platform.send(
                "GET", platform.recordPath(APIPath.record, fixture.recordID), token: ownerUser)
            #expect(detail.status == 200 && detail.text.contains(fixture.title), "\(detail.text)")
            let upload = try await platform.send(
                "GET", "/open/partner/files/upload/\(fixture.uploadID)/parts", token: ownerUser)
            #expect(upload.status == 200)
            let voiceprints = try await platform.send("GET", APIPath.voiceprints + "?user_id=owner", token: ownerToken)
            #expect(voiceprints.text.contains(fixture.voiceprintID))
            let ownerSession: String = try #require(ownerAccount.sessionToken)
            let me = try await platform.send("GET", APIPath.accountSessions, token: ownerSession)
            #expect(me.status == 200 && me.text.contains(fixture.sessionID), "\(me.text)")
            let ownersDevice = try await platform.send(
                "GET", platform.devicePath(APIPath.device, fixture.serial), token: ownerUser)
            let unchanged = try ownersDevice.decode(Device.self)
            #expect(unchanged.name == device.name && unchanged.autoTranscribe && unchanged.homeID == fixture.homeID)
            let keys = try await platform.send("GET", APIPath.apiKeys, token: ownerToken)
            let ownersKey = try keys.decode(APIKeyList.self).keys.first { $0.keyID == fixture.keyID }
            #expect(ownersKey != nil && ownersKey?.revokedAtMs == nil, "\(keys.text)")
        }
    }
}

extension Array {
    /// The first two elements (for `split` results known to have two).
    fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
