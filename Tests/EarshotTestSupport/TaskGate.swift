import Foundation
import Testing

/// Lets at most `permits` bodies run at once across tasks; the others wait their turn in arrival order.
///
/// With `EARSHOT_TEST_GATE_LOG` set to a file path, every body appends one line there — the gate's label, the
/// running test, seconds waited and seconds held — so the serial chains of a test run can be measured (the sum of
/// the held times of one gate is a lower bound of the run's length).
public actor TaskGate {
    private let permits: Int
    private var running = 0
    private var queue: [CheckedContinuation<Void, Never>] = []

    public init(permits: Int = 1) {
        self.permits = max(permits, 1)
    }

    /// Runs `body` once a permit is free. `label` names what is limited, for readers and the gate log.
    public nonisolated func withLock<T: Sendable>(_ label: String, _ body: () async throws -> T) async throws -> T {
        let arrived = ContinuousClock.now
        await enter()
        let entered = ContinuousClock.now
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        await leave()
        GateLog.record(label: label, waited: entered - arrived, held: ContinuousClock.now - entered)
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

/// The optional log of gate hold times (`EARSHOT_TEST_GATE_LOG`).
enum GateLog {
    private static let path = ProcessInfo.processInfo.environment["EARSHOT_TEST_GATE_LOG"]
    private static let lock = NSLock()

    static func record(label: String, waited: Duration, held: Duration) {
        guard let path else { return }
        let test = Test.current.map { "\($0.id)" } ?? "-"
        let line = String(
            format: "%@\t%@\t%.1f\t%.1f\n", label, test, Self.seconds(waited), Self.seconds(held))
        lock.lock()
        defer { lock.unlock() }
        guard let handle = FileHandle(forWritingAtPath: path) ?? Self.create(path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data(line.utf8))
        try? handle.close()
    }

    private static func create(_ path: String) -> FileHandle? {
        FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
