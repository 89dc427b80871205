import EarshotCore
public import EarshotStore
import Foundation

/// The accounts of every tenant: sign-up with a verification code, sign-in, passwords (change, reset by code),
/// profile, deletion, administration. Sessions are in `AccountDirectory+Sessions.swift`.
///
/// Every method takes the tenant (partner id) the caller acts in; an account exists only inside its tenant, so the
/// same address may belong to accounts of two tenants and one never signs in to the other. Errors are
/// ``AccountError``s. Password hashing runs on ``PasswordHasher``'s threads, outside any transaction.
public struct AccountDirectory: Sendable {
    /// Lifetimes and limits.
    public struct Configuration: Sendable {
        /// A code expires this long after it is sent.
        public var codeLifetime: Duration = .seconds(600)
        /// Another code for the same purpose may be asked for this long after the last one.
        public var resendInterval: Duration = .seconds(60)
        /// Wrong tries before a code locks.
        public var codeAttempts = 5
        /// A session ends this long after sign-in (unless revoked earlier).
        public var sessionLifetime: Duration = .seconds(30 * 86400)
        /// What a new password must be.
        public var passwords = PasswordPolicy()
        /// The product name in messages.
        public var productName = "Earshot"

        /// The defaults above.
        public init() {}
    }

    /// The instance's default tenant, created by the schema, which allows direct sign-in: where self-hosters'
    /// accounts live when a request names no tenant.
    public static let defaultTenant = "ptn_00000000000000000000"

    /// Where accounts, codes, messages and sessions are kept.
    public let metadata: any MetadataStore
    /// Hashes and verifies passwords.
    public let hasher: PasswordHasher
    /// Lifetimes and limits.
    public let configuration: Configuration
    /// Wakes this process's delivery jobs after a message is queued.
    let signal: JobSignal?
    /// Unix milliseconds.
    var now: @Sendable () -> Int64

    /// A directory over `metadata`; `signal` wakes the delivery jobs of this process, `now` is Unix ms.
    public init(
        metadata: any MetadataStore, hasher: PasswordHasher, configuration: Configuration = Configuration(),
        signal: JobSignal? = nil, now: @escaping @Sendable () -> Int64 = JobQueue.wallClock
    ) {
        self.metadata = metadata
        self.hasher = hasher
        self.configuration = configuration
        self.signal = signal
        self.now = now
    }

    static let accountColumns =
        "id, partner_id, CASE address_kind WHEN 'email' THEN address END AS email, "
        + "CASE address_kind WHEN 'phone' THEN address END AS phone, country, nickname, status, created_at, verified_at, role"

    // MARK: Tenants

    /// Whether `tenant`'s users may sign up and sign in directly (false for an unknown tenant).
    public func allowsDirectSignIn(_ tenant: String) async throws -> Bool {
        try await metadata.read { db in
            try db.scalar(
                "SELECT t.direct_sign_in FROM account_tenants t JOIN partners p ON p.id = t.partner_id "
                    + "WHERE t.partner_id = ? AND p.status = 'active'", tenant, as: Int.self) == 1
        }
    }

    /// Lets `tenant`'s users sign in directly, or stops it (their sessions stop working at once).
    public func setDirectSignIn(_ tenant: String, _ enabled: Bool) async throws {
        let at = now()
        try await metadata.write { db in
            try db.execute(
                "INSERT INTO account_tenants (partner_id, direct_sign_in, updated_at) VALUES (?, ?, ?) "
                    + "ON CONFLICT (partner_id) DO UPDATE SET direct_sign_in = excluded.direct_sign_in, "
                    + "updated_at = excluded.updated_at", tenant, enabled ? 1 : 0, at)
        }
    }

    // MARK: Sign-up and verification

