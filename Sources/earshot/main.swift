#if canImport(Glibc)
    import Glibc
#endif
import EarshotCore

/// Every subcommand, in the order `earshot --help` lists them.
let commands: [any Command.Type] = [
    ServeCommand.self,
    PartnersCommand.self,
    TranscribeCommand.self,
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

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
    print(root.usage)
    exit(0)
}
guard let (command, rest) = dispatch(arguments) else {
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
