import EarshotCore
import EarshotServer

enum SettingsCommand: Command {
    static let name = "settings"
    static let spec = CommandSpec(
        name: "earshot settings",
        abstract: "Print every server setting as a Markdown table: flag, EARSHOT_* variable, config-file key, meaning.",
        discussion: "The same table as README.md's configuration section (kept equal by `scripts/check-docs --write`).")

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        print(ServerConfiguration.settingsMarkdown, terminator: "")
        return 0
    }
}
