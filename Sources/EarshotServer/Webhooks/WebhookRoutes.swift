import EarshotAPI
import EarshotHTTP

/// Webhook routes (partner token): a task's deliveries with their attempts, redelivery, the signing secret.
struct WebhookRoutes: Sendable {
    let transcriptions: TranscriptionService
    let webhooks: Webhooks

    func register(on api: APIRoutes) {
        api.get(APIPath.webhookDeliveries, .partner) { _, context, caller in
            let job = try await transcriptions.job(for: caller, id: try context.parameters.require("task_id"))
            return try .json(WebhookDeliveryList(deliveries: try await webhooks.deliveries(of: job.id)))
        }
        api.post(APIPath.webhookRedeliver, .partner) { _, context, caller in
            let job = try await transcriptions.job(for: caller, id: try context.parameters.require("task_id"))
            return try .json(try await webhooks.redeliver(job), status: .accepted)
        }
        api.get(APIPath.webhookSecret, .partner) { _, _, caller in
            try .json(WebhookSecret(secret: try await webhooks.secret(for: caller.partnerID)))
        }
    }
}