    /// Creates a `pending` account and sends it a verification code. Signing up again with a pending address and
    /// the same password sends a new code (subject to the resend interval); a different password, or an address
    /// that is already verified, is 409 `conflict`.
    public func signUp(
        tenant: String, address: AccountAddress, password: String, nickname: String?
    ) async throws -> CodeTicket {
        try configuration.passwords.check(password, address: address.value)
        let nickname = try Self.nickname(nickname)
        let existing = try await metadata.read { db in
            try db.queryFirst(
                "SELECT id, status, password_hash FROM accounts WHERE partner_id = ? AND address = ?", tenant,
                address.value)
        }
        if let existing {
            let status = try existing.decode("status", as: String.self)
            guard status == "pending",
                try await hasher.verify(password, against: try existing.decode("password_hash", as: String.self))
            else {
                throw AccountError(
                    .conflict,
                    status == "pending"
                        ? "\(address.field): this address signed up already and waits for its code; enter it, or ask "
                            + "for a new one (POST /open/accounts/codes)"
                        : "\(address.field): an account with this address exists; sign in, or reset its password",
                    field: address.field)
            }
            return try await sendCode(
                accountID: try existing.decode("id", as: String.self), tenant: tenant, address: address,
                purpose: .verify)
        }
        let hash = try await hasher.hash(password)
        let id = Identifier.make(prefix: "acc")
        let at = now()
        let country = Self.country(of: address)
        do {
            try await metadata.write { db in
                try db.execute(
                    "INSERT INTO accounts (id, partner_id, address_kind, address, country, nickname, password_hash, "
                        + "status, created_at, password_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
                    id, tenant, address.kind, address.value, country, nickname, hash, at, at)
            }
        } catch let error as StoreError where error.code == .conflict {
            throw AccountError(
                .conflict, "\(address.field): an account with this address was just created; sign in",
                field: address.field)
        }
        return try await sendCode(accountID: id, tenant: tenant, address: address, purpose: .verify)
    }

    /// Checks the verification code of a pending account and activates it.
    public func verify(tenant: String, address: AccountAddress, code: String) async throws -> Account {
        let at = now()
        let (account, failure) = try await metadata.write { db -> (Account?, AccountError?) in
            guard let account = try Self.account(db, tenant: tenant, address: address.value) else {
                throw AccountError.invalid("code", "no code was sent for this address; sign up first")
            }
            guard account.status != .disabled else {
                throw AccountError(.forbidden, "this account is disabled; ask the administrator")
            }
            if let failure = try VerificationCode.consume(db, code, accountID: account.id, purpose: .verify, now: at) {
                return (nil, failure)
            }
            try db.execute(
                "UPDATE accounts SET status = 'active', verified_at = ? WHERE id = ? AND status = 'pending'", at,
                account.id)
            return (try Self.account(db, id: account.id), nil)
        }
        if let failure { throw failure }
        return try Self.require(account)
    }

    /// Sends a new code: `verify` for a pending account, `reset` for any account that is not disabled. Returns
    /// nil (and sends nothing) otherwise — no such account, a disabled one, `verify` for a verified one — so the
    /// answer does not reveal which addresses exist.
    public func resendCode(tenant: String, address: AccountAddress, purpose: String) async throws -> CodeTicket? {
        guard let purpose = VerificationCode.Purpose(rawValue: purpose) else {
            throw AccountError.invalid("purpose", "'\(purpose)' is not verify or reset")
        }
        let account = try await metadata.read { db in try Self.account(db, tenant: tenant, address: address.value) }
        guard let account, account.status != .disabled else { return nil }
        // A verified address needs no verification code; answering as for an unknown address keeps it private.
        if purpose == .verify && account.status != .pending { return nil }
        return try await sendCode(accountID: account.id, tenant: tenant, address: address, purpose: purpose)
    }

    // MARK: Sign-in

    /// The account whose address and password these are; 401 `unauthorized` otherwise (the same answer, in about
    /// the same time, for an unknown address). A pending account must verify first and a disabled one cannot sign
    /// in (403 `forbidden`, said only to the holder of the right password). A hash made with weaker parameters
    /// than the configured ones is replaced.
    public func signIn(tenant: String, address: AccountAddress, password: String) async throws -> Account {
        guard password.utf8.count <= configuration.passwords.maximumBytes else {
            throw AccountError.invalid(
                "password", "is longer than \(configuration.passwords.maximumBytes) bytes; no password is")
        }
        let row = try await metadata.read { db -> (Account, String)? in
            guard let account = try Self.account(db, tenant: tenant, address: address.value) else { return nil }
            let hash = try db.scalar("SELECT password_hash FROM accounts WHERE id = ?", account.id, as: String.self)
            return (account, hash ?? "")
        }
        let matches = try await hasher.verify(password, against: row?.1 ?? hasher.decoy())
        guard let (account, stored) = row, matches else {
            throw AccountError(.unauthorized, "wrong \(address.field) or password")
        }
        switch account.status {
        case .pending:
            throw AccountError(
                .forbidden, "\(address.field): verify this address first with the code we sent (or ask for a new one)",
                field: address.field)
        case .disabled: throw AccountError(.forbidden, "this account is disabled; ask the administrator")
        case .active: break
        }
        if hasher.needsRehash(stored) {
            let upgraded = try await hasher.hash(password)
            try await metadata.write { db in
                try db.execute(
                    "UPDATE accounts SET password_hash = ? WHERE id = ? AND password_hash = ?", upgraded, account.id,
                    stored)
            }
        }
        return account
    }

