/// Lets at most `permits` bodies run at once across tasks; the others wait their turn in arrival order.
public actor TaskGate {
    private let permits: Int
    private var running = 0
    private var queue: [CheckedContinuation<Void, Never>] = []

    public init(permits: Int = 1) {
        self.permits = max(permits, 1)
    }

    /// Runs `body` once a permit is free. `label` names what is limited, for readers.
    public nonisolated func withLock<T: Sendable>(_ label: String, _ body: () async throws -> T) async throws -> T {
        await enter()
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        await leave()
        return try outcome.get()
    }

    private func enter() async {
        if running < permits {
            running += 1
        } else {
            await withCheckedContinuation { queue.append($0) }
        }
    }

    private func leave() {
        if queue.isEmpty {
            running -= 1
        } else {
            queue.removeFirst().resume()  // the permit passes straight to the next in line
        }
    }
}
