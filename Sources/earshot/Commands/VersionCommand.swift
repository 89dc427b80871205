import EarshotCore

enum VersionCommand: Command {
    static let name = "version"
    static let spec = CommandSpec(name: "earshot version", abstract: "Print the Earshot version.")

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        print("earshot \(EarshotVersion.current)")
        return 0
    }
}
