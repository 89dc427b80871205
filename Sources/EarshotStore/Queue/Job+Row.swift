extension Job {
    /// A job from a row selected with ``Job/columns``, read column by column: the same result as
    /// `row.decode(Job.self)` without going through `Decodable` (task status reads are a hot path, and the generic
    /// decoder's metadata look-ups cost more than the query).
    ///
    /// - Throws: ``StoreError`` `.database` naming a missing column or one of another type.
    public init(row: SQLRow) throws(StoreError) {
        let stateName = try row.decode("state", as: String.self)
        guard let state = State(rawValue: stateName) else {
            throw StoreError(.database, "column \"state\" holds \"\(stateName)\", which is not a job state")
        }
        self.init(
            id: try row.decode("id"), tenant: try row.decode("tenant"), subject: try row.decode("subject"),
            kind: try row.decode("kind"), payload: try row.decode("payload"), state: state,
            stage: try row.decode("stage"), progress: try row.decode("progress"), attempts: try row.decode("attempts"),
            maxAttempts: try row.decode("max_attempts"), lostLeases: try row.decode("lost_leases"),
            partitionKey: try row.decode("partition_key"), runAfter: try row.decode("run_after"),
            leaseOwner: try row.decode("lease_owner"), leaseToken: try row.decode("lease_token"),
            leaseExpiresAt: try row.decode("lease_expires_at"), heartbeatAt: try row.decode("heartbeat_at"),
            idempotencyKey: try row.decode("idempotency_key"), requestHash: try row.decode("request_hash"),
            result: try row.decode("result"), error: try row.decode("error"), createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at"), startedAt: try row.decode("started_at"),
            finishedAt: try row.decode("finished_at"))
    }
}
