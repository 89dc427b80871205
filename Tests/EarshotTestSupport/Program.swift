public import Foundation

/// A program a test runs as a child process, and the environment it gets.
///
/// ```swift
/// let created = try await Program.earshot.run(["partners", "create", "Acme", "--json", "--data-dir", path])
/// #expect(created.status == 0, "\(created)")  // the message names the command and its stderr tail
/// let server = try Program.earshot.start(["serve", "--port", "0", "--data-dir", path])
/// let base = try await server.listeningURL(after: "earshot listening")
/// ```
public struct Program: Sendable {
    /// Which of the test process's environment variables the child inherits.
    public enum Inheritance: Sendable {
        case all
        /// All but those whose name starts with the prefix.
        case allExcept(prefix: String)
        case none
    }

    public let executable: URL
    /// Variables set for every run, over the inherited ones.
    public var environment: [String: String]
    public var inheritance: Inheritance

    public init(_ executable: URL, environment: [String: String] = [:], inheritance: Inheritance = .all) {
        self.executable = executable
        self.environment = environment
        self.inheritance = inheritance
    }

    /// The built `earshot` binary, as a user runs it: none of this process's `EARSHOT_*` settings leak in, except
    /// `EARSHOT_HOME` = ``TestEnvironment/home`` (so the child finds the models and test audio the test checked).
    public static var earshot: Program {
        Program(
            TestEnvironment.product("earshot"), environment: ["EARSHOT_HOME": TestEnvironment.home.path],
            inheritance: .allExcept(prefix: "EARSHOT_"))
    }

    /// An executable product of this package (`partner-backend`, `app-flow`), next to the test bundle.
    public static func built(_ name: String) -> Program { Program(TestEnvironment.product(name)) }

    /// A tool on `PATH` (`espeak-ng`, `ffmpeg`, `python3`, `unzip`); nil when it is not installed.
    public static func tool(_ name: String) -> Program? { TestEnvironment.executable(named: name).map { Program($0) } }

    /// This test binary, to re-run one test in a process of its own (`--filter NAME`).
    public static var testBinary: Program {
        Program(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath())
    }

    /// Starts the program with `arguments`, `environment` over the program's own, and `input` on stdin (empty
    /// when nil). Stop the child with ``ChildProcess/stop(grace:)`` (it is killed anyway when released).
    public func start(
        _ arguments: [String] = [], environment extra: [String: String] = [:], input: Data? = nil
    ) throws -> ChildProcess {
        var variables: [String: String]
        switch inheritance {
        case .all: variables = ProcessInfo.processInfo.environment
        case .allExcept(let prefix):
            variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix(prefix) }
        case .none: variables = [:]
        }
        variables.merge(environment) { $1 }
        variables.merge(extra) { $1 }
        return try ChildProcess(self, arguments, environment: variables, input: input)
    }

    /// Runs the program to its end and returns its result (a non-zero exit is a result, not an error).
    ///
    /// At most one such run per core is under way across the test process (``runs``); `timeout` counts from the
    /// start of the child, not from the wait for its turn.
    ///
    /// - Throws: when it cannot start, or ``ChildProcessError`` (with its stderr) when it runs longer than
    ///   `timeout` (it is stopped first).
    public func run(
        _ arguments: [String] = [], environment: [String: String] = [:], input: Data? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        try await Self.runs.withLock(executable.lastPathComponent) {
            try await start(arguments, environment: environment, input: input).waitForExit(timeout: timeout)
        }
    }

    /// What limits ``run(_:environment:input:timeout:)`` to one child per core: most runs decode speech, and on a
    /// 2-core machine more at once only make each slower, until their time bounds fail.
    public static let runs = TaskGate(permits: ProcessInfo.processInfo.activeProcessorCount)

    /// ``run(_:environment:input:timeout:)`` blocking the calling thread: for synchronous tests and static
    /// initialisers.
    public func runBlocking(
        _ arguments: [String] = [], environment: [String: String] = [:], input: Data? = nil,
        timeout: Duration = .seconds(60)
    ) throws -> ProcessResult {
        try start(arguments, environment: environment, input: input).waitForExitBlocking(timeout: timeout)
    }
}
