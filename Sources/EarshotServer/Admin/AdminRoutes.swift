import EarshotAPI
import EarshotCore
import EarshotHTTP
import Foundation

/// The admin API (`/open/admin/…`), for the instance owner's account session only (``Access/owner``; the console's
/// Admin page): partners and their credentials, webhook secrets and recent deliveries with redelivery, and an
/// overview of health and key metrics ([decisions/0011](../../../docs/decisions/0011-instance-owner.md)).
struct AdminRoutes: Sendable {
    let administration: InstanceAdministration
    let health: HealthRoutes
    let jobMetrics: JobMetrics

    func register(on api: APIRoutes) {
        api.get(APIPath.adminPartners, .owner) { _, _, _ in try .json(try await administration.partnerList()) }
        api.post(APIPath.adminPartners, .owner) { request, _, _ in
            try .json(
                try await administration.createPartner(try request.decode(AdminPartnerCreateRequest.self)),
                status: .created)
        }
        api.patch(APIPath.adminPartner, .owner) { request, context, _ in
            try .json(
                try await administration.updatePartner(
                    try context.parameters.require("partner_id"), try request.decode(AdminPartnerUpdateRequest.self)))
        }
        api.post(APIPath.adminPartnerRotateSecret, .owner) { request, context, _ in
            try .json(
                try await administration.rotateSecret(
                    try context.parameters.require("partner_id"), try request.decode(AdminSecretRotationRequest.self)))
        }
        api.get(APIPath.adminPartnerWebhookSecret, .owner) { _, context, _ in
            try .json(try await administration.webhookSecret(try context.parameters.require("partner_id")))
        }
        api.get(APIPath.adminWebhookDeliveries, .owner) { request, _, _ in
            try .json(
                try await administration.deliveries(
                    partnerID: request.query["partner_id"], state: request.query["state"],
                    limit: try request.query.get("limit", as: Int.self)))
        }
        api.post(APIPath.adminWebhookRedeliver, .owner) { _, context, _ in
            try .json(
                try await administration.redeliver(try context.parameters.require("delivery_id")), status: .accepted)
        }
        api.get(APIPath.adminOverview, .owner) { _, _, _ in try .json(try await overview()) }
    }

    /// Readiness as `/readyz` checks it, this process's requests and webhook attempts, the shared queue.
    func overview() async throws -> AdminOverview {
        async let checks = health.checks()
        let counts = try await administration.counts()
        let classes = health.metrics.requestsByStatusClass()
        let webhooks = jobMetrics.webhookAttempts
        let checked = await checks
        return AdminOverview(
            version: EarshotVersion.current,
            startedAtMs: Int64((health.process.startTime.timeIntervalSince1970 * 1000).rounded(.down)),
            status: checked.allSatisfy { $0.error == nil } ? "ready" : "unavailable",
            checks: checked.map { AdminOverview.Check(name: $0.name, ok: $0.error == nil, error: $0.error) },
            requests: AdminOverview.Requests(
                total: classes.values.reduce(0, +), clientErrors: classes[4] ?? 0, serverErrors: classes[5] ?? 0,
                inFlight: health.metrics.inFlight),
            jobs: counts.jobs, queueDepth: counts.jobs.reduce(0) { $0 + $1.queued },
            webhookAttempts: AdminOverview.WebhookAttempts(delivered: webhooks.delivered, failed: webhooks.failed),
            partners: counts.partners, accounts: counts.accounts, records: counts.records)
    }
}
