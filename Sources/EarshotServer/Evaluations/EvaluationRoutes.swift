import EarshotAPI
import EarshotHTTP

/// The evaluation routes (partner or user token; the token decides the scope): score records against references,
/// list, read, the HTML report, delete. Reading needs `records:read`; creating and deleting `records:write`.
struct EvaluationRoutes: Sendable {
    let evaluations: EvaluationService

    func register(on api: APIRoutes) {
        api.post(APIPath.evaluations, .partnerOrUser(.recordsWrite)) { request, _, caller in
            try .json(
                try await evaluations.create(for: caller, try request.decode(EvaluationCreateRequest.self)),
                status: .created)
        }
        api.get(APIPath.evaluations, .partnerOrUser(.recordsRead)) { request, _, caller in
            try .json(
                try await evaluations.list(
                    for: caller, userID: try TokenService.userFilter(request.query),
                    limit: try request.query.get("limit", as: Int.self)))
        }
        api.get(APIPath.evaluation, .partnerOrUser(.recordsRead)) { _, context, caller in
            try .json(try await evaluations.item(for: caller, id: try context.parameters.require("evaluation_id")))
        }
        api.get(APIPath.evaluationReport, .partnerOrUser(.recordsRead)) { _, context, caller in
            try await evaluations.report(for: caller, id: try context.parameters.require("evaluation_id"))
        }
        api.delete(APIPath.evaluation, .partnerOrUser(.recordsWrite)) { _, context, caller in
            try await evaluations.delete(for: caller, id: try context.parameters.require("evaluation_id"))
            return Response(status: .noContent)
        }
    }
}
