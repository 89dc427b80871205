import EarshotAPI
import EarshotHTTP
import EarshotKit
import Foundation
import Synchronization

/// The four endpoints of "your backend" in seed 001, on top of EarshotKit.
///
/// | route | who calls it | what it does |
/// |---|---|---|
/// | `POST /token` | your app (its session) | a short-lived Earshot user token for the signed-in user |
/// | `POST /recordings/complete` | your app | submits a transcription of the uploaded file with the partner token |
/// | `GET /recordings/{id}/transcript` | your app | `{status, segments}` of that user's transcription |
/// | `POST /webhooks/earshot` | Earshot | verifies the signature and records the finished task |
struct BackendRoutes: Sendable {
    let configuration: BackendConfiguration
    /// Partner token → user tokens (the client secret stays in this process).
    let tokens: PartnerTokenClient
    /// Transcription tasks with the partner token.
    let transcriptions: TranscriptionClient
    let inbox: WebhookInbox
    /// This backend's public base URL, known once it listens (Earshot posts webhooks to `<it>/webhooks/earshot`).
    let publicURL: PublicURL

    /// `POST /recordings/complete` body: seed 001's `{file_url, user_id}` (the upload's `DownloadUrl`), or the
    /// upload's `file_id` instead of the URL.
    struct CompleteRequest: Decodable {
        var fileURL: String?
        var fileID: String?
        var userID: String?
        var language: String?

        enum CodingKeys: String, CodingKey {
            case fileURL = "file_url"
            case fileID = "file_id"
            case userID = "user_id"
            case language
        }

        /// What Earshot accepts as `file_url`: the `DownloadUrl` or the `FileId`.
        func file() throws(HTTPError) -> String {
            switch (fileURL, fileID) {
            case (let url?, nil) where !url.isEmpty: url
            case (nil, let id?) where !id.isEmpty: id
            default: throw HTTPError.invalidArgument("send exactly one of file_url (the DownloadUrl) and file_id")
            }
        }
    }

    struct CompleteResponse: Encodable {
        var transcriptionID: String
        var status: TaskStatus

        enum CodingKeys: String, CodingKey {
            case transcriptionID = "transcription_id"
            case status
        }
    }

    struct TranscriptResponse: Encodable {
        var status: TaskStatus
        var segments: [TranscriptSegment]?
        var error: String?
    }

    struct TokenRequest: Decodable {
        var userID: String?

        enum CodingKeys: String, CodingKey { case userID = "user_id" }
    }

    func register(on router: Router) {
        router.post("/token") { request, _ in
            let user = try signedInUser(request, claimed: try? request.decode(TokenRequest.self).userID)
            let token = try await tokens.userToken(for: user, ttlSeconds: configuration.userTokenTTL)
            return try .json(token)
        }

        router.post("/recordings/complete") { request, _ in
            let body = try request.decode(CompleteRequest.self)
            let user = try signedInUser(request, claimed: body.userID)
            let file = try body.file()
            // One task per (user, file) even if the app repeats the call: the key makes the create idempotent.
            let task = try await transcriptions.create(
                TranscriptionTaskRequest(
                    fileURL: file, model: configuration.model, language: body.language,
                    // Speakers labelled as seed 001's transcripts show them.
                    diarization: configuration.speakerLabel.map { .init(enabled: true, labelTemplate: $0) },
                    callbackURL: publicURL.value + "/webhooks/earshot", userID: user),
                idempotencyKey: "recording-" + MD5.hex(Array("\(user)\n\(file)".utf8)))
            return try .json(CompleteResponse(transcriptionID: task.taskID, status: task.status), status: .accepted)
        }

        router.get("/recordings/{id}/transcript") { request, context in
            let user = try configuration.sessions.user(of: request)
            let id = try context.parameters.require("id")
            let task: TranscriptionTask
            if let reported = await inbox.task(id) {
                task = reported
            } else {
                task = try await transcriptions.get(id)
            }
            // Users see only their own recordings; someone else's id looks exactly like a missing one.
            guard task.userID == user else { throw HTTPError.notFound("no recording \(id)") }
            return try .json(TranscriptResponse(status: task.status, segments: task.segments, error: task.error))
        }

        router.post("/webhooks/earshot", body: .buffered(limit: 16 << 20)) { request, context in
            let fresh: Bool
            do {
                fresh = try await inbox.receive(
                    signature: request.headers[WebhookSignature.header],
                    delivery: request.headers[WebhookSignature.deliveryHeader], body: request.bytes)
            } catch let error as EarshotError where error.status == nil && error.code == .unauthorized {
                // Not signed by Earshot with our secret, or too old: refuse without recording anything.
                context.logger.warning("webhook refused", metadata: ["reason": "\(error.message)"])
                throw HTTPError.unauthorized(error.message)
            } catch let error as EarshotError where error.status == nil && error.code == .invalidArgument {
                throw HTTPError.invalidArgument(error.message)
            }
            let delivery = request.headers[WebhookSignature.deliveryHeader] ?? ""
            context.logger.info("webhook verified", metadata: ["delivery": "\(delivery)", "repeat": "\(!fresh)"])
            return .empty()
        }
    }

    /// The session's user; a `user_id` the app sent must be that user.
    private func signedInUser(_ request: Request, claimed: String?) throws(HTTPError) -> String {
        let user = try configuration.sessions.user(of: request)
        if let claimed, claimed != user {
            throw HTTPError.forbidden("this session belongs to another user than \(claimed)")
        }
        return user
    }

    /// EarshotKit errors as this backend's answers: the platform's status and code pass through (an expired
    /// `DownloadUrl` is still a 400 `INVALID_ARGUMENT` for the app); no answer from Earshot is a 502.
    static func map(_ error: any Error) -> HTTPError? {
        guard let error = error as? EarshotError else { return nil }
        guard let status = error.status else {
            return HTTPError(.badGateway, code: "UNAVAILABLE", message: "Earshot is unreachable: \(error.message)")
        }
        // A refused partner credential is this backend's misconfiguration, not the app's fault.
        if status == 401 && error.code == .unauthorized && error.underlying == nil {
            return HTTPError(
                .badGateway, code: "UNAVAILABLE", message: "Earshot refused this backend's partner credentials")
        }
        return HTTPError(
            HTTPStatus(code: status), code: error.wireCode ?? error.code.rawValue, message: error.message)
    }
}

/// The backend's base URL as Earshot reaches it: `BACKEND_PUBLIC_URL`, or the bound address (set after listening,
/// since port 0 picks a free port).
final class PublicURL: Sendable {
    private let state = Mutex("")

    var value: String { state.withLock { $0 } }

    func set(_ url: String) { state.withLock { $0 = url } }
}
