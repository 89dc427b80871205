public import EarshotCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// llama.cpp's `llama-server` run as a child process on a free loopback port: the built-in ``LanguageModel``.
///
/// llama.cpp is never linked into Earshot (its ggml clashes with whisper.cpp's); `scripts/setup-llm` builds the
/// binary and installs the GGUF model. ``run()`` supervises the child: it starts it on the first
/// ``complete(_:)`` call (nothing runs until something is summarised or translated), waits until `/health`
/// answers 200, restarts it if it dies, and stops it (SIGTERM, then SIGKILL) when its task is cancelled.
///
/// ``complete(_:)`` needs ``run()`` to be active in some task (it waits up to 2 s for a `run()` task that is about
/// to start, then fails with `unavailable`); it waits while the server starts (bounded by
/// ``Configuration/startupTimeout``) and retries once on a connection failure, which covers a restart. When the
/// child cannot start (missing binary or model, three failed starts in a row) waiting callers get `unavailable`
/// with the child's last output, and the next call tries again.
public actor ManagedLlamaServer: LanguageModel {
    /// What to run and how.
    public struct Configuration: Sendable, Hashable {
        /// The `llama-server` binary (default `$EARSHOT_HOME/llama/bin/llama-server`).
        public var executable: String
        /// The GGUF model file (default `$EARSHOT_HOME/models/SmolLM2-135M-Instruct.Q4_1.gguf`).
        public var model: String
        /// CPU threads for generation (`-t`).
        public var threads: Int
        /// Context window in tokens (`-c`, one slot).
        public var contextTokens: Int
        /// Time the child gets from launch to a healthy `/health`.
        public var startupTimeout: Duration
        /// Time one completion may take.
        public var requestTimeout: Duration
        /// Failed starts in a row before waiting callers get the error.
        public var maximumStartAttempts: Int

        /// Creates a configuration.
        public init(
            executable: String, model: String, threads: Int = 2, contextTokens: Int = 4096,
            startupTimeout: Duration = .seconds(120), requestTimeout: Duration = .seconds(300),
            maximumStartAttempts: Int = 3
        ) {
            self.executable = executable
            self.model = model
            self.threads = threads
            self.contextTokens = contextTokens
            self.startupTimeout = startupTimeout
            self.requestTimeout = requestTimeout
            self.maximumStartAttempts = maximumStartAttempts
        }

        /// The binary and model `scripts/setup-llm` installs under `home` (default: the process's ``ModelHome``,
        /// `$EARSHOT_HOME`): ``ModelHome/llamaServer`` and ``ModelHome/builtInLanguageModel``.
        public static func installed(home: ModelHome = .current) -> Configuration {
            Configuration(executable: home.llamaServer, model: home.builtInLanguageModel)
        }

        /// The binary and model `scripts/setup-llm` installs under the directory `home`.
        public static func installed(home: String) -> Configuration {
            installed(home: ModelHome(home))
        }

        /// The GGUF file name of the built-in model.
        public static let builtInModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf"
    }

    private enum Phase {
        case idle
        case starting
        case ready(URL, ChildProcess)
        case failed(NotesError)
    }

    /// The options this server was created with.
    public nonisolated let configuration: Configuration
    private let client: ChatCompletionsClient
    private let health: URLSession
    private let logger = Logger(label: "llama-server")
    private var phase = Phase.idle
    private var supervising = false
    private let demand = DemandSignal()
    private var endpointWaiters: [CheckedContinuation<URL, any Error>] = []
    /// How often the child was restarted after dying (not counting the first start).
    public private(set) var restarts = 0

    /// Creates the supervisor; nothing starts until ``run()`` is active and a completion is asked for.
    public init(configuration: Configuration) {
        self.configuration = configuration
        client = ChatCompletionsClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1/v1")!, model: Self.modelName(configuration.model),
                timeout: configuration.requestTimeout, contextTokens: configuration.contextTokens))
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 2
        health = URLSession(configuration: sessionConfiguration)
    }

    public nonisolated var name: String { Self.modelName(configuration.model) }
    public nonisolated var contextTokens: Int { configuration.contextTokens }

    /// The running child's process id, nil while none runs.
    public var processIdentifier: Int32? {
        if case .ready(_, let child) = phase { return child.pid }
        return nil
    }

    public nonisolated func complete(_ request: ChatRequest) async throws -> String {
        let url = try await endpoint()
        do {
            return try await client.complete(request, baseURL: url)
        } catch let error as NotesError where error.code == .unavailable {
            // The child may have died under this request: wait for the supervisor to notice, then try once more.
            await noticeUnreachable(url)
            return try await client.complete(request, baseURL: try await endpoint())
        }
    }

    /// Supervises the child until cancelled; returns normally on cancellation, after the child has exited.
    ///
    /// Start failures do not end `run()`: they are logged and handed to waiting callers.
    /// - Throws: `invalidConfiguration` when `run()` is already active elsewhere.
    public func run() async throws {
        guard !supervising else {
            throw NotesError(.invalidConfiguration, "ManagedLlamaServer.run() is already active")
        }
        supervising = true
        defer {
            supervising = false
            phase = .idle
            demand.reset()
            failWaiters(NotesError(.unavailable, "the managed llama-server was stopped"))
        }
        while !Task.isCancelled {
            await demand.wait()
            if Task.isCancelled { break }
            await superviseUntilFailure()
        }
    }

    // MARK: - Endpoint

    /// The base URL of the healthy child, starting it if needed.
    func endpoint() async throws -> URL {
        if !supervising {
            // run() may be in a task that has not been scheduled yet: give it a moment before refusing.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(2)
            while !supervising, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }
        guard supervising else {
            throw NotesError(
                .unavailable, "the managed llama-server is not running (ManagedLlamaServer.run() is not active)")
        }
        if case .ready(let url, _) = phase { return url }
        if case .failed = phase { phase = .idle }
        demand.fire()
        return try await withCheckedThrowingContinuation { endpointWaiters.append($0) }
    }

    private func noticeUnreachable(_ url: URL) async {
        guard case .ready(let current, let child) = phase, current == url else { return }
        // The termination handler may lag the closed socket by a moment.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while child.exitStatus == nil, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Make the next endpoint() wait for the supervisor's restart rather than hand out the dead port again.
        if child.exitStatus != nil, case .ready(let still, _) = phase, still == url { phase = .starting }
    }

    private func failWaiters(_ error: NotesError) {
        let waiters = endpointWaiters
        endpointWaiters = []
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    // MARK: - Supervision

    /// Starts the child and restarts it whenever it dies, until cancelled or until it cannot be started.
    private func superviseUntilFailure() async {
        var failedStarts = 0
        while !Task.isCancelled {
            phase = .starting
            let started: (URL, ChildProcess)
            do {
                started = try await start()
            } catch is CancellationError {
                return
            } catch {
                failedStarts += 1
                let notesError = error as? NotesError ?? NotesError(.unavailable, "\(error)")
                logger.warning(
                    "llama-server did not start", metadata: ["attempt": "\(failedStarts)", "error": notesError.message])
                if Task.isCancelled { return }
                if failedStarts >= configuration.maximumStartAttempts || notesError.code == .invalidConfiguration {
                    phase = .failed(notesError)
                    demand.reset()
                    failWaiters(notesError)
                    return
                }
                continue
            }
            failedStarts = 0
            let (url, child) = started
            phase = .ready(url, child)
            let waiters = endpointWaiters
            endpointWaiters = []
            for waiter in waiters { waiter.resume(returning: url) }
            logger.info("llama-server ready", metadata: ["url": url.absoluteString, "pid": "\(child.pid)"])

            let status = await withTaskCancellationHandler {
                await child.waitForExit()
            } onCancel: {
                child.terminate()
            }
            if Task.isCancelled {
                await child.stop()
                return
            }
            restarts += 1
            logger.warning(
                "llama-server exited; restarting",
                metadata: ["status": "\(status)", "output": Self.lastLines(child.outputTail)])
        }
    }

    /// What the child's environment adds to Earshot's: OpenMP's idle threads sleep (`OMP_WAIT_POLICY=PASSIVE`)
    /// unless the operator chose a policy. llama-server is built with OpenMP, and by default its waiting threads
    /// spin at every barrier. When a summary runs beside a transcription on the same cores, the spinning made the
    /// summary six times slower and the decode beside it a third slower; sleeping costs nothing measurable when the
    /// model runs alone (docs/notes.md, decision 0015).
    static func environment(_ inherited: [String: String]) -> [String: String] {
        inherited["OMP_WAIT_POLICY"] == nil ? ["OMP_WAIT_POLICY": "PASSIVE"] : [:]
    }

    /// Launches the child on a free port and waits for `/health`; stops it again on failure.
    private func start() async throws -> (URL, ChildProcess) {
        let fileManager = FileManager.default
        guard fileManager.isExecutableFile(atPath: configuration.executable) else {
            throw NotesError(
                .invalidConfiguration,
                "llama-server is not installed at \(configuration.executable): run scripts/setup-llm (make setup)")
        }
        guard fileManager.fileExists(atPath: configuration.model) else {
            throw NotesError(
                .invalidConfiguration,
                "the language model \(configuration.model) is missing: run scripts/setup-llm (make setup)")
        }
        let port = try Self.freeLoopbackPort()
        let arguments = [
            "--model", configuration.model, "--host", "127.0.0.1", "--port", "\(port)",
            "--threads", "\(configuration.threads)", "--ctx-size", "\(configuration.contextTokens)",
            "--parallel", "1", "--no-webui",
        ]
        let child: ChildProcess
        do {
            child = try ChildProcess.launch(
                configuration.executable, arguments, environment: Self.environment(ProcessInfo.processInfo.environment))
        } catch {
            throw NotesError(.unavailable, "cannot run \(configuration.executable): \(error)", underlying: error)
        }
        do {
            try await waitUntilHealthy(child, port: port)
        } catch {
            await child.stop()
            throw error
        }
        return (URL(string: "http://127.0.0.1:\(port)/v1")!, child)
    }

    private func waitUntilHealthy(_ child: ChildProcess, port: Int) async throws {
        let url = URL(string: "http://127.0.0.1:\(port)/health")!
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.startupTimeout
        while true {
            try Task.checkCancellation()
            if let status = child.exitStatus {
                throw NotesError(
                    .unavailable,
                    "llama-server exited with status \(status) while starting: \(Self.lastLines(child.outputTail))")
            }
            var request = URLRequest(url: url)
            request.setValue("close", forHTTPHeaderField: "Connection")
            if let (_, response) = try? await ChatCompletionsClient.send(
                request, session: health, timeout: .seconds(2)),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return
            }
            if clock.now >= deadline {
                throw NotesError(
                    .unavailable,
                    "llama-server did not become healthy within \(configuration.startupTimeout): "
                        + Self.lastLines(child.outputTail))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    // MARK: - Helpers

    /// A port that was free a moment ago on 127.0.0.1 (a lost race makes the child exit and be started again).
    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NotesError(.unavailable, "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw NotesError(.unavailable, "cannot find a free loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func modelName(_ path: String) -> String {
        let file = (path as NSString).lastPathComponent
        return file.hasSuffix(".gguf") ? String(file.dropLast(5)) : file
    }

    static func lastLines(_ text: String, count: Int = 6) -> String {
        let lines = text.split(separator: "\n").suffix(count)
        return lines.isEmpty ? "(no output)" : lines.joined(separator: " | ")
    }
}
