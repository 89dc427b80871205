import Foundation
import Synchronization

/// A running child process: its exit can be awaited from any task, its output's last few KiB are kept for error
/// messages, and it can be stopped (SIGTERM, then SIGKILL after a grace period).
final class ChildProcess: Sendable {
    /// The process id.
    let pid: Int32
    private let shared: Shared
    private let process: ProcessBox

    /// What the termination and output handlers write and the waiters read.
    private final class Shared: Sendable {
        struct State {
            var exitStatus: Int32?
            var exitWaiters: [CheckedContinuation<Int32, Never>] = []
            var output = Data()
        }
        let state = Mutex(State())

        func exited(status: Int32) {
            let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
                state.exitStatus = status
                defer { state.exitWaiters = [] }
                return state.exitWaiters
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }

        func append(_ data: Data) {
            state.withLock { state in
                state.output.append(data)
                if state.output.count > 8192 { state.output.removeFirst(state.output.count - 4096) }
            }
        }
    }

    // SAFETY: the Process is configured and launched in `launch` before the box exists; afterwards nothing touches
    // it (its handlers only reach `Shared`). It is kept so that it lives as long as the child.
    private final class ProcessBox: @unchecked Sendable {
        let process: Process
        init(_ process: Process) { self.process = process }
    }

    private init(pid: Int32, process: Process, shared: Shared) {
        self.pid = pid
        self.process = ProcessBox(process)
        self.shared = shared
    }

    /// Starts `executable` with `arguments`, stdin from /dev/null, stdout and stderr captured.
    static func launch(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let shared = Shared()
        process.terminationHandler = { finished in shared.exited(status: finished.terminationStatus) }
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
            } else {
                shared.append(data)
            }
        }
        try process.run()
        return ChildProcess(pid: process.processIdentifier, process: process, shared: shared)
    }

    /// The exit status once the process has exited, else nil.
    var exitStatus: Int32? { shared.state.withLock { $0.exitStatus } }

    /// The last few KiB the process wrote to stdout and stderr.
    var outputTail: String {
        let data = shared.state.withLock { $0.output }
        return String(decoding: data, as: UTF8.self)
    }

    /// Suspends until the process exits and returns its status.
    func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = shared.state.withLock { state -> Int32? in
                if let status = state.exitStatus { return status }
                state.exitWaiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Sends SIGTERM, waits up to `grace` for the exit, then SIGKILL; returns once the process has exited.
    func stop(grace: Duration = .seconds(5)) async {
        guard exitStatus == nil else { return }
        kill(pid, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        while exitStatus == nil, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if exitStatus == nil { kill(pid, SIGKILL) }
        _ = await waitForExit()
    }

    /// Sends SIGTERM now and SIGKILL after `grace` if it has not exited, without waiting: for cancellation
    /// handlers. (llama-server was seen ignoring SIGTERM while a client connection hung.)
    func terminate(grace: Duration = .seconds(5)) {
        guard exitStatus == nil else { return }
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + grace.seconds) { [self] in
            // Not reaped yet, so the pid is still this child's.
            if exitStatus == nil { kill(pid, SIGKILL) }
        }
    }
}
