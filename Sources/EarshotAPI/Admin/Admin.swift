/// A partner (tenant) as the instance owner sees it (`GET /open/admin/partners`).
public struct AdminPartner: Codable, Sendable, Hashable {
    /// `ptn_…`, also its OAuth `client_id`.
    public var partnerID: String
    public var name: String
    /// `active` or `disabled`.
    public var status: String
    public var createdAtMs: Int64
    /// Bumped at each disable: tokens and signed URLs of an older generation never work again.
    public var generation: Int
    /// The instance's default tenant (where self-hosters' accounts live): it has no client credentials, and it can
    /// be neither disabled nor given a secret here.
    public var defaultTenant: Bool
    /// Until when the previous client secret still works after a rotation (Unix ms), while it does.
    public var previousSecretExpiresAtMs: Int64?
    /// Whether its users may sign up and sign in to Earshot directly.
    public var directSignIn: Bool
    /// Accounts in this tenant.
    public var accounts: Int
    /// Records in this tenant.
    public var records: Int

    public init(
        partnerID: String, name: String, status: String, createdAtMs: Int64, generation: Int, defaultTenant: Bool,
        previousSecretExpiresAtMs: Int64?, directSignIn: Bool, accounts: Int, records: Int
    ) {
        self.partnerID = partnerID
        self.name = name
        self.status = status
        self.createdAtMs = createdAtMs
        self.generation = generation
        self.defaultTenant = defaultTenant
        self.previousSecretExpiresAtMs = previousSecretExpiresAtMs
        self.directSignIn = directSignIn
        self.accounts = accounts
        self.records = records
    }

    enum CodingKeys: String, CodingKey {
        case name, status, generation, accounts, records
        case partnerID = "partner_id"
        case createdAtMs = "created_at_ms"
        case defaultTenant = "default_tenant"
        case previousSecretExpiresAtMs = "previous_secret_expires_at_ms"
        case directSignIn = "direct_sign_in"
    }
}

/// `GET /open/admin/partners`: oldest first.
public struct AdminPartnerList: Codable, Sendable, Hashable {
    public var partners: [AdminPartner]

    public init(partners: [AdminPartner]) { self.partners = partners }
}

/// `POST /open/admin/partners`.
public struct AdminPartnerCreateRequest: Codable, Sendable, Hashable {
    /// 1-200 characters.
    public var name: String

    public init(name: String) { self.name = name }
}

/// `PATCH /open/admin/partners/{partner_id}`.
public struct AdminPartnerUpdateRequest: Codable, Sendable, Hashable {
    /// `active` or `disabled`. Disabling revokes every token and signed URL the partner holds, for good.
    public var status: String

    public init(status: String) { self.status = status }
}

/// `POST /open/admin/partners/{partner_id}/rotate-secret`.
public struct AdminSecretRotationRequest: Codable, Sendable, Hashable {
    /// How long the current secret keeps working, in seconds (0 ends it at once; at most 30 days; default 1 day).
    public var overlapSeconds: Int?

    public init(overlapSeconds: Int? = nil) { self.overlapSeconds = overlapSeconds }

    enum CodingKeys: String, CodingKey {
        case overlapSeconds = "overlap_seconds"
    }
}

/// A partner's client credentials: created, or a rotated secret. The secret is shown this once; only its hash is
/// kept.
public struct AdminPartnerCredentials: Codable, Sendable, Hashable {
    public var partner: AdminPartner
    public var clientID: String
    public var clientSecret: String

    public init(partner: AdminPartner, clientID: String, clientSecret: String) {
        self.partner = partner
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    enum CodingKeys: String, CodingKey {
        case partner
        case clientID = "client_id"
        case clientSecret = "client_secret"
    }
}

/// A webhook delivery of any partner, with its last attempt (`GET /open/admin/webhooks/deliveries`).
public struct AdminWebhookDelivery: Codable, Sendable, Hashable {
    public var deliveryID: String
    public var partnerID: String
    public var taskID: String
    public var url: String
    /// `transcription.succeeded`, `transcription.failed` or `transcription.revoked`.
    public var event: String
    /// `pending`, `delivered` or `failed`.
    public var state: String
    public var attempts: Int
    public var createdAtMs: Int64
    /// The next attempt (pending), or when it ended.
    public var nextAttemptAtMs: Int64
    /// The latest attempt, if any was made.
    public var lastAttempt: WebhookAttempt?

