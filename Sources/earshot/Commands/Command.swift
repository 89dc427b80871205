import EarshotCore

/// One `earshot` subcommand: its command-line shape and what it runs. Logic lives in the library modules.
protocol Command {
    /// Name as typed after `earshot` (may contain a space for nested commands, e.g. `bench http`).
    static var name: String { get }
    static var spec: CommandSpec { get }
    /// Runs the command and returns the process exit code.
    static func run(_ arguments: ParsedArguments) async throws -> Int32
}
