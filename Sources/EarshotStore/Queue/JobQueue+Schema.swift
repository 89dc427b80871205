extension JobQueue {
    /// The queue's table (`jobs`).
    public static let schema = SchemaComponent(
        "queue",
        [
            Migration(
                version: 1, name: "jobs",
                sql: """
                    -- The durable job queue (see JobQueue). A worker claims a 'queued' job whose run_after has passed by
                    -- taking a lease (lease_owner, lease_expires_at) and extends it with heartbeats; an expired lease
                    -- puts the job back to 'queued' (or 'failed' once attempts reach max_attempts). Every transition is
                    -- conditional on the lease, so a job finishes exactly once. Times are Unix milliseconds.
                    CREATE TABLE jobs (
                        id               TEXT PRIMARY KEY,
                        tenant           TEXT NOT NULL,
                        subject          TEXT,
                        kind             TEXT NOT NULL,
                        payload          TEXT NOT NULL,
                        state            TEXT NOT NULL
                                         CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
                        stage            TEXT,
                        progress         REAL NOT NULL DEFAULT 0,
                        attempts         INTEGER NOT NULL DEFAULT 0,
                        max_attempts     INTEGER NOT NULL CHECK (max_attempts > 0),
                        run_after        INTEGER NOT NULL,
                        lease_owner      TEXT,
                        lease_expires_at INTEGER,
                        heartbeat_at     INTEGER,
                        idempotency_key  TEXT,
                        request_hash     TEXT,
                        result           TEXT,
                        error            TEXT,
                        created_at       INTEGER NOT NULL,
                        updated_at       INTEGER NOT NULL,
                        started_at       INTEGER,
                        finished_at      INTEGER,
                        UNIQUE (tenant, kind, idempotency_key)
                    );
                    CREATE INDEX jobs_due ON jobs (kind, state, run_after);
                    CREATE INDEX jobs_lease ON jobs (state, lease_expires_at);
                    CREATE INDEX jobs_tenant ON jobs (tenant, kind, created_at, id);
                    """,
                postgresql: """
                    -- See the SQLite script: the same table with PostgreSQL's types (BIGINT milliseconds, DOUBLE PRECISION).
                    CREATE TABLE jobs (
                        id               TEXT PRIMARY KEY,
                        tenant           TEXT NOT NULL,
                        subject          TEXT,
                        kind             TEXT NOT NULL,
                        payload          TEXT NOT NULL,
                        state            TEXT NOT NULL
                                         CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
                        stage            TEXT,
                        progress         DOUBLE PRECISION NOT NULL DEFAULT 0,
                        attempts         INTEGER NOT NULL DEFAULT 0,
                        max_attempts     INTEGER NOT NULL CHECK (max_attempts > 0),
                        run_after        BIGINT NOT NULL,
                        lease_owner      TEXT,
                        lease_expires_at BIGINT,
                        heartbeat_at     BIGINT,
                        idempotency_key  TEXT,
                        request_hash     TEXT,
                        result           TEXT,
                        error            TEXT,
                        created_at       BIGINT NOT NULL,
                        updated_at       BIGINT NOT NULL,
                        started_at       BIGINT,
                        finished_at      BIGINT,
                        UNIQUE (tenant, kind, idempotency_key)
                    );
                    CREATE INDEX jobs_due ON jobs (kind, state, run_after);
                    CREATE INDEX jobs_lease ON jobs (state, lease_expires_at);
                    CREATE INDEX jobs_tenant ON jobs (tenant, kind, created_at, id);
                    """,
                legacy: .init(
                    version: 4, name: "jobs",
                    checksum: "ce94d056b5b279a93c73ffab51fa845e960a7b05e2064210fea3403040cc75ad")),
            Migration(
                version: 2, name: "lease_tokens",
                sql: """
                    -- A fencing token per claim: every claim increments lease_token and every later transition of that
                    -- attempt (heartbeat, complete, fail, release) names it, so a worker whose lease was taken over
                    -- (paused, partitioned, presumed dead) can never write over the new owner's outcome.
                    ALTER TABLE jobs ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
                    """),
            Migration(
                version: 3, name: "lost_leases_and_partitions",
                sql: """
                    -- A lease that expired (the process running the job crashed, was killed or hung) is not the job's
                    -- fault: it is counted in lost_leases, apart from the attempts the job itself failed, and has its
                    -- own, higher bound (JobQueue.maximumLostLeases). partition_key names what a job competes for (a
                    -- webhook's callback host): a claim can skip partitions that are busy in the claiming process.
                    ALTER TABLE jobs ADD COLUMN lost_leases INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE jobs ADD COLUMN partition_key TEXT;
                    """),
        ])
}
