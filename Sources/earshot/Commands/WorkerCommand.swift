import EarshotCore
import EarshotServer

enum WorkerCommand: Command {
    static let name = "worker"
    static let spec = CommandSpec(
        name: "earshot worker",
        abstract: "Run a job worker: `earshot serve --role worker` (jobs from the shared database; health and metrics).",
        discussion: """
            A worker claims transcription, note and webhook jobs from the PostgreSQL database named by --database \
            and reads audio from the object store named by --blob-store; it serves only /healthz, /readyz and \
            /metrics on --port. Speech models load on the first job. SIGTERM stops claiming and gives running jobs \
            --worker-drain-timeout to finish before handing them back. See docs/scale-out.md.
            """,
        options: ServerConfiguration.commandLineOptions)

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        try await ServeCommand.serve(arguments, command: "earshot worker", role: .worker)
    }
}
