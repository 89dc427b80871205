import EarshotAPI
import EarshotHTTP

/// The voiceprint routes (partner token naming a user, or a user token for its own user): enrol, list, delete.
struct VoiceprintRoutes: Sendable {
    let voiceprints: VoiceprintService

    func register(on api: APIRoutes) {
        api.post(APIPath.voiceprints, .partnerOrUser(.recordsWrite)) { request, _, caller in
            let body = try request.decode(VoiceprintEnrolmentRequest.self)
            return try .json(try await voiceprints.enrol(for: caller, body), status: .created)
        }
        api.get(APIPath.voiceprints, .partnerOrUser(.recordsRead)) { request, _, caller in
            try .json(try await voiceprints.list(for: caller, userID: try TokenService.userFilter(request.query)))
        }
        api.delete(APIPath.voiceprint, .partnerOrUser(.recordsWrite)) { _, context, caller in
            try .json(try await voiceprints.delete(for: caller, id: try context.parameters.require("voiceprint_id")))
        }
    }
}