    // MARK: Passwords

    /// Replaces the password after checking the current one, and ends every other session of the account.
    public func changePassword(
        accountID: String, current: String, new: String, keepingSession sessionID: String?
    ) async throws {
        let account = try await confirmPassword(accountID: accountID, password: current, field: "current_password")
        try configuration.passwords.check(new, field: "new_password", address: account.address)
        let hash = try await hasher.hash(new)
        let at = now()
        try await metadata.write { db in
            try db.execute(
                "UPDATE accounts SET password_hash = ?, password_changed_at = ? WHERE id = ?", hash, at, accountID)
            try Self.revokeSessions(db, accountID: accountID, except: sessionID, at: at)
        }
    }

    /// Sends a password-reset code to the address, if it belongs to an account that is not disabled (nil
    /// otherwise, and nothing is sent: the answer does not reveal which addresses exist).
    public func requestPasswordReset(tenant: String, address: AccountAddress) async throws -> CodeTicket? {
        try await resendCode(tenant: tenant, address: address, purpose: VerificationCode.Purpose.reset.rawValue)
    }

    /// Sets a new password with a reset code, verifies the address if it was pending, and ends every session.
    public func resetPassword(
        tenant: String, address: AccountAddress, code: String, newPassword: String
    ) async throws -> Account {
        try configuration.passwords.check(newPassword, field: "new_password", address: address.value)
        let hash = try await hasher.hash(newPassword)
        let at = now()
        let (account, failure) = try await metadata.write { db -> (Account?, AccountError?) in
            guard let account = try Self.account(db, tenant: tenant, address: address.value),
                account.status != .disabled
            else { throw AccountError.invalid("code", "no code was sent for this address; ask for one first") }
            if let failure = try VerificationCode.consume(db, code, accountID: account.id, purpose: .reset, now: at) {
                return (nil, failure)
            }
            try db.execute(
                "UPDATE accounts SET password_hash = ?, password_changed_at = ?, status = 'active', "
                    + "verified_at = coalesce(verified_at, ?) WHERE id = ?", hash, at, at, account.id)
            try Self.revokeSessions(db, accountID: account.id, except: nil, at: at)
            return (try Self.account(db, id: account.id), nil)
        }
        if let failure { throw failure }
        return try Self.require(account)
    }

    /// The account, after checking its password (401 `unauthorized` naming `field` when wrong).
    @discardableResult
    public func confirmPassword(accountID: String, password: String, field: String = "password") async throws
        -> Account
    {
        let row = try await metadata.read { db -> (Account, String)? in
            guard let account = try Self.account(db, id: accountID) else { return nil }
            let hash = try db.scalar("SELECT password_hash FROM accounts WHERE id = ?", accountID, as: String.self)
            return (account, hash ?? "")
        }
        guard let (account, stored) = row else { throw AccountError(.notFound, "no account \(accountID)") }
        guard try await hasher.verify(password, against: stored) else {
            throw AccountError(.unauthorized, "\(field): wrong password", field: field)
        }
        return account
    }

    // MARK: Profile, deletion

    /// The account `id`, or nil.
    public func account(_ id: String) async throws -> Account? {
        try await metadata.read { db in try Self.account(db, id: id) }
    }

    /// Sets (or, with nil or an empty string, clears) the nickname.
    public func setNickname(accountID: String, _ nickname: String?) async throws -> Account {
        let nickname = try Self.nickname(nickname)
        let account = try await metadata.write { db in
            try db.execute("UPDATE accounts SET nickname = ? WHERE id = ?", nickname, accountID)
            return try Self.account(db, id: accountID)
        }
        return try Self.require(account)
    }

