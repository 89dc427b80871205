import EarshotCore
public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test started: the built `earshot`, `partner-backend` or `app-flow`, this test binary, or a tool such
/// as `espeak-ng`, `ffmpeg` or `python3` (start one with ``Program/start(_:environment:input:)``).
///
/// Both output streams are read as they come, each on a thread of its own (never on the cooperative pool, which an
/// in-process server under test needs, and never so late that a chatty child blocks on a full pipe), and kept
/// whole: a test waits for a line, reads stdout, and names the child's stderr in its failure messages
/// (``stderrTail(lines:)``, ``diagnostics``; every ``ChildProcessError`` carries it). Every wait is bounded. A
/// child is stopped by ``stop(grace:)`` or ``kill()``, when its last reference goes away, and when the test process
/// exits: a test never leaves a process behind.
public final class ChildProcess: Sendable {
    /// The program's name and its arguments, for messages.
    public let command: String
    /// The child's process id.
    public let processIdentifier: Int32
    private let process: Subprocess
    private let standardOutput: OutputBuffer
    private let standardError: OutputBuffer

    /// One of the child's output streams.
    public enum Stream: Sendable {
        case stdout
        case stderr
    }

    init(_ program: Program, _ arguments: [String], environment: [String: String], input: Data?) throws {
        var inputFile: String?
        if let input {
            // A file, not a pipe: a child that exits before reading all of it cannot SIGPIPE the test process.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-stdin-\(UUID())")
            try input.write(to: file)
            inputFile = file.path
        }
        defer { if let inputFile { try? FileManager.default.removeItem(atPath: inputFile) } }
        _ = ChildProcess.exitHook
        let process = try Subprocess(
            program.executable.path, arguments, environment: environment,
            stdin: inputFile.map { .file($0) } ?? .null, stdout: .pipe, stderr: .pipe)
        // Forget the pid as soon as the child is reaped, so the exit hook never signals a recycled pid.
        ChildProcess.remember(process.pid)
        process.whenExited { [pid = process.pid] _ in ChildProcess.forget(pid) }

        self.process = process
        command = ([program.executable.lastPathComponent] + arguments).joined(separator: " ")
        processIdentifier = process.pid
        standardOutput = OutputBuffer(reading: process.standardOutput!)
        standardError = OutputBuffer(reading: process.standardError!)
    }

    deinit {
        process.signal(SIGKILL)
    }

    // MARK: State and output

    /// True until the child exits.
    public var isRunning: Bool { process.isRunning }

    /// Everything the child wrote to `stream` so far (the last 8–16 MiB of a stream that wrote more).
    public func output(_ stream: Stream) -> String { buffer(stream).text }

    /// The last `lines` lines the child wrote to stderr (at most 4,000 characters): what a failure message shows.
    public func stderrTail(lines: Int = 30) -> String { standardError.tail(lines: lines) }

    /// The command, whether it still runs, and its stderr tail: for a failure message about a test that talks to
    /// this child (`#expect(…, "\(child.diagnostics)")`).
    public var diagnostics: String {
        let state = process.termination.map { "ended with \($0)" } ?? "running"
        return "`\(command)` (\(state)); last lines of its stderr:\n\(stderrTail())"
    }

    // MARK: Waiting

