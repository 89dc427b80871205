import EarshotAPI
import EarshotHTTP

/// The transcription task routes (partner token): create, list, get, revoke, rename speakers, export.
struct TranscriptionRoutes: Sendable {
    let transcriptions: TranscriptionService

    func register(on api: APIRoutes) {
        api.post(APIPath.transcriptions, .partner) { request, _, caller in
            let body = try request.decode(TranscriptionTaskRequest.self)
            let (task, created) = try await transcriptions.create(
                for: caller, body, idempotencyKey: request.headers["Idempotency-Key"])
            return try .json(
                task, status: created ? .created : .ok,
                headers: created ? [:] : ["Idempotent-Replayed": "true"])
        }
        api.get(APIPath.transcriptions, .partner) { request, _, caller in
            try .json(
                try await transcriptions.list(
                    for: caller, cursor: request.query["cursor"], limit: try request.query.get("limit", as: Int.self),
                    status: request.query["status"], userID: try TokenService.userFilter(request.query)))
        }
        // The hot read (apps poll it): answered on the HTTP worker thread when the store can read at once.
        api.get(
            APIPath.transcription, .partner,
            attempt: { _, context, caller in
                try transcriptions.taskResponseImmediately(for: caller, id: try context.parameters.require("task_id"))
            },
            use: { _, context, caller in
                try await transcriptions.taskResponse(for: caller, id: try context.parameters.require("task_id"))
            })
        api.post(APIPath.revokeTranscription, .partner) { _, context, caller in
            try .json(try await transcriptions.revoke(for: caller, id: try context.parameters.require("task_id")))
        }
        api.put(APIPath.transcriptionSpeakers, .partner) { request, context, caller in
            let body = try request.decode(SpeakerRenameRequest.self)
            return try .json(
                try await transcriptions.renameSpeakers(
                    for: caller, id: try context.parameters.require("task_id"), body))
        }
        api.get(APIPath.exportTranscription, .partner) { request, context, caller in
            try await transcriptions.export(
                for: caller, id: try context.parameters.require("task_id"), format: request.query["format"])
        }
    }
}
