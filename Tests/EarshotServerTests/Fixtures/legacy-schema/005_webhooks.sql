-- Per-partner secret that signs webhook bodies (HMAC-SHA256), created on first use.
ALTER TABLE partners ADD COLUMN webhook_secret TEXT;
-- One event to deliver to a callback URL ('pending' until a 2xx, 'failed' once the retry period is
-- over). next_attempt_at doubles as a short lease while an attempt is in flight.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    tenant          TEXT NOT NULL,
    job_id          TEXT NOT NULL REFERENCES jobs (id),
    url             TEXT NOT NULL,
    event           TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    give_up_at      INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id, created_at);
-- Every attempt, successful or not.
CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id),
    attempt     INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    status      INTEGER,
    error       TEXT,
    duration_ms INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);