    public init(
        deliveryID: String, partnerID: String, taskID: String, url: String, event: String, state: String,
        attempts: Int, createdAtMs: Int64, nextAttemptAtMs: Int64, lastAttempt: WebhookAttempt?
    ) {
        self.deliveryID = deliveryID
        self.partnerID = partnerID
        self.taskID = taskID
        self.url = url
        self.event = event
        self.state = state
        self.attempts = attempts
        self.createdAtMs = createdAtMs
        self.nextAttemptAtMs = nextAttemptAtMs
        self.lastAttempt = lastAttempt
    }

    enum CodingKeys: String, CodingKey {
        case url, event, state, attempts
        case deliveryID = "delivery_id"
        case partnerID = "partner_id"
        case taskID = "task_id"
        case createdAtMs = "created_at_ms"
        case nextAttemptAtMs = "next_attempt_at_ms"
        case lastAttempt = "last_attempt"
    }
}

/// `GET /open/admin/webhooks/deliveries`: newest first.
public struct AdminWebhookDeliveryList: Codable, Sendable, Hashable {
    public var deliveries: [AdminWebhookDelivery]

    public init(deliveries: [AdminWebhookDelivery]) { self.deliveries = deliveries }
}

/// `GET /open/admin/overview`: the instance at a glance.
public struct AdminOverview: Codable, Sendable, Hashable {
    /// `earshot version`.
    public var version: String
    /// When this process started (Unix ms).
    public var startedAtMs: Int64
    /// Readiness as `GET /readyz` answers it: `ready` or `unavailable`, and each check.
    public var status: String
    public var checks: [Check]
    /// HTTP requests this process finished since it started, by status class.
    public var requests: Requests
    /// The job queue (every process's jobs: it is the shared queue), by kind and state.
    public var jobs: [JobCounts]
    /// Jobs waiting to run (state `queued`), all kinds.
    public var queueDepth: Int
    /// Webhook POSTs this process made since it started.
    public var webhookAttempts: WebhookAttempts
    public var partners: Int
    public var accounts: Int
    public var records: Int

    /// One readiness check (`metadata`, `blobs`, `disk`).
    public struct Check: Codable, Sendable, Hashable {
        public var name: String
        public var ok: Bool
        public var error: String?

        public init(name: String, ok: Bool, error: String?) {
            self.name = name
            self.ok = ok
            self.error = error
        }
    }

    /// Requests by status class (from `earshot_http_requests_total`).
    public struct Requests: Codable, Sendable, Hashable {
        public var total: UInt64
        /// 4xx answers.
        public var clientErrors: UInt64
        /// 5xx answers.
        public var serverErrors: UInt64
        /// Being handled now (this one included).
        public var inFlight: Int

        public init(total: UInt64, clientErrors: UInt64, serverErrors: UInt64, inFlight: Int) {
            self.total = total
            self.clientErrors = clientErrors
            self.serverErrors = serverErrors
            self.inFlight = inFlight
        }

        enum CodingKeys: String, CodingKey {
            case total
            case clientErrors = "client_errors"
            case serverErrors = "server_errors"
            case inFlight = "in_flight"
        }
    }

    /// One job kind's jobs by state (`earshot_jobs`).
    public struct JobCounts: Codable, Sendable, Hashable {
        public var kind: String
        public var queued: Int
        public var running: Int
        public var succeeded: Int
        public var failed: Int
        public var cancelled: Int

        public init(kind: String, queued: Int, running: Int, succeeded: Int, failed: Int, cancelled: Int) {
            self.kind = kind
            self.queued = queued
            self.running = running
            self.succeeded = succeeded
            self.failed = failed
            self.cancelled = cancelled
        }
    }

    /// `earshot_webhook_attempts_total`.
    public struct WebhookAttempts: Codable, Sendable, Hashable {
        public var delivered: UInt64
        public var failed: UInt64

        public init(delivered: UInt64, failed: UInt64) {
            self.delivered = delivered
            self.failed = failed
        }
    }

    public init(
        version: String, startedAtMs: Int64, status: String, checks: [Check], requests: Requests, jobs: [JobCounts],
        queueDepth: Int, webhookAttempts: WebhookAttempts, partners: Int, accounts: Int, records: Int
    ) {
        self.version = version
        self.startedAtMs = startedAtMs
        self.status = status
        self.checks = checks
        self.requests = requests
        self.jobs = jobs
        self.queueDepth = queueDepth
        self.webhookAttempts = webhookAttempts
        self.partners = partners
        self.accounts = accounts
        self.records = records
    }

    enum CodingKeys: String, CodingKey {
        case version, status, checks, requests, jobs, partners, accounts, records
        case startedAtMs = "started_at_ms"
        case queueDepth = "queue_depth"
        case webhookAttempts = "webhook_attempts"
    }
}
