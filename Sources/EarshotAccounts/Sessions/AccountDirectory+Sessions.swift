import EarshotCore
import EarshotCrypto
import EarshotStore

/// Sessions: opaque tokens (`est_` + 256 random bits), stored as their SHA-256, revocable one by one or all at once.
///
/// A session is checked on every use (not revoked, not expired, its account active, its tenant still allowing
/// direct sign-in), so revoking it, disabling its account or its tenant ends it at once. Cookie sessions also hold
/// the SHA-256 of a CSRF token that every state-changing request must repeat.
extension AccountDirectory {
    /// Starts a session for a signed-in account.
    public func startSession(
        for account: Account, kind: Session.Kind, device: String?, ip: String?, userAgent: String?
    ) async throws -> IssuedSession {
        let token = "est_" + Base64URL.encode(try SecureRandom.bytes(32))
        let csrf = kind == .cookie ? Base64URL.encode(try SecureRandom.bytes(32)) : nil
        let at = now()
        let device = try Self.device(device)
        let session = Session(
            id: Identifier.make(prefix: "ses"), accountID: account.id, partnerID: account.partnerID, kind: kind,
            device: device, userAgent: userAgent.map { String($0.prefix(256)) }, ip: ip, createdAt: at,
            lastUsedAt: at, expiresAt: at + configuration.sessionLifetime.milliseconds)
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO account_sessions (id, partner_id, account_id, kind, token_hash, csrf_hash, device, "
                    + "user_agent, ip, created_at, last_used_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                session.id, session.partnerID, session.accountID, kind.rawValue, Self.digest(token),
                csrf.map(Self.digest), session.device, session.userAgent, ip, at, at, session.expiresAt)
        }
        return IssuedSession(session: session, token: token, csrfToken: csrf)
    }

    /// The live session of `token` and its account; 401 `unauthorized` naming the reason otherwise.
    public func authenticate(sessionToken token: String) async throws -> (Session, Account) {
        guard token.hasPrefix("est_"), token.utf8.count < 100 else {
            throw AccountError(.unauthorized, "not a session token (they start with est_)")
        }
        let at = now()
        let found = try await metadata.read { db -> (Session, Account, Int64?, Bool)? in
            guard
                let row = try db.queryFirst(
                    "SELECT \(Self.sessionColumns), s.revoked_at, coalesce(t.direct_sign_in, 0) AS allowed "
                        + "FROM account_sessions s LEFT JOIN account_tenants t ON t.partner_id = s.partner_id "
                        + "WHERE s.token_hash = ?", Self.digest(token))
            else { return nil }
            let session = try row.decode(Session.self)
            guard let account = try Self.account(db, id: session.accountID) else { return nil }
            return (session, account, try row.decode("revoked_at", as: Int64?.self), try row.decode("allowed") == 1)
        }
        guard let (session, account, revokedAt, allowed) = found else {
            throw AccountError(.unauthorized, "unknown session; sign in again")
        }
        guard revokedAt == nil else { throw AccountError(.unauthorized, "this session was signed out; sign in again") }
        guard at < session.expiresAt else { throw AccountError(.unauthorized, "this session expired; sign in again") }
        guard account.status == .active else {
            throw AccountError(.unauthorized, "this account is \(account.status.rawValue); sign in again")
        }
        guard allowed else {
            throw AccountError(.unauthorized, "this tenant no longer allows direct sign-in")
        }
        // Record use at most once a minute: a write per request would serialise every request on the database.
        if at - session.lastUsedAt > 60_000 {
            try await metadata.write { db in
                try db.execute("UPDATE account_sessions SET last_used_at = ? WHERE id = ?", at, session.id)
            }
        }
        return (session, account)
    }

    /// True when `csrfToken` is the CSRF token of cookie session `sessionID` (constant-time comparison).
    public func checkCSRF(sessionID: String, csrfToken: String?) async throws -> Bool {
        guard let csrfToken, !csrfToken.isEmpty else { return false }
        let stored = try await metadata.read { db in
            try db.scalar("SELECT csrf_hash FROM account_sessions WHERE id = ?", sessionID, as: String?.self) ?? nil
        }
        guard let stored else { return false }
        return ConstantTime.equals(Array(Self.digest(csrfToken).utf8), Array(stored.utf8))
    }

    /// The account's live sessions, newest first.
    public func sessions(of accountID: String) async throws -> [Session] {
        let at = now()
        return try await metadata.read { db in
            try db.query(
                "SELECT \(Self.sessionColumns) FROM account_sessions s WHERE s.account_id = ? AND s.revoked_at IS NULL "
                    + "AND s.expires_at > ? ORDER BY s.created_at DESC, s.id", [.text(accountID), .integer(at)]
            ).map { try $0.decode(Session.self) }
        }
    }

    /// Ends one session of the account; false when it has no such live session.
    public func revokeSession(_ sessionID: String, of accountID: String) async throws -> Bool {
        let at = now()
        return try await metadata.write { db in
            try db.execute(
                "UPDATE account_sessions SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL",
                at, sessionID, accountID) == 1
        }
    }

    /// Ends every session of the account except `sessionID` (all when nil); returns how many ended.
    @discardableResult
    public func revokeSessions(of accountID: String, except sessionID: String?) async throws -> Int {
        let at = now()
        return try await metadata.write { db in
            let live =
                try db.scalar(
                    "SELECT count(*) FROM account_sessions WHERE account_id = ? AND revoked_at IS NULL "
                        + "AND (? IS NULL OR id <> ?)", accountID, sessionID, sessionID, as: Int.self) ?? 0
            try Self.revokeSessions(db, accountID: accountID, except: sessionID, at: at)
            return live
        }
    }

    static let sessionColumns =
        "s.id, s.account_id, s.partner_id, s.kind, s.device, s.user_agent, s.ip, s.created_at, s.last_used_at, "
        + "s.expires_at"

    /// Hex SHA-256 of a token.
    static func digest(_ token: String) -> String {
        DigestAlgorithm.sha256.hash(Array(token.utf8)).hex
    }

    /// A device name: trimmed, at most 100 characters, no invisible characters.
    static func device(_ text: String?) throws(AccountError) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.count <= 100 else { throw .invalid("device", "is longer than 100 characters") }
        if let scalar = trimmed.unicodeScalars.first(where: { Characters.isInvisible($0) }) {
            throw .invalid("device", "contains \(Characters.describe(scalar)); remove it")
        }
        return trimmed
    }
}
