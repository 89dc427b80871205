import EarshotAPI
import EarshotHTTP

/// The transcription task routes (partner token): create, list, get, revoke, rename speakers, export.
struct TranscriptionRoutes: Sendable {
    let transcriptions: TranscriptionService
    let tokens: TokenService

    func register(on api: some RouteBuilder) {
        api.post(APIPath.transcriptions) { request, _ in
            let caller = try await tokens.authenticate(request)
            let body = try request.decode(TranscriptionTaskRequest.self)
            let (task, created) = try await transcriptions.create(
                for: caller, body, idempotencyKey: request.headers["Idempotency-Key"])
            return try .json(
                task, status: created ? .created : .ok,
                headers: created ? [:] : ["Idempotent-Replayed": "true"])
        }
        api.get(APIPath.transcriptions) { request, _ in
            let caller = try await tokens.authenticate(request)
            return try .json(
                try await transcriptions.list(
                    for: caller, cursor: request.query["cursor"], limit: try request.query.get("limit", as: Int.self),
                    status: request.query["status"], userID: request.query["user_id"]))
        }
        api.get(APIPath.transcription) { request, context in
            let caller = try await tokens.authenticate(request)
            return try .json(try await transcriptions.task(for: caller, id: try context.parameters.require("task_id")))
        }
        api.post(APIPath.revokeTranscription) { request, context in
            let caller = try await tokens.authenticate(request)
            return try .json(
                try await transcriptions.revoke(for: caller, id: try context.parameters.require("task_id")))
        }
        api.put(APIPath.transcriptionSpeakers) { request, context in
            let caller = try await tokens.authenticate(request)
            let body = try request.decode(SpeakerRenameRequest.self)
            return try .json(
                try await transcriptions.renameSpeakers(
                    for: caller, id: try context.parameters.require("task_id"), body))
        }
        api.get(APIPath.exportTranscription) { request, context in
            let caller = try await tokens.authenticate(request)
            return try await transcriptions.export(
                for: caller, id: try context.parameters.require("task_id"), format: request.query["format"])
        }
    }
}
