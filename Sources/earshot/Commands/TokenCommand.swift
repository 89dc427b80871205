import EarshotAPI
import EarshotCore
import EarshotServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum TokenCommand: Command {
    static let name = "token"
    static let spec = CommandSpec(
        name: "earshot token",
        abstract: "Print an access token: a partner token, or a user token with --user.",
        discussion: """
            Locally (the default) the token is signed with the data directory's keys (--data-dir, as 'earshot \
            serve'), for the partner --partner (a name or ptn_… id; the only partner when there is one), and works \
            on any server using that database. With --server URL it asks that server instead, with --client-id and \
            --client-secret (or EARSHOT_CLIENT_ID, EARSHOT_CLIENT_SECRET). Tokens expire (partner-token-ttl, \
            user-token-ttl); for scripts that run for months, create an API key ('earshot keys create'). Prints \
            the token alone, or the JSON answer with --json.
            """,
        options: ServerConfiguration.commandLineOptions.filter { ["config", "data-dir", "database"].contains($0.name) }
            + [
                .init("partner", valueName: "NAME|ID", help: "Local mode: the partner (default: the only one)."),
                .init("user", valueName: "USER_ID", help: "A user token for this user of the partner."),
                .init("ttl", valueName: "SECONDS", help: "Lifetime (at most the server's maximum)."),
                .init("server", valueName: "URL", help: "Ask this server (or EARSHOT_SERVER)."),
                .init("client-id", valueName: "ID", help: "With --server: the partner's client id."),
                .init("client-secret", valueName: "SECRET", help: "With --server: the partner's client secret."),
            ],
        flags: [.init("json", help: "Print {access_token, token_type, expires_in}.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        var ttl: Int?
        if let text = arguments.value("ttl") {
            guard let value = Int(text), value > 0 else {
                throw ArgumentError(command: spec.name, "--ttl must be a positive number of seconds")
            }
            ttl = value
        }
        let environment = ProcessInfo.processInfo.environment
        let token: TokenResponse
        if let server = arguments.value("server") ?? environment["EARSHOT_SERVER"] {
            guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else {
                throw ArgumentError(command: spec.name, "--server needs the http(s) URL of an Earshot server")
            }
            guard let id = arguments.value("client-id") ?? environment["EARSHOT_CLIENT_ID"],
                let secret = arguments.value("client-secret") ?? environment["EARSHOT_CLIENT_SECRET"]
            else {
                throw ArgumentError(
                    command: spec.name, "--server needs --client-id and --client-secret ('earshot partners create')")
            }
            token = try await remote(base, clientID: id, clientSecret: secret, user: arguments.value("user"), ttl: ttl)
        } else {
            let configuration: ServerConfiguration
            do {
                configuration = try ServerConfiguration.load(arguments: arguments, environment: environment)
            } catch {
                writeError("earshot token: \(error)")
                return 78  // EX_CONFIG
            }
            LogSink.shared.bootstrap(level: .warning, format: configuration.logFormat)
            let library = try await LocalLibrary.open(configuration)
            do {
                let partner = try await onlyPartner(arguments.value("partner"), library: library, command: spec.name)
                token = try await library.token(partnerID: partner, userID: arguments.value("user"), ttlSeconds: ttl)
            } catch {
                await library.close()
                throw error
            }
            await library.close()
        }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(token), as: UTF8.self))
        } else {
            print(token.accessToken)
        }
        return 0
    }

    /// The partner `given` names, or the data directory's only partner.
    static func onlyPartner(_ given: String?, library: LocalLibrary, command: String) async throws -> String {
        if let given { return try await library.partner(given, create: false) }
        let partners = try await library.partners()
        guard partners.count == 1 else {
            throw ArgumentError(
                command: command,
                partners.isEmpty
                    ? "this data directory has no partner yet: 'earshot partners create NAME' (or 'earshot notes add', "
                        + "which creates \"local\")"
                    : "\(partners.count) partners: pass --partner (" + partners.joined(separator: ", ") + ")")
        }
        return partners[0]
    }

    static func remote(_ base: URL, clientID: String, clientSecret: String, user: String?, ttl: Int?) async throws
        -> TokenResponse
    {
        func post(_ path: String, _ body: [String: Any], bearer: String?) async throws -> TokenResponse {
            var request = URLRequest(url: base.appendingPathComponent(path))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            let (data, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                let error = try? JSONDecoder().decode(ErrorResponse.self, from: data)
                throw ArgumentError(
                    command: spec.name,
                    "\(base.absoluteString) refused: " + (error.map { "\($0.error.code): \($0.error.message)" }
                        ?? String(decoding: data.prefix(300), as: UTF8.self)))
            }
            return try JSONDecoder().decode(TokenResponse.self, from: data)
        }
        if user == nil, ttl != nil {
            throw ArgumentError(
                command: spec.name, "--ttl with --server applies to user tokens; a partner token lives partner-token-ttl")
        }
        let partner = try await post(
            APIPath.partnerToken, ["client_id": clientID, "client_secret": clientSecret], bearer: nil)
        guard let user else { return partner }
        var body: [String: Any] = ["user_id": user]
        if let ttl { body["ttl_seconds"] = ttl }
        return try await post(APIPath.userToken, body, bearer: partner.accessToken)
    }
}
