import EarshotCore
import Foundation
import Synchronization

/// One run of a speech engine as a child process: text on stdin, audio from stdout, stderr kept for errors.
///
/// The blocking pipe work runs on threads of its own (serial Dispatch queues, which get a thread each when busy,
/// unlike the global queues whose few threads blocking reads would starve), never on Swift's cooperative pool.
/// Cancellation of the calling task and the time limit terminate the child (SIGTERM, then SIGKILL a second later).
struct EngineProcess: Sendable {
    /// What the child left behind.
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: String
        /// True when the child was stopped for running past the time limit.
        var timedOut: Bool
        /// True when the child was stopped for writing more than ``EngineProcess/maxOutput`` bytes (``stdout`` then
        /// holds only the first of them).
        var overflowed = false
    }

    let executable: URL
    let arguments: [String]
    let timeout: Duration
    /// The most stdout bytes kept; past them the child is stopped. Nil keeps everything.
    var maxOutput: Int? = nil

    /// Runs the child with `input` on stdin and waits for it to exit.
    ///
    /// - Throws: ``VoiceError/Code/unavailable`` when it cannot start, or `CancellationError`.
    func run(input: Data) async throws -> Output {
        let handle = ProcessHandle()
        let timedOut = Atomic(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
                Self.thread("run").async {
                    let process: Subprocess
                    do {
                        process = try Subprocess(executable.path, arguments, stdin: .pipe, stdout: .pipe, stderr: .pipe)
                    } catch {
                        continuation.resume(
                            throwing: VoiceError(
                                .unavailable, "cannot start \(executable.path): \(error)", underlying: error))
                        return
                    }
                    handle.started(process)
                    let group = DispatchGroup()
                    let errors = Mutex(Data())
                    Self.thread("stdin").async(group: group) {
                        // A child that exits early closes its end; its status tells what happened.
                        if let stdin = process.standardInput {
                            Self.write(input, to: stdin.fileDescriptor)
                            try? stdin.close()
                        }
                    }
                    Self.thread("stderr").async(group: group) {
                        let data = process.standardError?.readDataToEndOfFile() ?? Data()
                        errors.withLock { $0 = data }
                    }
                    let deadline = DispatchWorkItem {
                        timedOut.store(true, ordering: .relaxed)
                        handle.stop()
                    }
                    Self.thread("deadline").asyncAfter(deadline: .now() + timeout.seconds, execute: deadline)
                    var audio = Data()
                    var overflowed = false
                    while let chunk = try? process.standardOutput?.read(upToCount: 1 << 16), !chunk.isEmpty {
                        guard !overflowed else { continue }  // drained until the stopped child closes its end
                        audio += chunk
                        if let maxOutput, audio.count > maxOutput {
                            overflowed = true
                            handle.stop()
                        }
                    }
                    group.wait()
                    let termination = process.waitUntilExit()
                    deadline.cancel()
                    let text = String(decoding: errors.withLock { $0 }.suffix(4096), as: UTF8.self)
                    continuation.resume(
                        returning: Output(
                            status: termination.status, stdout: audio, stderr: text,
                            timedOut: timedOut.load(ordering: .relaxed), overflowed: overflowed))
                }
            }
        } onCancel: {
            handle.stop()
        }
    }
}

extension EngineProcess {
    /// A new serial queue: work on it gets a thread of its own even when blocking work fills the global queues.
    static func thread(_ role: String) -> DispatchQueue { DispatchQueue(label: "earshot.voice.engine.\(role)") }

    /// Writes `data` to the pipe `descriptor`, stopping quietly when the reader has gone (EPIPE).
    ///
    /// A write to a pipe nobody reads raises SIGPIPE in the writing thread, which would end the whole process: it is
    /// blocked on this thread for the write, and one raised meanwhile is taken before the mask is restored.
    static func write(_ data: Data, to descriptor: Int32) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// Stops a child from another thread: SIGTERM at once (or as soon as it has started), SIGKILL a second later.
private final class ProcessHandle: Sendable {
    private let state = Mutex((process: Subprocess?.none, stopRequested: false))

    func started(_ process: Subprocess) {
        let stop = state.withLock { state -> Bool in
            state.process = process
            return state.stopRequested
        }
        if stop { Self.signal(process) }
    }

    func stop() {
        let process = state.withLock { state -> Subprocess? in
            state.stopRequested = true
            return state.process
        }
        if let process { Self.signal(process) }
    }

    private static func signal(_ process: Subprocess) {
        process.signal(SIGTERM)
        EngineProcess.thread("kill").asyncAfter(deadline: .now() + 1) { process.signal(SIGKILL) }
    }
}
