import EarshotAccounts
import EarshotCore
import EarshotServer
import Foundation

enum AccountsCommand: Command {
    static let name = "accounts"
    static let spec = CommandSpec(
        name: "earshot accounts",
        abstract:
            "Manage accounts (users who sign in with a password): create one, list, disable, enable, grant or "
            + "revoke the instance owner role.",
        discussion: """
            ACTION is one of: create ADDRESS (an email address or an E.164 phone number; the password is read \
            from the first line of standard input, never from the command line; the account is active at once, \
            no code is sent; --owner also makes it the instance owner), list, disable ACCOUNT_ID (its sessions end \
            at once), enable ACCOUNT_ID, grant-owner ACCOUNT_ID (the account administers the instance: the \
            console's Admin page and the admin API; default tenant only), revoke-owner ACCOUNT_ID. Accounts live \
            in the instance's default tenant unless --partner names another. Uses the same database as \
            'earshot serve' (--data-dir, --database, --config or EARSHOT_* variables) and is safe while the \
            server runs.
            """,
        options: ServerConfiguration.commandLineOptions.filter {
            ["config", "data-dir", "database", "argon2"].contains($0.name)
        } + [
            .init("partner", valueName: "PARTNER_ID", help: "The tenant (default: the instance's default tenant)."),
            .init("nickname", valueName: "NAME", help: "The account's nickname (create)."),
            .init("country", valueName: "CODE", help: "ISO country code of a phone number (create), e.g. US."),
        ],
        flags: [
            .init("json", help: "Print JSON instead of text."),
            .init("owner", help: "Make the new account the instance owner (create; default tenant only)."),
        ],
        positionals: [
            .init("ACTION", help: "create, list, disable, enable, grant-owner or revoke-owner."),
            .init(
                "ARGUMENT", help: "The address (create) or account id (disable, enable, grant-owner, revoke-owner).",
                optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            writeError("earshot accounts: \(error)")
            return 78  // EX_CONFIG
        }
        LogSink.shared.bootstrap(level: max(configuration.logLevel, .warning), format: configuration.logFormat)
        let administration = AccountAdministration(configuration: configuration)
        let json = arguments.flag("json")
        let action = arguments.positionals[0]
        let argument = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        switch action {
        case "create":
            guard let address = argument else {
                throw ArgumentError(command: spec.name, "create needs an ADDRESS (email or +phone)")
            }
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ArgumentError(
                    command: spec.name, "create reads the password from standard input (echo … | earshot accounts …)")
            }
            let isEmail = address.contains("@") || address.unicodeScalars.contains { $0.value == 0xFF20 }
            if arguments.flag("owner"), let partner = arguments.value("partner"),
                partner != AccountDirectory.defaultTenant
            {
                throw ArgumentError(
                    command: spec.name,
                    "--owner: only accounts of the default tenant can own the instance, not of \(partner)")
            }
            var account = try await administration.create(
                tenant: arguments.value("partner"), email: isEmail ? address : nil, phone: isEmail ? nil : address,
                country: arguments.value("country"), password: password, nickname: arguments.value("nickname"))
            if arguments.flag("owner") { account = try await administration.setOwner(account.id, true) }
            if json {
                try printJSON(row(account))
            } else {
                print("account_id: \(account.id)")
            }
        case "list":
            guard argument == nil else { throw ArgumentError(command: spec.name, "list takes no argument") }
            let accounts = try await administration.list(tenant: arguments.value("partner"))
            if json {
                try printJSON(accounts.map(row))
            } else {
                for account in accounts {
                    print(
                        "\(account.id)  \(account.status.rawValue)  \(account.address)  \(account.partnerID)"
                            + (account.nickname.map { "  \($0)" } ?? "") + (account.isInstanceOwner ? "  owner" : ""))
                }
            }
        case "disable", "enable":
            guard let id = argument else { throw ArgumentError(command: spec.name, "\(action) needs an ACCOUNT_ID") }
            try await administration.setDisabled(id, action == "disable")
            print("\(id) \(action)d")
        case "grant-owner", "revoke-owner":
            guard let id = argument else { throw ArgumentError(command: spec.name, "\(action) needs an ACCOUNT_ID") }
            let account = try await administration.setOwner(id, action == "grant-owner")
            print(
                account.isInstanceOwner
                    ? "\(id) (\(account.address)) owns the instance: its console shows the Admin page"
                    : "\(id) (\(account.address)) no longer owns the instance")
        default:
            let actions = ["create", "list", "disable", "enable", "grant-owner", "revoke-owner"]
            let suggestion = closestMatch(to: action, among: actions)
            throw ArgumentError(
                command: spec.name,
                "unknown action '\(action)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                    + " (\(actions.joined(separator: ", ")))")
        }
        return 0
    }

    private static func row(_ account: Account) -> [String: String] {
        var row = [
            "account_id": account.id, "partner_id": account.partnerID, "status": account.status.rawValue,
            "address": account.address,
        ]
        row["nickname"] = account.nickname
        row["country"] = account.country
        if account.isInstanceOwner { row["role"] = "owner" }
        return row
    }

    private static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
