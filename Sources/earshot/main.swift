import EarshotCore

#if canImport(Glibc)
    import Glibc
#endif

/// Every subcommand, in the order `earshot --help` lists them.
let commands: [any Command.Type] = [
    ServeCommand.self,
    WorkerCommand.self,
    MigrateCommand.self,
    SettingsCommand.self,
    PartnersCommand.self,
    TokenCommand.self,
    KeysCommand.self,
    NotesAddCommand.self,
    AccountsCommand.self,
    TranscribeCommand.self,
    LiveCommand.self,
    EvalCommand.self,
    EvalTextCommand.self,
    BenchEvalCommand.self,
    VersionCommand.self,
    ModelsCommand.self,
    VoiceprintsCommand.self,
    RecordsListCommand.self,
    RecordsSearchCommand.self,
    RecordsShowCommand.self,
    RecordsSummarizeCommand.self,
    RecordsTranslateCommand.self,
    DeviceSimulateCommand.self,
    DeviceScanCommand.self,
    DeviceBindCommand.self,
    DeviceListCommand.self,
    DeviceSyncCommand.self,
    DeviceUnbindCommand.self,
    DeviceRenameCommand.self,
    DeviceDefaultsCommand.self,
    DeviceSettingsCommand.self,
]

let root = CommandSpec(
    name: "earshot", abstract: "Earshot — self-hosted AI voice notes: store, transcribe, search and evaluate audio.",
    discussion: "Run 'earshot <command> --help' for a command's options.",
    subcommands: commands.map { ($0.name, $0.spec.abstract) })

/// Finds the longest command name matching the leading words of `arguments`.
@MainActor func dispatch(_ arguments: [String]) -> (any Command.Type, [String])? {
    let sorted = commands.sorted { $0.name.split(separator: " ").count > $1.name.split(separator: " ").count }
    for command in sorted {
        let words = command.name.split(separator: " ").map(String.init)
        if arguments.starts(with: words) { return (command, Array(arguments.dropFirst(words.count))) }
    }
    return nil
}

func writeError(_ text: String) {
    var line = Array((text + "\n").utf8)
    _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

/// `earshot records` (a group of commands) without one of its commands, or with an unknown one: lists the group and
/// exits (0 for `--help`, 64 otherwise). Returns when `arguments[0]` names no group.
@MainActor func exitListingGroup(_ arguments: [String]) {
    var members: [(name: String, abstract: String)] = []
    for command in commands where command.name.hasPrefix(arguments[0] + " ") {
        members.append((command.name, command.spec.abstract))
    }
    guard !members.isEmpty else { return }
    let width = members.map { $0.name.count }.max()! + 2
    let list = members.map {
        "  earshot " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.abstract
    }
    let listing =
        "'earshot \(arguments[0])' has these commands:\n" + list.joined(separator: "\n")
        + "\nRun 'earshot \(arguments[0]) <command> --help' for a command's options."
    if arguments.count == 2, ["--help", "-h"].contains(arguments[1]) {
        print(listing)
        exit(0)
    }
    let unknown = arguments.count > 1 ? "earshot: unknown command '\(arguments[0]) \(arguments[1])'\n" : ""
    writeError(unknown + listing)
    exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
    print(root.usage)
    exit(0)
}
guard let (command, rest) = dispatch(arguments) else {
    exitListingGroup(arguments)
    let suggestion = closestMatch(to: arguments[0], among: commands.map { String($0.name.split(separator: " ")[0]) })
    writeError(
        "earshot: unknown command '\(arguments[0])'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
            + "\nRun 'earshot --help' for the list of commands.")
    exit(64)
}
do {
    let parsed = try command.spec.parse(rest)
    if parsed.isHelp {
        print(command.spec.usage)
        exit(0)
    }
    exit(try await command.run(parsed))
} catch let error as ArgumentError {
    writeError(error.description)
    exit(64)
} catch {
    writeError("earshot \(command.name): \(error)")
    exit(1)
}