    /// Waits until the child writes a line containing `marker` to `stream`, and returns that line.
    ///
    /// - Throws: ``ChildProcessError`` (with the child's stderr) when the child closes the stream or `timeout`
    ///   passes first.
    public func waitForLine(
        containing marker: String, on stream: Stream = .stderr, timeout: Duration = .seconds(60)
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var checked = 0
        while true {
            let scan = buffer(stream).firstLine(containing: marker, from: checked)
            if let line = scan.line { return line }
            checked = scan.checked
            if scan.closed {
                for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
                let state = process.isRunning ? "closed its \(stream)" : "exited (\(finished().ending))"
                throw error("`\(command)` \(state) without writing a line containing '\(marker)' to \(stream)")
            }
            guard ContinuousClock.now < deadline else {
                throw error("`\(command)` wrote no line containing '\(marker)' to \(stream) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The `url=` value of the first line containing `marker`: how `earshot serve` and `partner-backend` announce
    /// the port they listen on (`earshot listening … url=http://127.0.0.1:PORT`). The child accepts connections
    /// once it has written that line.
    public func listeningURL(
        after marker: String, on stream: Stream = .stderr, timeout: Duration = .seconds(120)
    ) async throws -> String {
        let line = try await waitForLine(containing: marker, on: stream, timeout: timeout)
        guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("url=") }) else {
            throw error("`\(command)` announced no url= in: \(line)")
        }
        return String(field.dropFirst("url=".count))
    }

    /// Waits for the child to exit and returns how it ended with all its output.
    ///
    /// - Throws: ``ChildProcessError`` (with the child's stderr) when it runs longer than `timeout`; it is stopped
    ///   first.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(60)) async throws -> ProcessResult {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw timedOut(timeout) }
            try await Task.sleep(for: .milliseconds(10))
        }
        return finished()
    }

    /// ``waitForExit(timeout:)`` blocking the calling thread: for synchronous tests and static initialisers.
    @discardableResult
    public func waitForExitBlocking(timeout: Duration = .seconds(60)) throws -> ProcessResult {
        guard waitBlocking(timeout) else { throw timedOut(timeout) }
        return finished()
    }

    // MARK: Stopping

    /// Sends `signal` (e.g. `SIGINT`) to the child without waiting.
    public func send(_ signal: Int32) {
        process.signal(signal)
    }

    /// Stops the child: SIGTERM, then SIGKILL when it still runs after `grace`. Blocks the calling thread until it
    /// is gone (at most `grace` + 5 s) and returns its result; harmless when it already exited.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) -> ProcessResult {
        if process.isRunning {
            process.signal(SIGTERM)
            if !waitBlocking(grace) { return kill() }
        }
        _ = waitBlocking(.seconds(5))
        return finished()
    }

    /// Kills the child with SIGKILL (no cleanup code runs in it: a crash), waits until it is gone and returns its
    /// result.
    @discardableResult
    public func kill() -> ProcessResult {
        process.signal(SIGKILL)
        _ = waitBlocking(.seconds(5))
        return finished()
    }

    // MARK: Private

    private func buffer(_ stream: Stream) -> OutputBuffer {
        stream == .stdout ? standardOutput : standardError
    }

    private func error(_ message: String) -> ChildProcessError {
        ChildProcessError(message: message, command: command, stderrTail: stderrTail())
    }

    private func timedOut(_ timeout: Duration) -> ChildProcessError {
        let result = stop()
        return error("`\(command)` did not exit within \(timeout) (stopped: \(result.ending))")
    }

    /// Polls until the child exits or `timeout` passes; true when it exited.
    private func waitBlocking(_ timeout: Duration) -> Bool {
        process.waitUntilExit(timeout: timeout) != nil
    }

    /// The result of the exited child, once its streams are drained (a grandchild that keeps them open is waited
    /// for at most 2 s).
    private func finished() -> ProcessResult {
        let deadline = ContinuousClock.now + .seconds(2)
        while !(standardOutput.isClosed && standardError.isClosed) && ContinuousClock.now < deadline {
            usleep(2_000)
        }
        let termination = process.termination
        var signal: Int32?
        if case .signalled(let number) = termination { signal = number }
        return ProcessResult(
            command: command, status: termination?.status ?? -1, signal: signal, stdoutData: standardOutput.data,
            stderr: standardError.text)
    }

    // MARK: Children still running at exit

    private static let running = Mutex<Set<Int32>>([])
    private static let exitHook: Void = { _ = atexit { ChildProcess.killRunning() } }()

    private static func remember(_ pid: Int32) { _ = running.withLock { $0.insert(pid) } }
    private static func forget(_ pid: Int32) { _ = running.withLock { $0.remove(pid) } }

    private static func killRunning() {
        for pid in running.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
    }
}