    /// Deletes the account's own rows (sessions, codes, messages and their delivery jobs, the account). The
    /// caller deletes its data (records, voiceprints) first.
    public func remove(accountID: String) async throws {
        try await metadata.write { db in
            let messages = try db.query("SELECT id FROM account_outbox WHERE account_id = ?", accountID).map {
                try $0.decode("id", as: String.self)
            }
            try db.execute("DELETE FROM account_sessions WHERE account_id = ?", accountID)
            try db.execute("DELETE FROM account_codes WHERE account_id = ?", accountID)
            try db.execute("DELETE FROM account_outbox WHERE account_id = ?", accountID)
            for message in messages { try db.execute("DELETE FROM jobs WHERE id = ?", message) }
            try db.execute("DELETE FROM accounts WHERE id = ?", accountID)
        }
    }

    // MARK: Administration

    /// Creates an active account (no code: an administrator vouches for the address).
    public func create(tenant: String, address: AccountAddress, password: String, nickname: String?) async throws
        -> Account
    {
        try configuration.passwords.check(password, address: address.value)
        let nickname = try Self.nickname(nickname)
        let hash = try await hasher.hash(password)
        let id = Identifier.make(prefix: "acc")
        let at = now()
        let country = Self.country(of: address)
        do {
            let account = try await metadata.write { db in
                guard try db.scalar("SELECT count(*) FROM partners WHERE id = ?", tenant, as: Int.self) == 1 else {
                    throw AccountError(.notFound, "no tenant (partner) \(tenant)", field: "partner")
                }
                try db.execute(
                    "INSERT INTO accounts (id, partner_id, address_kind, address, country, nickname, password_hash, "
                        + "status, created_at, verified_at, password_changed_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)",
                    id, tenant, address.kind, address.value, country, nickname, hash, at, at, at)
                return try Self.account(db, id: id)
            }
            return try Self.require(account)
        } catch let error as StoreError where error.code == .conflict {
            throw AccountError(
                .conflict, "\(address.field): \(address.value) already has an account in \(tenant)",
                field: address.field)
        }
    }

    /// The accounts of `tenant` (every tenant when nil), oldest first.
    public func list(tenant: String?) async throws -> [Account] {
        try await metadata.read { db in
            try db.query(
                "SELECT \(Self.accountColumns) FROM accounts WHERE (? IS NULL OR partner_id = ?) "
                    + "ORDER BY created_at, id", [tenant.sqlValue, tenant.sqlValue]
            ).map { try $0.decode(Account.self) }
        }
    }

    /// Disables an account (ending its sessions) or enables it again; false when there is no such account.
    public func setDisabled(_ accountID: String, _ disabled: Bool) async throws -> Bool {
        let at = now()
        return try await metadata.write { db in
            guard try db.scalar("SELECT count(*) FROM accounts WHERE id = ?", accountID, as: Int.self) == 1 else {
                return false
            }
            if disabled {
                try db.execute("UPDATE accounts SET status = 'disabled' WHERE id = ?", accountID)
                try Self.revokeSessions(db, accountID: accountID, except: nil, at: at)
            } else {
                try db.execute(
                    "UPDATE accounts SET status = CASE WHEN verified_at IS NULL THEN 'pending' ELSE 'active' END "
                        + "WHERE id = ? AND status = 'disabled'", accountID)
            }
            return true
        }
    }

    /// Makes an account of the default tenant the instance owner (``Account/Role/owner``), or takes the role
    /// back. Only an operator with the server's shell calls this (`earshot accounts grant-owner|revoke-owner`): no
    /// HTTP route grants a role, so a stolen session cannot make more owners.
    ///
    /// - Throws: ``AccountError`` `.notFound` for an unknown account, `.invalidArgument` for an account of another
    ///   tenant (a partner's users never administer the instance).
    public func setOwner(_ accountID: String, _ owner: Bool) async throws -> Account {
        let account = try await metadata.write { db -> Account? in
            guard let account = try Self.account(db, id: accountID) else { return nil }
            guard account.partnerID == Self.defaultTenant else {
                throw AccountError(
                    .invalidArgument,
                    "\(accountID) is an account of \(account.partnerID); only accounts of the default tenant "
                        + "(\(Self.defaultTenant)) can own the instance")
            }
            try db.execute(
                "UPDATE accounts SET role = ? WHERE id = ?", owner ? Account.Role.owner.rawValue : "member", accountID)
            return try Self.account(db, id: accountID)
        }
        guard let account else { throw AccountError(.notFound, "no account \(accountID)") }
        return account
    }

