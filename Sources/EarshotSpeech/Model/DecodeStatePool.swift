import Synchronization

/// A bounded pool of decode states over one shared ``SpeechModel``.
///
/// At most ``capacity`` decodes run at once; a decode that finds every state busy waits (and leaves the queue
/// if its task is cancelled). States are created on first need and reused: whisper.cpp allocates tens of MB
/// per state (base: ≈ 30 MB of KV cache and buffers), so the capacity bounds memory as well as CPU.
public final class DecodeStatePool: Sendable {
    /// The shared model.
    public let model: SpeechModel
    /// The most states (and so concurrent decodes) this pool allows.
    public let capacity: Int

    private struct Inventory {
        var idle: [DecodeState] = []
        var created = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<DecodeState?, any Error>)] = []
        var nextWaiter: UInt64 = 0
    }
    private let inventory = Mutex(Inventory())

    /// A pool for `model` allowing `capacity` (≥ 1) concurrent decodes.
    public init(model: SpeechModel, capacity: Int) {
        self.model = model
        self.capacity = max(1, capacity)
    }

    /// Number of states allocated so far (never more than ``capacity``).
    public var allocatedStates: Int { inventory.withLock { $0.created } }

    /// Number of decodes holding a state right now.
    public var busyStates: Int { inventory.withLock { $0.created - $0.idle.count } }

    /// Waits until no decode holds a state, or `timeout` passes; returns whether the pool is idle.
    ///
    /// A cancelled decode stops at whisper.cpp's next abort check, on its own thread, after its consumer has
    /// already moved on. Call this before the process exits: a decode thread still inside whisper.cpp while the
    /// process runs its exit handlers can crash it.
    public func waitUntilIdle(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while busyStates > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    private enum Claim { case ready(DecodeState), create, wait }

    /// A state of its own for one decode, waiting for one if all are busy; give it back with ``release(_:)``.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting; ``SpeechError`` if a new state
    ///   cannot be allocated.
    func acquire() async throws -> DecodeState {
        try Task.checkCancellation()
        let claim: Claim = inventory.withLock { inventory in
            if let state = inventory.idle.popLast() { return .ready(state) }
            if inventory.created < capacity {
                inventory.created += 1
                return .create
            }
            return .wait
        }
        switch claim {
        case .ready(let state): return state
        case .create:
            do { return try DecodeState(model: model) } catch {
                inventory.withLock { $0.created -= 1 }
                throw error
            }
        case .wait:
            let id = inventory.withLock { inventory -> UInt64 in
                inventory.nextWaiter += 1
                return inventory.nextWaiter
            }
            let handed = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<DecodeState?, any Error>) in
                    let immediate: DecodeState?? = inventory.withLock { inventory in
                        if Task.isCancelled { return .some(nil) }
                        if let state = inventory.idle.popLast() { return .some(state) }
                        inventory.waiters.append((id, continuation))
                        return .none
                    }
                    if let immediate { continuation.resume(returning: immediate) }
                }
            } onCancel: {
                let waiter = inventory.withLock { inventory in
                    inventory.waiters.firstIndex { $0.id == id }.map { inventory.waiters.remove(at: $0) }
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
            guard let handed else { throw CancellationError() }
            return handed
        }
    }

    /// Returns a state taken with ``acquire()`` (to the longest waiter, if any).
    func release(_ state: DecodeState) {
        let waiter = inventory.withLock { inventory in
            if inventory.waiters.isEmpty {
                inventory.idle.append(state)
                return nil as CheckedContinuation<DecodeState?, any Error>?
            }
            return inventory.waiters.removeFirst().continuation
        }
        waiter?.resume(returning: state)
    }
}
