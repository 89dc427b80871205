import EarshotAPI
import EarshotHTTP

/// The voiceprint routes (partner token naming a user, or a user token for its own user): enrol, list, delete.
struct VoiceprintRoutes: Sendable {
    let voiceprints: VoiceprintService
    let tokens: TokenService

    func register(on api: some RouteBuilder) {
        api.post(APIPath.voiceprints) { request, _ in
            let caller = try await tokens.authenticate(request)
            let body = try request.decode(VoiceprintEnrolmentRequest.self)
            return try .json(try await voiceprints.enrol(for: caller, body), status: .created)
        }
        api.get(APIPath.voiceprints) { request, _ in
            let caller = try await tokens.authenticate(request)
            return try .json(try await voiceprints.list(for: caller, userID: request.query["user_id"]))
        }
        api.delete(APIPath.voiceprint) { request, context in
            let caller = try await tokens.authenticate(request)
            return try .json(
                try await voiceprints.delete(for: caller, id: try context.parameters.require("voiceprint_id")))
        }
    }
}
