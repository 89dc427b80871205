import Foundation
import Synchronization
import Testing

@testable import EarshotStore

/// The durable job queue on a real SQLite file and a real PostgreSQL database: claims with leases, heartbeats,
/// exactly-once completion, fencing tokens, bounded retries, expiry re-queue, cancellation, idempotency keys, paging
/// and (PostgreSQL) wake-ups across connections.
@Suite struct JobQueueTests {
    final class Clock: Sendable {
        let value = Mutex<Int64>(1_000_000)
        func advance(_ ms: Int64) { value.withLock { $0 += ms } }
        var now: Int64 { value.withLock { $0 } }
    }

    func withQueue(
        _ backend: MetadataBackend, _ body: (JobQueue, Clock, any MetadataStore) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory.url)
        let clock = Clock()
        let queue = JobQueue(metadata: store, now: { clock.now })
        do {
            try await body(queue, clock, store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    func new(_ id: String, key: String? = nil, hash: String? = nil, attempts: Int = 2) -> NewJob {
        NewJob(
            id: id, tenant: "ptn_a", kind: "transcription", payload: "{}", maxAttempts: attempts, idempotencyKey: key,
            requestHash: hash)
    }

    @Test(arguments: MetadataBackend.available)
    func aClaimedJobCompletesOnceAndOnlyByItsOwner(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, _, _ in
            _ = try await queue.enqueue(new("job_1"))
            let job = try #require(try await queue.claim(kind: "transcription", owner: "w1", lease: .seconds(30)))
            #expect(job.state == .running && job.attempts == 1 && job.leaseOwner == "w1")
            let token = job.leaseToken
            #expect(try await queue.claim(kind: "transcription", owner: "w2", lease: .seconds(30)) == nil)
            #expect(try await queue.complete("job_1", owner: "w2", token: token, result: "x") == nil)
            #expect(try await queue.complete("job_1", owner: "w1", token: token, result: "done") != nil)
            #expect(try await queue.complete("job_1", owner: "w1", token: token, result: "again") == nil)
            let done = try #require(try await queue.job("job_1", tenant: "ptn_a"))
            #expect(done.state == .succeeded && done.result == "done" && done.progress == 1)
            #expect(try await queue.job("job_1", tenant: "ptn_b") == nil)
        }
    }

    @Test(arguments: MetadataBackend.available)
    func anExpiredLeaseRequeuesAndTheOldOwnerCannotFinish(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, clock, _ in
            _ = try await queue.enqueue(new("job_1", attempts: 2))
            let dead = try #require(try await queue.claim(kind: "transcription", owner: "dead", lease: .seconds(10)))
            clock.advance(5_000)
            #expect(
                try await queue.heartbeat(
                    "job_1", owner: "dead", token: dead.leaseToken, lease: .seconds(10), progress: 0.5))
            clock.advance(9_000)
            #expect(try await queue.requeueExpired().isEmpty)  // the heartbeat extended the lease
            clock.advance(2_000)
            let requeued = try await queue.requeueExpired()
            #expect(requeued.map(\.state) == [.queued])
            #expect(try await queue.heartbeat("job_1", owner: "dead", token: dead.leaseToken, lease: .seconds(10)) == false)
            let again = try #require(try await queue.claim(kind: "transcription", owner: "alive", lease: .seconds(10)))
            #expect(again.attempts == 2 && again.leaseToken == dead.leaseToken + 1)
            #expect(try await queue.complete("job_1", owner: "dead", token: dead.leaseToken, result: "zombie") == nil)
            #expect(try await queue.complete("job_1", owner: "alive", token: again.leaseToken, result: "ok") != nil)
            // An expiry is not the job's fault: even a one-attempt job goes back to the queue, with the reason.
            _ = try await queue.enqueue(new("job_2", attempts: 1))
            _ = try await queue.claim(kind: "transcription", owner: "dead", lease: .seconds(1))
            clock.advance(2_000)
            let requeuedAgain = try await queue.requeueExpired()
            #expect(requeuedAgain.first?.state == .queued)
            #expect(requeuedAgain.first?.lostLeases == 1)
            #expect(requeuedAgain.first?.error?.contains("lease expired") == true)
        }
    }

    /// A dead worker's job is recovered first: it goes back to its place, not behind the jobs queued while it ran.
    @Test(arguments: MetadataBackend.available)
    func anExpiredJobGoesBackToItsPlaceInTheQueue(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, clock, _ in
            _ = try await queue.enqueue(new("job_1"))
            _ = try #require(try await queue.claim(kind: "transcription", owner: "dead", lease: .seconds(1)))
            clock.advance(500)
            _ = try await queue.enqueue(new("job_2"))
            clock.advance(2_000)
            #expect(try await queue.requeueExpired().map(\.id) == ["job_1"])
            let next = try #require(try await queue.claim(kind: "transcription", owner: "alive", lease: .seconds(30)))
            #expect(next.id == "job_1", "the recovered job is claimed before the one queued while it ran")
        }
    }

    /// Issue 13, finding 3: three server crashes during one long task made it FAILURE ("lease expired after
    /// attempt 3"). Crashes count as lost leases, not failed attempts; only a job that keeps taking its process
    /// down fails, after ``JobQueue/maximumLostLeases``.
    @Test(arguments: MetadataBackend.available)
    func crashesDoNotUseUpAJobsAttempts(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, clock, _ in
            _ = try await queue.enqueue(new("job_1", attempts: 3))
            for crash in 1...3 {
                _ = try #require(try await queue.claim(kind: "transcription", owner: "w\(crash)", lease: .seconds(1)))
                clock.advance(2_000)
                let expired = try await queue.requeueExpired()
                #expect(expired.map(\.state) == [.queued], "crash \(crash)")
            }
            // The job still has all of its own attempts: two failures re-queue it, the third fails it.
            for failure in 1...3 {
                let job = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)))
                #expect(job.attempts == 3 + failure && job.lostLeases == 3)
                let after = try await queue.fail(
                    "job_1", owner: "w", token: job.leaseToken, .retry(reason: "bad", delay: .zero))
                #expect(after?.state == (failure < 3 ? .queued : .failed), "failure \(failure)")
            }
            // A job that crashes its process every time fails after maximumLostLeases, saying so.
            _ = try await queue.enqueue(new("job_2", attempts: 3))
            var last: Job?
            for _ in 1...JobQueue.maximumLostLeases {
                _ = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(1)))
                clock.advance(2_000)
                last = try await queue.requeueExpired().first
            }
            #expect(last?.state == .failed)
            let reason = last?.error ?? ""
            #expect(reason.contains("stopped \(JobQueue.maximumLostLeases) times"), "\(reason)")
        }
    }

    @Test(arguments: MetadataBackend.available)
    func claimsPassOverBusyTenantsAndPartitions(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, _, _ in
            for (id, tenant, host) in [("a1", "ptn_a", "h1:80"), ("b1", "ptn_b", "h1:80"), ("b2", "ptn_b", "h2:80")] {
                _ = try await queue.enqueue(
                    NewJob(id: id, tenant: tenant, kind: "webhook", payload: "{}", partitionKey: host))
            }
            let other = try await queue.claim(
                kind: "webhook", owner: "w", lease: .seconds(30), skipping: .init(tenants: ["ptn_a"]))
            #expect(other?.id == "b1" && other?.partitionKey == "h1:80")
            let otherHost = try await queue.claim(
                kind: "webhook", owner: "w", lease: .seconds(30), skipping: .init(partitions: ["h1:80"]))
            #expect(otherHost?.id == "b2")
            #expect(
                try await queue.claim(
                    kind: "webhook", owner: "w", lease: .seconds(30), skipping: .init(tenants: ["ptn_a"])) == nil)
            #expect(try await queue.claim(kind: "webhook", owner: "w", lease: .seconds(30))?.id == "a1")
        }
    }

    @Test(arguments: MetadataBackend.available)
    func failuresRetryWithDelayThenFail(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, clock, _ in
            _ = try await queue.enqueue(new("job_1", attempts: 2))
            let first = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)))
            let retried = try await queue.fail(
                "job_1", owner: "w", token: first.leaseToken, .retry(reason: "boom", delay: .seconds(5)))
            #expect(retried?.state == .queued && retried?.error == "boom")
            #expect(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)) == nil)
            clock.advance(5_000)
            let second = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)))
            let failed = try await queue.fail(
                "job_1", owner: "w", token: second.leaseToken, .retry(reason: "boom again", delay: .seconds(5)))
            #expect(failed?.state == .failed && failed?.error == "boom again" && failed?.attempts == 2)
            // Permanent failures do not retry.
            _ = try await queue.enqueue(new("job_2", attempts: 5))
            let third = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)))
            #expect(
                try await queue.fail("job_2", owner: "w", token: third.leaseToken, .permanent(reason: "bad audio"))?
                    .state == .failed)
        }
    }

    @Test(arguments: MetadataBackend.available)
    func releaseReturnsTheJobWithoutCountingTheAttempt(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, _, _ in
            _ = try await queue.enqueue(new("job_1"))
            let claimed = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)))
            try await queue.release("job_1", owner: "w", token: claimed.leaseToken)
            let job = try #require(try await queue.claim(kind: "transcription", owner: "w2", lease: .seconds(30)))
            #expect(job.attempts == 1)
        }
    }

    @Test(arguments: MetadataBackend.available)
    func cancellingStopsTheOwnerAndRunsTheFinalHook(backend: MetadataBackend) async throws {
        let directory = try TemporaryDirectory()
        let store = try await backend.open(in: directory.url)
        let finals = Mutex<[String]>([])
        let queue = JobQueue(metadata: store, onFinal: { _, job in finals.withLock { $0.append(job.state.rawValue) } })
        _ = try await queue.enqueue(new("job_1"))
        let claimed = try #require(try await queue.claim(kind: "transcription", owner: "w", lease: .seconds(30)))
        #expect(try await queue.cancel("job_1", tenant: "ptn_b") == nil)
        #expect(try await queue.cancel("job_1", tenant: "ptn_a")?.state == .cancelled)
        #expect(try await queue.heartbeat("job_1", owner: "w", token: claimed.leaseToken, lease: .seconds(30)) == false)
        #expect(try await queue.complete("job_1", owner: "w", token: claimed.leaseToken, result: "late") == nil)
        #expect(try await queue.cancel("job_1", tenant: "ptn_a")?.state == .cancelled)  // idempotent
        #expect(finals.withLock { $0 } == ["cancelled"])
        await store.close()
    }

    @Test(arguments: MetadataBackend.available)
    func idempotencyKeysReturnTheSameJobOrConflict(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, _, _ in
            let first = try await queue.enqueue(new("job_1", key: "k1", hash: "h1"))
            let again = try await queue.enqueue(new("job_2", key: "k1", hash: "h1"))
            #expect(first.created && !again.created && again.job.id == "job_1")
            let error = await storeErrorCode { try await queue.enqueue(new("job_3", key: "k1", hash: "h2")) }
            #expect(error?.code == .conflict)
            #expect(error?.message.contains("Idempotency-Key") == true)
        }
    }

    @Test(arguments: MetadataBackend.available)
    func listingPagesNewestFirst(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, clock, _ in
            for index in 1...5 {
                _ = try await queue.enqueue(new("job_\(index)"))
                clock.advance(1)
            }
            let first = try await queue.list(tenant: "ptn_a", kind: "transcription", after: nil, limit: 2)
            #expect(first.jobs.map(\.id) == ["job_5", "job_4"])
            let token = try #require(first.next?.token)
            let second = try await queue.list(
                tenant: "ptn_a", kind: "transcription", after: JobPage.Cursor(token: token), limit: 3)
            #expect(second.jobs.map(\.id) == ["job_3", "job_2", "job_1"])
            #expect(second.next == nil)
            #expect(try await queue.list(tenant: "ptn_b", kind: "transcription", after: nil, limit: 9).jobs.isEmpty)
            #expect(try await queue.counts(kind: "transcription") == [.queued: 5])
        }
    }

    @Test(arguments: MetadataBackend.available)
    func concurrentWorkersNeverClaimTheSameJob(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, _, _ in
            for index in 0..<40 { _ = try await queue.enqueue(new("job_\(index)")) }
            let done = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var mine: [String] = []
                        while let job = try await queue.claim(
                            kind: "transcription", owner: "w\(worker)", lease: .seconds(30))
                        {
                            if try await queue.complete(
                                job.id, owner: "w\(worker)", token: job.leaseToken, result: "ok") != nil
                            {
                                mine.append(job.id)
                            }
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(done.count == 40)
            #expect(Set(done).count == 40)
            #expect(try await queue.counts(kind: "transcription") == [.succeeded: 40])
        }
    }

    @Test(arguments: MetadataBackend.available)
    func aLateWriteOfAFencedOutWorkerIsRefusedEvenUnderTheSameOwnerName(backend: MetadataBackend) async throws {
        try await withQueue(backend) { queue, clock, _ in
            _ = try await queue.enqueue(new("job_1", attempts: 3))
            // A worker pauses (GC, SIGSTOP, a partition) past its lease; the job is re-queued and claimed again by a
            // process that happens to reuse the same owner name.
            let paused = try #require(try await queue.claim(kind: "transcription", owner: "node-a", lease: .seconds(5)))
            clock.advance(6_000)
            _ = try await queue.requeueExpired()
            let takeover = try #require(try await queue.claim(kind: "transcription", owner: "node-a", lease: .seconds(5)))
            #expect(takeover.leaseToken == paused.leaseToken + 1)
            // The paused worker wakes up: every write it tries is refused.
            #expect(
                try await queue.heartbeat("job_1", owner: "node-a", token: paused.leaseToken, lease: .seconds(5))
                    == false)
            #expect(try await queue.complete("job_1", owner: "node-a", token: paused.leaseToken, result: "late") == nil)
            #expect(
                try await queue.fail("job_1", owner: "node-a", token: paused.leaseToken, .permanent(reason: "x"))
                    == nil)
            try await queue.release("job_1", owner: "node-a", token: paused.leaseToken)
            #expect(try await queue.job("job_1")?.state == .running)
            let done = try #require(
                try await queue.complete("job_1", owner: "node-a", token: takeover.leaseToken, result: "real"))
            #expect(done.result == "real" && done.attempts == 2)
        }
    }

    @Test func postgresNotifiesWorkersInOtherConnectionsWhenAJobIsAdded() async throws {
        guard MetadataBackend.available.contains(.postgresql) else { return }
        let directory = try TemporaryDirectory()
        let store = try await MetadataBackend.postgresql.open(in: directory.url)
        let producer = JobQueue(metadata: store)
        // Another process's queue: its own signal, woken only through LISTEN/NOTIFY.
        let consumer = JobQueue(metadata: store, signal: JobSignal())
        let listening = Task { await consumer.forwardNotifications() }
        // The listener connects on its own connection: until it has, a NOTIFY finds nobody. Add jobs until one
        // wakes the consumer (bounded), so the test does not depend on how fast a loaded machine connects.
        let before = consumer.signal.generation(of: "transcription")
        var woken = false
        for attempt in 1...20 where !woken {
            _ = try await producer.enqueue(new("job_\(attempt)"))
            await consumer.signal.wait(for: "transcription", after: before, timeout: .seconds(1))
            woken = consumer.signal.generation(of: "transcription") > before
        }
        listening.cancel()
        await listening.value
        await store.close()
        #expect(woken, "no NOTIFY reached the other connection in 20 tries")
    }
}
