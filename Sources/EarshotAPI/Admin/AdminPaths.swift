extension APIPath {
    /// `GET` (instance owner): every partner (tenant) with its standing; `POST`: create one (its secret shown once).
    public static let adminPartners = "/open/admin/partners"
    /// `PATCH` (instance owner): disable a partner (its tokens and signed URLs stop for good) or enable it again.
    public static let adminPartner = "/open/admin/partners/{partner_id}"
    /// `POST` (instance owner): a new client secret (shown once); the old one keeps working for the overlap.
    public static let adminPartnerRotateSecret = "/open/admin/partners/{partner_id}/rotate-secret"
    /// `GET` (instance owner): the secret that signs the partner's webhooks (made on first use).
    public static let adminPartnerWebhookSecret = "/open/admin/partners/{partner_id}/webhook-secret"
    /// `GET` (instance owner): recent webhook deliveries of every partner, newest first (`?partner_id=&state=&limit=`).
    public static let adminWebhookDeliveries = "/open/admin/webhooks/deliveries"
    /// `POST` (instance owner): deliver that delivery's event again, as a new delivery.
    public static let adminWebhookRedeliver = "/open/admin/webhooks/deliveries/{delivery_id}/redeliver"
    /// `GET` (instance owner): health and key figures at a glance (readiness checks, requests, jobs, queue depth).
    public static let adminOverview = "/open/admin/overview"
}
