import EarshotAPI
import EarshotHTTP

/// Webhook routes (partner token): a task's deliveries with their attempts, redelivery, the signing secret.
struct WebhookRoutes: Sendable {
    let transcriptions: TranscriptionService
    let webhooks: Webhooks
    let tokens: TokenService

    func register(on api: some RouteBuilder) {
        api.get(APIPath.webhookDeliveries) { request, context in
            let caller = try await tokens.authenticate(request)
            let job = try await transcriptions.job(for: caller, id: try context.parameters.require("task_id"))
            return try .json(WebhookDeliveryList(deliveries: try await webhooks.deliveries(of: job.id)))
        }
        api.post(APIPath.webhookRedeliver) { request, context in
            let caller = try await tokens.authenticate(request)
            let job = try await transcriptions.job(for: caller, id: try context.parameters.require("task_id"))
            return try .json(try await webhooks.redeliver(job), status: .accepted)
        }
        api.get(APIPath.webhookSecret) { request, _ in
            let caller = try await tokens.authenticate(request)
            try caller.requirePartner("reading the webhook secret")
            return try .json(WebhookSecret(secret: try await webhooks.secret(for: caller.partnerID)))
        }
    }
}
