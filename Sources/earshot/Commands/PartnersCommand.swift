import EarshotCore
import EarshotServer
import Foundation

enum PartnersCommand: Command {
    static let name = "partners"
    static let spec = CommandSpec(
        name: "earshot partners",
        abstract:
            "Manage partners (tenants): create one and print its client credentials, list, disable, enable, "
            + "rotate its secret.",
        discussion: """
            ACTION is one of: create NAME (prints client_id and client_secret once; only a hash of the secret is \
            stored), list, disable PARTNER_ID (its tokens and signed URLs stop working at once, and stay revoked \
            after enable), enable PARTNER_ID, rotate-secret PARTNER_ID (prints a new client_secret once; the old \
            one keeps working for --overlap). Uses the same database as 'earshot serve' (--data-dir, --database, \
            --config or EARSHOT_* variables) and is safe while the server runs.
            """,
        options: ServerConfiguration.commandLineOptions.filter {
            ["config", "data-dir", "database"].contains($0.name)
        } + [
            .init(
                "overlap", valueName: "DURATION",
                help: "rotate-secret: how long the old secret keeps working (default 24h; 0 ends it now).")
        ],
        flags: [.init("json", help: "Print JSON instead of text.")],
        positionals: [
            .init("ACTION", help: "create, list, disable, enable or rotate-secret."),
            .init(
                "ARGUMENT", help: "The partner name (create) or id (disable, enable, rotate-secret).", optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError("earshot partners: \(error)")
            return 78  // EX_CONFIG
        }
        LogSink.shared.bootstrap(level: max(configuration.logLevel, .warning), format: configuration.logFormat)
        let administration = PartnerAdministration(configuration: configuration)
        let json = arguments.flag("json")
        let action = arguments.positionals[0]
        let argument = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        switch action {
        case "create":
            guard let name = argument else { throw ArgumentError(command: spec.name, "create needs a NAME") }
            let credentials = try await administration.create(name: name)
            if json {
                try printJSON([
                    "client_id": credentials.clientID, "client_secret": credentials.clientSecret,
                    "name": credentials.partner.name,
                ])
            } else {
                print("client_id: \(credentials.clientID)")
                print("client_secret: \(credentials.clientSecret)")
            }
            writeError("Store the client secret now: Earshot keeps only a hash and cannot show it again.")
        case "list":
            guard argument == nil else { throw ArgumentError(command: spec.name, "list takes no argument") }
            let partners = try await administration.list()
            if json {
                try printJSON(partners.map { ["client_id": $0.id, "name": $0.name, "status": $0.status] })
            } else {
                for partner in partners { print("\(partner.id)  \(partner.status)  \(partner.name)") }
            }
        case "disable", "enable":
            guard let id = argument else { throw ArgumentError(command: spec.name, "\(action) needs a PARTNER_ID") }
            try await administration.setStatus(id, active: action == "enable")
            print("\(id) \(action)d")
        case "rotate-secret":
            guard let id = argument else { throw ArgumentError(command: spec.name, "rotate-secret needs a PARTNER_ID") }
            let text = arguments.value("overlap") ?? "24h"
            guard let overlap = ServerConfiguration.duration(text) else {
                throw ArgumentError(command: spec.name, "--overlap '\(text)' is not a duration (examples: 1h, 7d, 0)")
            }
            let secret = try await administration.rotateSecret(id, overlap: overlap)
            if json {
                try printJSON(["client_id": id, "client_secret": secret])
            } else {
                print("client_id: \(id)")
                print("client_secret: \(secret)")
            }
            writeError(
                "Store the new client secret now: it cannot be shown again. The old one works for \(text) more.")
        default:
            let actions = ["create", "list", "disable", "enable", "rotate-secret"]
            let suggestion = closestMatch(to: action, among: actions)
            throw ArgumentError(
                command: spec.name,
                "unknown action '\(action)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                    + " (\(actions.joined(separator: ", ")))")
        }
        return 0
    }

    private static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
