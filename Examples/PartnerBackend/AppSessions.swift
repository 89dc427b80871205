import EarshotHTTP

/// Who is calling: your app's own sign-in, checked on every request the app makes to this backend.
///
/// **This is the place to plug in your real authentication** (your session cookies, your OAuth access tokens,
/// Sign in with Apple…). The demo keeps it to a fixed table of session tokens from `BACKEND_SESSIONS`
/// (`session-token=user-id,…`): the app sends `Authorization: Bearer <session-token>` and the backend knows which
/// of your users it is. Earshot never sees these tokens; it only learns the user id you pass it.
struct AppSessions: Sendable {
    private var users: [String: String] = [:]

    init() {}

    /// Parses `token=user,token=user`. User ids follow Earshot's rule (1–128 of `[A-Za-z0-9._@:-]`).
    init(parsing text: String) throws(ConfigurationProblem) {
        for entry in text.split(separator: ",") {
            let pair = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty, Self.isUserID(pair[1]) else {
                throw ConfigurationProblem(
                    message: "'\(entry)' is not session-token=user-id (user ids: 1-128 of A-Z a-z 0-9 . _ @ : -)")
            }
            users[pair[0]] = pair[1]
        }
    }

    /// The signed-in user of `request`.
    ///
    /// - Throws: 401 `UNAUTHORIZED` without a known session.
    func user(of request: Request) throws(HTTPError) -> String {
        let header = request.headers["Authorization"] ?? ""
        guard header.lowercased().hasPrefix("bearer ") else {
            throw HTTPError.unauthorized("sign in first: send Authorization: Bearer <your app session>")
        }
        guard let user = users[String(header.dropFirst("bearer ".count))] else {
            throw HTTPError.unauthorized("this app session is unknown or has ended; sign in again")
        }
        return user
    }

    private static func isUserID(_ value: String) -> Bool {
        (1...128).contains(value.count)
            && value.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || "._@:-".unicodeScalars
                        .contains($0)
            }
    }
}