/// How a child process ended, with everything it wrote.
public struct ProcessResult: Sendable, CustomStringConvertible {
    /// The program's name and its arguments.
    public let command: String
    /// The exit status; the signal number when a signal ended the child.
    public let status: Int32
    /// The signal that ended the child; nil when it exited.
    public let signal: Int32?
    /// Everything the child wrote to stdout, as bytes.
    public let stdoutData: Data
    /// Everything the child wrote to stderr.
    public let stderr: String

    /// Everything the child wrote to stdout.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

    /// "exit status N" or "killed by signal N".
    public var ending: String { signal.map { "killed by signal \($0)" } ?? "exit status \(status)" }

    /// The command, how it ended and the last lines of its stderr: a failure message (`#expect(…, "\(result)")`).
    public var description: String {
        "`\(command)`: \(ending); last lines of its stderr:\n\(OutputBuffer.tail(of: stderr, lines: 30))"
    }
}

/// A child process that did not do what a test waited for (exit, write a line, announce its URL) in time, or ended
/// otherwise than the test needed.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What was waited for and what happened.
    public let message: String
    /// The program's name and its arguments.
    public let command: String
    /// The last lines the child wrote to stderr.
    public let stderrTail: String

    public var description: String { "\(message)\n--- last lines of `\(command)`'s stderr ---\n\(stderrTail)" }
}

extension ChildProcessError {
    /// An error about a child that ended with `result`: `message` says what the test expected instead.
    public init(_ message: String, _ result: ProcessResult) {
        self.init(
            message: "\(message) (\(result.ending))", command: result.command,
            stderrTail: OutputBuffer.tail(of: result.stderr, lines: 30))
    }
}

/// One output stream of a child, read to its end by a thread of its own.
final class OutputBuffer: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        /// Bytes dropped from the front to stay under `limit`.
        var dropped = 0
        var closed = false
    }

    /// Past this many bytes, the oldest half is dropped.
    private static let limit = 16 << 20
    private let state = Mutex(State())

    init(reading handle: FileHandle) {
        let descriptor = handle.fileDescriptor
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    append(chunk[..<count])
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            try? handle.close()
            state.withLock { $0.closed = true }
        }
        thread.start()
    }

    private func append(_ chunk: ArraySlice<UInt8>) {
        state.withLock { state in
            state.bytes += chunk
            if state.bytes.count > Self.limit {
                let excess = state.bytes.count - Self.limit / 2
                state.bytes.removeFirst(excess)
                state.dropped += excess
            }
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }
    var data: Data { state.withLock { Data($0.bytes) } }
    var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    func tail(lines: Int) -> String { Self.tail(of: text, lines: lines) }

    static func tail(of text: String, lines: Int) -> String {
        let last = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines + 1)
        let joined = last.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return joined.isEmpty ? "(nothing)" : String(joined.suffix(4_000))
    }

    /// The first line containing `marker` among those starting at byte offset `from` (counted from the stream's
    /// start); `checked` is where the next call continues. A last line without a newline counts once the stream is
    /// closed.
    func firstLine(containing marker: String, from: Int) -> (line: String?, checked: Int, closed: Bool) {
        state.withLock { state in
            var index = max(from - state.dropped, 0)
            while let newline = state.bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.bytes[index..<newline], as: UTF8.self)
                if line.contains(marker) { return (line, 0, false) }
                index = newline + 1
            }
            if state.closed, index < state.bytes.count {
                let line = String(decoding: state.bytes[index...], as: UTF8.self)
                if line.contains(marker) { return (line, 0, false) }
            }
            return (nil, state.dropped + index, state.closed)
        }
    }
}
