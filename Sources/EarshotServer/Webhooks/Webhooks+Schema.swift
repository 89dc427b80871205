import EarshotStore

extension Webhooks {
    /// Webhook deliveries and their attempts (and the partners' webhook secrets).
    static let schema = SchemaComponent(
        "webhooks",
        [
            Migration(
                version: 1, name: "webhooks",
                sql: """
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
                    """,
                postgresql: """
                    ALTER TABLE partners ADD COLUMN webhook_secret TEXT;
                    -- seq stands in for SQLite's rowid (the order deliveries were made in).
                    CREATE TABLE webhook_deliveries (
                        id              TEXT PRIMARY KEY,
                        seq             BIGINT GENERATED ALWAYS AS IDENTITY,
                        tenant          TEXT NOT NULL,
                        job_id          TEXT NOT NULL REFERENCES jobs (id),
                        url             TEXT NOT NULL,
                        event           TEXT NOT NULL,
                        body            TEXT NOT NULL,
                        state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                        attempts        INTEGER NOT NULL DEFAULT 0,
                        next_attempt_at BIGINT NOT NULL,
                        give_up_at      BIGINT NOT NULL,
                        created_at      BIGINT NOT NULL,
                        updated_at      BIGINT NOT NULL
                    );
                    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
                    CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id, created_at);
                    CREATE TABLE webhook_attempts (
                        delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id),
                        attempt     INTEGER NOT NULL,
                        at          BIGINT NOT NULL,
                        status      INTEGER,
                        error       TEXT,
                        duration_ms BIGINT NOT NULL,
                        PRIMARY KEY (delivery_id, attempt)
                    );
                    """,
                legacy: .init(
                    version: 5, name: "webhooks",
                    checksum: "6f84824d03782975164d3064b3f31cbca45728fcdcdba7c1f4c710a970e7c378")),
            Migration(
                version: 2, name: "deliveries_are_jobs",
                sql: """
                    -- Each delivery is sent by a `webhook` job of the shared job runner, with the delivery's id:
                    -- the job's state, attempts and run_after replace the delivery's own columns (pending = queued or
                    -- running, delivered = succeeded, failed = failed or cancelled). give_up_at still bounds retries.
                    INSERT INTO jobs (id, tenant, subject, kind, payload, state, progress, attempts, max_attempts,
                                      run_after, created_at, updated_at, finished_at)
                    SELECT id, tenant, NULL, 'webhook', '{}',
                           CASE state WHEN 'pending' THEN 'queued' WHEN 'delivered' THEN 'succeeded' ELSE 'failed' END,
                           CASE state WHEN 'delivered' THEN 1 ELSE 0 END, attempts, 1000000, next_attempt_at,
                           created_at, updated_at, CASE state WHEN 'pending' THEN NULL ELSE updated_at END
                    FROM webhook_deliveries;
                    DROP INDEX webhook_deliveries_due;
                    ALTER TABLE webhook_deliveries DROP COLUMN state;
                    ALTER TABLE webhook_deliveries DROP COLUMN attempts;
                    ALTER TABLE webhook_deliveries DROP COLUMN next_attempt_at;
                    """),
        ])
}
