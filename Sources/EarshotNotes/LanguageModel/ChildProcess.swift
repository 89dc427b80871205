import EarshotCore
import Foundation
import Synchronization

/// A running child process: its exit can be awaited from any task, its output's last few KiB are kept for error
/// messages, and it can be stopped (SIGTERM, then SIGKILL after a grace period).
final class ChildProcess: Sendable {
    /// The process id.
    let pid: Int32
    private let process: Subprocess
    private let output = OutputTail()

    /// The last few KiB of the child's output, written by the pipe's readability handler.
    private final class OutputTail: Sendable {
        let data = Mutex(Data())
    }

    /// Starts `executable` with `arguments` and this process's environment with `environment` set over it, stdin
    /// from /dev/null, stdout and stderr captured.
    static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let merged =
            environment.isEmpty
            ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, set in set }
        return ChildProcess(
            try Subprocess(executable, arguments, environment: merged, stdout: .pipe, stderr: .standardOutput))
    }

    private init(_ process: Subprocess) {
        self.process = process
        pid = process.pid
        let output = output
        process.standardOutput?.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
            } else {
                output.data.withLock { output in
                    output.append(data)
                    if output.count > 8192 { output.removeFirst(output.count - 4096) }
                }
            }
        }
    }

    /// The exit status once the process has exited, else nil.
    var exitStatus: Int32? { process.termination?.status }

    /// The last few KiB the process wrote to stdout and stderr.
    var outputTail: String {
        String(decoding: output.data.withLock { $0 }, as: UTF8.self)
    }

    /// Suspends until the process exits and returns its status.
    func waitForExit() async -> Int32 { await process.waitForExit().status }

    /// Sends SIGTERM, waits up to `grace` for the exit, then SIGKILL; returns once the process has exited.
    func stop(grace: Duration = .seconds(5)) async {
        guard exitStatus == nil else { return }
        process.signal(SIGTERM)
        // Whichever comes first: the exit, or the end of the grace and SIGKILL (a no-op once the child is reaped).
        await withTaskGroup(of: Void.self) { [process] group in
            group.addTask { _ = await process.waitForExit() }
            group.addTask {
                try? await Task.sleep(for: grace)
                process.signal(SIGKILL)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Sends SIGTERM now and SIGKILL after `grace` if it has not exited, without waiting: for cancellation
    /// handlers. (llama-server was seen ignoring SIGTERM while a client connection hung.)
    func terminate(grace: Duration = .seconds(5)) {
        guard exitStatus == nil else { return }
        process.signal(SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + grace.seconds) { [process] in process.signal(SIGKILL) }
    }
}
