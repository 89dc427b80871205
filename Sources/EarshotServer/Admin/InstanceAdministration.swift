import EarshotAPI
import EarshotAccounts
import EarshotCore
import EarshotStore
import Foundation

/// What the instance owner administers over HTTP (``AdminRoutes``): every partner with its standing and credentials,
/// their webhook secrets, recent webhook deliveries of every partner and their redelivery, and the figures of the
/// overview. Callers are checked before (``Access/owner``); nothing here filters by tenant.
struct InstanceAdministration: Sendable {
    let metadata: any MetadataStore
    let partners: PartnerDirectory
    let webhooks: Webhooks
    let queue: JobQueue
    let accounts: AccountDirectory
    var now: @Sendable () -> Int64 = JobQueue.wallClock

    /// The longest overlap a rotated secret may keep working.
    static let maximumOverlap = 30 * 86_400
    /// The overlap when the request names none.
    static let defaultOverlap = 86_400

    // MARK: Partners

    /// Every partner, oldest first, with its counts.
    func partnerList() async throws -> AdminPartnerList {
        let at = now()
        return AdminPartnerList(
            partners: try await metadata.read { db in
                let accounts = try Self.counts(
                    db, "SELECT partner_id AS id, count(*) AS n FROM accounts GROUP BY partner_id")
                let records = try Self.counts(
                    db, "SELECT partner_id AS id, count(*) AS n FROM records GROUP BY partner_id")
                return try db.query(
                    "SELECT p.id, p.name, p.status, p.created_at, p.generation, p.previous_secret_expires_at, "
                        + "coalesce(t.direct_sign_in, 0) AS direct_sign_in FROM partners p "
                        + "LEFT JOIN account_tenants t ON t.partner_id = p.id ORDER BY p.created_at, p.id"
                ).map { try Self.partner($0, accounts: accounts, records: records, now: at) }
            })
    }

    /// One partner as the list shows it; 404 for an unknown id.
    func partner(_ id: String) async throws -> AdminPartner {
        guard let partner = try await partnerList().partners.first(where: { $0.partnerID == id }) else {
            throw PlatformError.notFound("no partner \(id)")
        }
        return partner
    }

    /// Creates a partner; its secret is in the answer and nowhere else.
    func createPartner(_ request: AdminPartnerCreateRequest) async throws -> AdminPartnerCredentials {
        let created = try await partners.create(name: request.name)
        return AdminPartnerCredentials(
            partner: try await partner(created.clientID), clientID: created.clientID, clientSecret: created.clientSecret
        )
    }

    /// Disables (for good: its tokens and signed URLs never work again) or enables a partner. The default tenant
    /// holds the owner's own account, so it is never disabled here.
    func updatePartner(_ id: String, _ request: AdminPartnerUpdateRequest) async throws -> AdminPartner {
        guard ["active", "disabled"].contains(request.status) else {
            throw PlatformError.invalidArgument("status \"\(request.status.prefix(32))\" must be active or disabled")
        }
        try refuseDefaultTenant(id, "disabled", when: request.status == "disabled")
        guard try await partners.setStatus(id, active: request.status == "active") else {
            throw PlatformError.notFound("no partner \(id)")
        }
        return try await partner(id)
    }

    /// A new client secret for the partner; the current one keeps working for the overlap.
    func rotateSecret(_ id: String, _ request: AdminSecretRotationRequest) async throws -> AdminPartnerCredentials {
        let overlap = request.overlapSeconds ?? Self.defaultOverlap
        guard (0...Self.maximumOverlap).contains(overlap) else {
            throw PlatformError.invalidArgument(
                "overlap_seconds \(overlap) must be 0-\(Self.maximumOverlap) (30 days); 0 ends the old secret now")
        }
        try refuseDefaultTenant(id, "given a client secret", when: true)
        guard let secret = try await partners.rotateSecret(id, overlap: .seconds(overlap)) else {
            throw PlatformError.notFound("no partner \(id)")
        }
        return AdminPartnerCredentials(partner: try await partner(id), clientID: id, clientSecret: secret)
    }

    /// The partner's webhook signing secret (made on first use, as `GET /open/partner/webhooks/secret` does).
    func webhookSecret(_ id: String) async throws -> WebhookSecret {
        guard Identifier.isValid(id, prefix: "ptn") else { throw PlatformError.notFound("no partner \(id)") }
        return WebhookSecret(secret: try await webhooks.secret(for: id))
    }

    private func refuseDefaultTenant(_ id: String, _ what: String, when refused: Bool) throws {
        guard refused, id == AccountDirectory.defaultTenant else { return }
        throw PlatformError.conflict(
            "the default tenant (\(id)) holds the instance's own accounts, the owner's included: it cannot be \(what)")
    }

    // MARK: Webhooks

