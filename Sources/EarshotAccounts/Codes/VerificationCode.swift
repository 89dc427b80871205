import EarshotCore
import EarshotCrypto
import EarshotStore

/// Six-digit codes that prove an account owns its address: issued into the outbox, checked once.
///
/// A code is drawn uniformly from 000000-999999 (rejection sampling over the system CSPRNG) and stored only as
/// SHA-256(salt || code). It is single use, expires after ``AccountDirectory/Configuration/codeLifetime``, is
/// replaced by a newer code for the same purpose, and locks after ``AccountDirectory/Configuration/codeAttempts``
/// wrong tries, after which even the right code is refused (the weakness Supabase's users report: codes that
/// survive repeated wrong guesses). Checking happens inside one write transaction, so parallel guesses count.
enum VerificationCode {
    /// What a code proves.
    enum Purpose: String, Sendable {
        /// The address of a new account.
        case verify
        /// The right to set a new password.
        case reset
    }

    /// A fresh code.
    static func draw() throws -> String {
        while true {
            let bytes = try SecureRandom.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // 4_294_000_000 is the largest multiple of 1_000_000 below 2^32: no value is likelier than another.
            guard value < 4_294_000_000 else { continue }
            let text = String(value % 1_000_000)
            return String(repeating: "0", count: 6 - text.count) + text
        }
    }

    static func digest(_ code: String, salt: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha256.hash(salt + Array(code.utf8)).bytes
    }

    /// Inserts a new code for `accountID` (replacing its live one), unless the last was issued less than
    /// `resendInterval` ago (then ``AccountError/Code/rateLimited`` with the seconds to wait). Returns the code.
    static func issue(
        _ db: any SQLDatabase, accountID: String, purpose: Purpose, configuration: AccountDirectory.Configuration,
        now: Int64
    ) throws -> (id: String, code: String) {
        if let last = try db.scalar(
            "SELECT max(created_at) FROM account_codes WHERE account_id = ? AND purpose = ?", accountID,
            purpose.rawValue, as: Int64?.self) ?? nil
        {
            let wait = last + configuration.resendInterval.milliseconds - now
            if wait > 0 {
                let seconds = Int((wait + 999) / 1000)
                throw AccountError(
                    .rateLimited,
                    "a code was sent less than \(configuration.resendInterval.components.seconds) s ago; "
                        + "wait \(seconds) s before asking for another", retryAfter: seconds)
            }
        }
        try db.execute(
            "UPDATE account_codes SET state = 'replaced' WHERE account_id = ? AND purpose = ? AND state = 'live'",
            accountID, purpose.rawValue)
        let code = try draw()
        let salt = try SecureRandom.bytes(16)
        let id = Identifier.make(prefix: "code")
        try db.execute(
            "INSERT INTO account_codes (id, account_id, purpose, salt, code_hash, state, max_attempts, created_at, "
                + "expires_at) VALUES (?, ?, ?, ?, ?, 'live', ?, ?, ?)",
            id, accountID, purpose.rawValue, salt, digest(code, salt: salt), configuration.codeAttempts, now,
            now + configuration.codeLifetime.milliseconds)
        return (id, code)
    }

    /// Checks `code` against the newest code of `accountID` for `purpose` and uses it up; throws
    /// ``AccountError`` naming the `code` field when there is none, it was used (a replay), it expired or it is
    /// locked. A wrong code is counted (locking the code at the last try) and its error *returned*: the caller
    /// commits the count, then throws it.
    static func consume(
        _ db: any SQLDatabase, _ code: String, accountID: String, purpose: Purpose, now: Int64
    ) throws -> AccountError? {
        let submitted = code.trimmingSpaces()
        guard submitted.utf8.count == 6, submitted.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            if let scalar = submitted.unicodeScalars.first(where: { !$0.isASCII }) {
                throw AccountError.invalid("code", "contains \(Characters.describe(scalar)); use the ASCII digits 0-9")
            }
            throw AccountError.invalid("code", "must be the 6 digits we sent (got \(submitted.count) characters)")
        }
        guard
            let row = try db.queryFirst(
                "SELECT id, salt, code_hash, state, attempts, max_attempts, expires_at FROM account_codes "
                    + "WHERE account_id = ? AND purpose = ? "
                    + "ORDER BY created_at DESC, \(db.dialect == .postgresql ? "seq" : "rowid") DESC LIMIT 1",
                accountID, purpose.rawValue)
        else {
            throw AccountError.invalid("code", "no code was sent for this address; ask for one first")
        }
        let id = try row.decode("id", as: String.self)
        switch try row.decode("state", as: String.self) {
        case "used": throw AccountError.invalid("code", "this code was already used; ask for a new one")
        case "locked":
            throw AccountError.invalid("code", "this code is locked after too many wrong tries; ask for a new one")
        default: break
        }
        let expiresAt = try row.decode("expires_at", as: Int64.self)
        guard now < expiresAt else {
            throw AccountError.invalid(
                "code", "this code expired \(max(1, (now - expiresAt) / 60_000)) min ago; ask for a new one")
        }
        let matches = ConstantTime.equals(
            digest(submitted, salt: try row.decode("salt", as: [UInt8].self)),
            try row.decode("code_hash", as: [UInt8].self))
        guard matches else {
            let attempts = try row.decode("attempts", as: Int.self) + 1
            let left = try row.decode("max_attempts", as: Int.self) - attempts
            try db.execute(
                "UPDATE account_codes SET attempts = ?, state = ? WHERE id = ?", attempts, left > 0 ? "live" : "locked",
                id)
            return AccountError.invalid(
                "code",
                left > 0
                    ? "wrong code; \(left) \(left == 1 ? "try" : "tries") left"
                    : "wrong code; the code is now locked, ask for a new one")
        }
        try db.execute("UPDATE account_codes SET state = 'used', used_at = ? WHERE id = ?", now, id)
        return nil
    }
}
