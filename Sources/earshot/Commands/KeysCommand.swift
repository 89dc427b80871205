import EarshotAPI
import EarshotCore
import EarshotServer
import Foundation

enum KeysCommand: Command {
    static let name = "keys"
    static let spec = CommandSpec(
        name: "earshot keys",
        abstract: "Manage API keys (long-lived, scoped, revocable credentials for scripts): create, list, revoke.",
        discussion: """
            ACTION is create NAME (prints the key once: esk_…), list, or revoke KEY_ID (refused from the next request \
            on). A key is sent like a token (Authorization: Bearer esk_…) and works on every route its scopes open: \
            --scope partner (everything a partner token may; the default) or any of records:read, records:write, \
            files:write, devices:bind; --user makes it a key of that user (their records only). Works on the local \
            data directory, like 'earshot partners'; partners can also manage keys through the API \
            (/open/partner/api-keys).
            """,
        options: ServerConfiguration.commandLineOptions.filter { ["config", "data-dir", "database"].contains($0.name) }
            + [
                .init("partner", valueName: "NAME|ID", help: "The partner (default: the only one)."),
                .init("scope", valueName: "SCOPE", help: "A scope of the new key (repeatable).", repeatable: true),
                .init("user", valueName: "USER_ID", help: "The user the new key acts as."),
                .init("expires-in-days", valueName: "N", help: "The new key stops working after N days."),
            ],
        flags: [.init("json", help: "Print JSON.")],
        positionals: [
            .init("ACTION", help: "create, list or revoke."),
            .init("ARGUMENT", help: "The key's name (create) or id (revoke).", optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError("earshot keys: \(error)")
            return 78  // EX_CONFIG
        }
        LogSink.shared.bootstrap(level: .warning, format: configuration.logFormat)
        let library = try await LocalLibrary.open(configuration)
        do {
            try await perform(arguments, library: library)
        } catch {
            await library.close()
            throw error
        }
        await library.close()
        return 0
    }

    static func perform(_ arguments: ParsedArguments, library: LocalLibrary) async throws {
        let partner = try await TokenCommand.onlyPartner(arguments.value("partner"), library: library, command: spec.name)
        let argument = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        let json = arguments.flag("json")
        switch arguments.positionals[0] {
        case "create":
            guard let name = argument else { throw ArgumentError(command: spec.name, "create needs a NAME") }
            var days: Int?
            if let text = arguments.value("expires-in-days") {
                guard let value = Int(text) else {
                    throw ArgumentError(command: spec.name, "--expires-in-days must be a number")
                }
                days = value
            }
            let scopes = arguments.values("scope")
            let created = try await library.createKey(
                partnerID: partner,
                APIKeyRequest(
                    name: name, scopes: scopes.isEmpty ? ["partner"] : scopes, userID: arguments.value("user"),
                    expiresInDays: days))
            if json {
                try printJSON(created)
            } else {
                print(created.apiKey)
                writeError(
                    "API key \(created.key.keyID) (\(created.key.scopes.joined(separator: " "))): store it now, "
                        + "Earshot keeps only a hash and cannot show it again.")
            }
        case "list":
            let keys = try await library.keys(partnerID: partner)
            if json {
                try printJSON(APIKeyList(keys: keys))
                return
            }
            for key in keys {
                let state = key.revokedAtMs != nil ? "revoked" : "active"
                let user = key.userID.map { " user=\($0)" } ?? ""
                print("\(key.keyID)  \(key.prefix)…  \(state)  \(key.scopes.joined(separator: ","))\(user)  \(key.name)")
            }
        case "revoke":
            guard let id = argument else { throw ArgumentError(command: spec.name, "revoke needs a KEY_ID") }
            let key = try await library.revokeKey(partnerID: partner, keyID: id)
            print("\(key.keyID) revoked")
        case let other:
            throw ArgumentError(command: spec.name, "unknown action '\(other)' (create, list, revoke)")
        }
    }

    private static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