    /// Recent deliveries of every partner (or of `partnerID`), newest first, in `state` when given.
    func deliveries(partnerID: String?, state: String?, limit: Int?) async throws -> AdminWebhookDeliveryList {
        let limit = limit ?? 50
        guard (1...200).contains(limit) else { throw PlatformError.invalidArgument("limit \(limit) must be 1-200") }
        let jobStates: [String]
        switch state {
        case nil: jobStates = Job.State.allCases.map(\.rawValue)
        case "pending": jobStates = ["queued", "running"]
        case "delivered": jobStates = ["succeeded"]
        case "failed": jobStates = ["failed", "cancelled"]
        case let other?:
            throw PlatformError.invalidArgument("state \"\(other.prefix(32))\" must be pending, delivered or failed")
        }
        return AdminWebhookDeliveryList(
            deliveries: try await metadata.read { db in
                let order = db.dialect == .postgresql ? "d.seq" : "d.rowid"
                let placeholders = Array(repeating: "?", count: jobStates.count).joined(separator: ", ")
                return try db.query(
                    "SELECT d.id, d.tenant, d.job_id, d.url, d.event, d.created_at, j.state, j.attempts, j.run_after, "
                        + "j.updated_at FROM webhook_deliveries d JOIN jobs j ON j.id = d.id "
                        + "WHERE (? IS NULL OR d.tenant = ?) AND j.state IN (\(placeholders)) "
                        + "ORDER BY d.created_at DESC, \(order) DESC LIMIT ?",
                    [partnerID.sqlValue, partnerID.sqlValue] + jobStates.map { .text($0) } + [.integer(Int64(limit))]
                ).map { row in
                    let id = try row.decode("id", as: String.self)
                    let last = try db.queryFirst(
                        "SELECT attempt, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ? "
                            + "ORDER BY attempt DESC", id
                    ).map { attempt in
                        WebhookAttempt(
                            attempt: try attempt.decode("attempt", as: Int.self),
                            atMs: try attempt.decode("at", as: Int64.self),
                            status: try attempt.decode("status", as: Int?.self),
                            error: try attempt.decode("error", as: String?.self),
                            durationMs: try attempt.decode("duration_ms", as: Int.self))
                    }
                    let state = Job.State(rawValue: try row.decode("state", as: String.self)) ?? .failed
                    return AdminWebhookDelivery(
                        deliveryID: id, partnerID: try row.decode("tenant", as: String.self),
                        taskID: try row.decode("job_id", as: String.self), url: try row.decode("url", as: String.self),
                        event: try row.decode("event", as: String.self), state: Webhooks.deliveryState(state),
                        attempts: try row.decode("attempts", as: Int.self),
                        createdAtMs: try row.decode("created_at", as: Int64.self),
                        nextAttemptAtMs: try row.decode(state.isFinal ? "updated_at" : "run_after", as: Int64.self),
                        lastAttempt: last)
                }
            })
    }

    /// Delivers the event of delivery `id` again, as its task's new delivery (the limits of
    /// ``Webhooks/redeliver(_:)`` apply: none while one is pending, at most ten per task).
    func redeliver(_ id: String) async throws -> WebhookDelivery {
        guard Identifier.isValid(id, prefix: "whd"),
            let (jobID, tenant) = try await metadata.read({ db in
                try db.queryFirst("SELECT job_id, tenant FROM webhook_deliveries WHERE id = ?", id).map {
                    (try $0.decode("job_id", as: String.self), try $0.decode("tenant", as: String.self))
                }
            }),
            let job = try await queue.job(jobID, tenant: tenant)
        else { throw PlatformError.notFound("no webhook delivery \(id)") }
        return try await webhooks.redeliver(job)
    }

    // MARK: Overview

    /// The job queue by kind and state, and the instance's partners, accounts and records.
    func counts() async throws -> (jobs: [AdminOverview.JobCounts], partners: Int, accounts: Int, records: Int) {
        try await metadata.read { db in
            var kinds: [String: [String: Int]] = [:]
            for row in try db.query("SELECT kind, state, count(*) AS n FROM jobs GROUP BY kind, state") {
                kinds[try row.decode("kind", as: String.self), default: [:]][try row.decode("state", as: String.self)] =
                    try row.decode("n", as: Int.self)
            }
            let jobs = kinds.keys.sorted().map { kind in
                let states = kinds[kind] ?? [:]
                return AdminOverview.JobCounts(
                    kind: kind, queued: states["queued"] ?? 0, running: states["running"] ?? 0,
                    succeeded: states["succeeded"] ?? 0, failed: states["failed"] ?? 0,
                    cancelled: states["cancelled"] ?? 0)
            }
            func count(_ table: String) throws -> Int {
                try db.scalar("SELECT count(*) FROM \(table)", as: Int.self) ?? 0
            }
            return (jobs, try count("partners"), try count("accounts"), try count("records"))
        }
    }

    private static func counts(_ db: any SQLDatabase, _ sql: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try db.query(sql) {
            counts[try row.decode("id", as: String.self)] = try row.decode("n", as: Int.self)
        }
        return counts
    }

    private static func partner(_ row: SQLRow, accounts: [String: Int], records: [String: Int], now: Int64) throws
        -> AdminPartner
    {
        let id = try row.decode("id", as: String.self)
        let previous = try row.decode("previous_secret_expires_at", as: Int64?.self)
        return AdminPartner(
            partnerID: id, name: try row.decode("name", as: String.self),
            status: try row.decode("status", as: String.self),
            createdAtMs: try row.decode("created_at", as: Int64.self),
            generation: try row.decode("generation", as: Int.self),
            defaultTenant: id == AccountDirectory.defaultTenant,
            previousSecretExpiresAtMs: previous.flatMap { $0 > now ? $0 : nil },
            directSignIn: try row.decode("direct_sign_in", as: Int.self) == 1, accounts: accounts[id] ?? 0,
            records: records[id] ?? 0)
    }
}