    /// Whether the instance has an owner (an active owner account of the default tenant).
    public func hasOwner() async throws -> Bool {
        try await metadata.read { db in
            try db.scalar(
                "SELECT count(*) FROM accounts WHERE role = 'owner' AND partner_id = ? AND status = 'active'",
                Self.defaultTenant, as: Int.self) ?? 0 > 0
        }
    }

    // MARK: Helpers

    /// Issues a code and queues its message.
    private func sendCode(
        accountID: String, tenant: String, address: AccountAddress, purpose: VerificationCode.Purpose
    ) async throws -> CodeTicket {
        let at = now()
        let configuration = self.configuration
        let messageID = try await metadata.write { db in
            let (_, code) = try VerificationCode.issue(
                db, accountID: accountID, purpose: purpose, configuration: configuration, now: at)
            let minutes = max(1, configuration.codeLifetime.components.seconds / 60)
            let name = configuration.productName
            let message: OutboundMessage
            switch purpose {
            case .verify:
                message = OutboundMessage(
                    channel: address.channel, destination: address.value, subject: "Your \(name) verification code",
                    body: "Your \(name) verification code is \(code). It expires in \(minutes) minutes.\n"
                        + "If you did not sign up, ignore this message.")
            case .reset:
                message = OutboundMessage(
                    channel: address.channel, destination: address.value, subject: "Your \(name) password reset code",
                    body: "Your \(name) password reset code is \(code). It expires in \(minutes) minutes.\n"
                        + "If you did not ask to reset your password, ignore this message; your password is unchanged.")
            }
            return try Outbox.enqueue(db, partnerID: tenant, accountID: accountID, message: message, now: at)
        }
        signal?.notify(Outbox.jobKind)
        return CodeTicket(
            accountID: accountID, channel: address.channel, destination: CodeTicket.mask(address.value),
            expiresIn: Int(configuration.codeLifetime.components.seconds),
            resendAfter: Int(configuration.resendInterval.components.seconds),
            messageID: messageID)
    }

    static func account(_ db: any SQLDatabase, tenant: String, address: String) throws -> Account? {
        try db.queryFirst(
            "SELECT \(accountColumns) FROM accounts WHERE partner_id = ? AND address = ?", tenant, address
        ).map { try $0.decode(Account.self) }
    }

    static func account(_ db: any SQLDatabase, id: String) throws -> Account? {
        try db.queryFirst("SELECT \(accountColumns) FROM accounts WHERE id = ?", id).map { try $0.decode(Account.self) }
    }

    private static func require(_ account: Account?) throws -> Account {
        guard let account else { throw AccountError(.notFound, "the account no longer exists") }
        return account
    }

    static func revokeSessions(_ db: any SQLDatabase, accountID: String, except: String?, at: Int64) throws {
        try db.execute(
            "UPDATE account_sessions SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL "
                + "AND (? IS NULL OR id <> ?)", at, accountID, except, except)
    }

    private static func country(of address: AccountAddress) -> String? {
        if case .phone(let phone) = address { return phone.country?.code }
        return nil
    }

    /// A nickname: NFC, trimmed, 1-64 characters of visible text; nil or blank clears it.
    static func nickname(_ text: String?) throws(AccountError) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingSpaces().precomposedStringWithCanonicalMapping
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.count <= 64 else {
            throw .invalid("nickname", "is \(trimmed.count) characters long; use at most 64")
        }
        if let scalar = trimmed.unicodeScalars.first(where: { Characters.isInvisible($0) }) {
            throw .invalid(
                "nickname",
                "contains \(Characters.describe(scalar)); invisible and direction-changing characters can make a name "
                    + "look like another, remove it")
        }
        return trimmed
    }
}
