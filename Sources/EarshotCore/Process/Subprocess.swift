import CSystem
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn(3)`: the one way Earshot starts programs (espeak-ng, llama-server,
/// model tools, and the tests' peers and servers).
///
/// Foundation's `Process` is not used. On Linux its `run()` finds the highest open descriptor by copying whole
/// `dirent` records out of `/proc/self/fd`, which reads past glibc's directory buffer and crashes (SIGSEGV) a process
/// holding more than about 1,300 descriptors — a busy server, or the test process
/// (swift-corelibs-foundation PR 5472, after Swift 6.3). Here the child closes every descriptor above stderr
/// itself (`posix_spawn_file_actions_addclosefrom_np`), starts with no blocked signals and SIGPIPE at its default,
/// and leads a process group of its own, as Foundation's children do.
///
/// A thread of the child's own reaps it when it exits; ``signal(_:)`` never reaches a recycled pid, because the
/// child is reaped only under the same lock.
public final class Subprocess: Sendable {
    /// Where the child's stdin comes from.
    public enum Input: Sendable {
        case null
        /// A pipe: write to ``Subprocess/standardInput`` and close it.
        case pipe
        /// A file, read from its start.
        case file(String)
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        case null
        /// A pipe: read ``Subprocess/standardOutput`` (or ``Subprocess/standardError``) to its end.
        case pipe
        /// This process's own stream.
        case inherit
        /// For stderr only: wherever stdout goes (`2>&1`).
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the signal's number (as Foundation's `terminationStatus`).
        public var status: Int32 {
            switch self {
            case .exited(let status), .signalled(let status): status
            }
        }

        /// True for exit status 0.
        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// The child's process id.
    public let pid: Int32
    /// The write end of the child's stdin, for ``Input/pipe``.
    public let standardInput: FileHandle?
    /// The read end of the child's stdout, for ``Output/pipe``.
    public let standardOutput: FileHandle?
    /// The read end of the child's stderr, for ``Output/pipe``.
    public let standardError: FileHandle?
    private let exit: ExitState

    /// Starts `executable` (a path, or a name looked up on `PATH`) with `arguments`; `environment` nil passes this
    /// process's own.
    ///
    /// - Throws: ``SubprocessError`` when the program cannot be started (not found, not executable, no resources).
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        stdin: Input = .null, stdout: Output = .pipe, stderr: Output = .pipe
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        // Parent ends are kept, child ends closed after the spawn; everything is closed on failure.
        var parentEnds: [Int32: Int32] = [:]
        var childEnds: [Int32] = []
        func closeAll() {
            for descriptor in Array(parentEnds.values) + childEnds { close(descriptor) }
        }
        func pipe(for target: Int32, childReads: Bool) throws {
            var fds: [Int32] = [-1, -1]
            guard earshot_pipe_cloexec(&fds) == 0 else {
                let code = errno
                closeAll()
                throw SubprocessError(executable: executable, code: code, doing: "create a pipe")
            }
            let (child, parent) = childReads ? (fds[0], fds[1]) : (fds[1], fds[0])
            parentEnds[target] = parent
            childEnds.append(child)
            posix_spawn_file_actions_adddup2(&actions, child, target)
        }
        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe: try pipe(for: 0, childReads: true)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        }
        for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .pipe: try pipe(for: target, childReads: false)
            case .inherit: break
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, target)
            }
        }
        earshot_spawn_close_from(&actions, 3)

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer {
            for pointer in argv + (envp ?? []) { free(pointer) }
        }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { arguments in
            func spawn(_ environment: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
                let argv = UnsafeMutablePointer(mutating: arguments.baseAddress!)
                let envp = UnsafeMutablePointer(mutating: environment)
                return executable.contains("/")
                    ? posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
                    : posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
            }
            guard let envp else { return spawn(environ) }
            return (envp + [nil]).withUnsafeBufferPointer { spawn($0.baseAddress!) }
        }
        guard status == 0 else {
            closeAll()
            throw SubprocessError(executable: executable, code: status, doing: "start")
        }
        for descriptor in childEnds { close(descriptor) }

        self.pid = pid
        standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        exit = ExitState(pid: pid)
    }

    // MARK: Exit

    /// How the child ended, once it has; nil while it runs.
    public var termination: Termination? { exit.termination }

    /// True until the child has exited and been reaped.
    public var isRunning: Bool { exit.termination == nil }

    /// Blocks the calling thread until the child exits (never call it on Swift's cooperative pool).
    @discardableResult
    public func waitUntilExit() -> Termination { exit.wait(until: nil)! }

    /// Blocks the calling thread until the child exits or `timeout` passes; nil when it still runs.
    public func waitUntilExit(timeout: Duration) -> Termination? { exit.wait(until: .now + timeout) }

    /// Suspends until the child exits.
    @discardableResult
    public func waitForExit() async -> Termination {
        await withCheckedContinuation { continuation in exit.whenExited { continuation.resume(returning: $0) } }
    }

    /// Calls `handler` (on the reaping thread) once the child has exited; at once when it already has.
    public func whenExited(_ handler: @escaping @Sendable (Termination) -> Void) { exit.whenExited(handler) }

    /// Sends `signal` to the child while it has not been reaped; a no-op afterwards.
    public func signal(_ signal: Int32) { exit.signal(signal) }

    /// Runs `executable` to its end with stdin from /dev/null and returns how it ended with everything it wrote to
    /// stdout and stderr (interleaved, as `2>&1`). Blocks the calling thread.
    ///
    /// - Throws: ``SubprocessError`` when it cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil
    ) throws -> (termination: Termination, output: Data) {
        let child = try Subprocess(
            executable, arguments, environment: environment, stdout: .pipe, stderr: .standardOutput)
        let output = child.standardOutput!.readDataToEndOfFile()
        return (child.waitUntilExit(), output)
    }
}

/// A program that could not be started.
public struct SubprocessError: Error, CustomStringConvertible {
    /// The program as given.
    public let executable: String
    /// The `errno` value.
    public let code: Int32
    /// What failed: "start", "create a pipe".
    public let doing: String

    public var description: String {
        let reason = String(cString: strerror(code))
        let hint = code == ENOENT ? " (not installed, or not on PATH)" : ""
        return "cannot \(doing) \(executable): \(reason)\(hint)"
    }
}

/// The child's exit, reaped by a thread of its own, with its waiters.
// SAFETY: every stored property is read and written with `condition` held.
private final class ExitState: @unchecked Sendable {
    private let pid: Int32
    private let condition = NSCondition()
    private var stored: Subprocess.Termination?
    private var handlers: [@Sendable (Subprocess.Termination) -> Void] = []

    init(pid: Int32) {
        self.pid = pid
        let thread = Thread { [self] in reap() }
        thread.name = "earshot.subprocess.reaper"
        thread.start()
    }

    var termination: Subprocess.Termination? {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }

    /// Waits for the exit without reaping (the child stays a zombie, so its pid is not reused), then reaps it under
    /// the lock that ``signal(_:)`` takes.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        condition.lock()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let termination: Subprocess.Termination =
            status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        stored = termination
        let waiting = handlers
        handlers = []
        condition.broadcast()
        condition.unlock()
        for handler in waiting { handler(termination) }
    }

    func wait(until deadline: ContinuousClock.Instant?) -> Subprocess.Termination? {
        condition.lock()
        defer { condition.unlock() }
        while stored == nil {
            guard let deadline else {
                condition.wait()
                continue
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left.seconds))
        }
        return stored
    }

    func whenExited(_ handler: @escaping @Sendable (Subprocess.Termination) -> Void) {
        condition.lock()
        guard let stored else {
            handlers.append(handler)
            condition.unlock()
            return
        }
        condition.unlock()
        handler(stored)
    }

    func signal(_ signal: Int32) {
        condition.lock()
        defer { condition.unlock() }
        if stored == nil { kill(pid, signal) }
    }
}
