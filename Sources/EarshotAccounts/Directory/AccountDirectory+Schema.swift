public import EarshotStore

extension AccountDirectory {
    /// The accounts tables: accounts, the tenants that allow direct sign-in, verification codes, their outbox, and
    /// sessions. Listed after the partners and the job queue (it refers to both, and creates the instance's
    /// default tenant as a partner).
    public static let schema = SchemaComponent(
        "accounts",
        [
            Migration(
                version: 1, name: "accounts",
                sql: """
                    -- An account is a user of a tenant: its id (acc_…) is the user id of its records and tokens. One
                    -- address (email or E.164 phone, normalised) per account, unique within the tenant. The password
                    -- is a PHC-format Argon2id hash ($argon2id$v=19$m=…,t=…,p=…$salt$hash).
                    CREATE TABLE accounts (
                        id                  TEXT PRIMARY KEY,
                        partner_id          TEXT NOT NULL REFERENCES partners (id),
                        address_kind        TEXT NOT NULL CHECK (address_kind IN ('email', 'phone')),
                        address             TEXT NOT NULL,
                        country             TEXT,
                        nickname            TEXT,
                        password_hash       TEXT NOT NULL,
                        status              TEXT NOT NULL CHECK (status IN ('pending', 'active', 'disabled')),
                        created_at          INTEGER NOT NULL,
                        verified_at         INTEGER,
                        password_changed_at INTEGER NOT NULL,
                        UNIQUE (partner_id, address)
                    );
                    -- Tenants whose users may sign up and sign in directly (the others keep their own sign-in and
                    -- issue user tokens from their backend).
                    CREATE TABLE account_tenants (
                        partner_id     TEXT PRIMARY KEY REFERENCES partners (id),
                        direct_sign_in INTEGER NOT NULL CHECK (direct_sign_in IN (0, 1)),
                        updated_at     INTEGER NOT NULL
                    );
                    -- The instance's default tenant, for self-hosters without a partner backend. Its secret hash is
                    -- not a hash, so it has no client credentials.
                    INSERT INTO partners (id, name, secret_hash, status, created_at)
                    VALUES ('ptn_00000000000000000000', 'Default tenant (accounts)', '!', 'active', 0);
                    INSERT INTO account_tenants (partner_id, direct_sign_in, updated_at)
                    VALUES ('ptn_00000000000000000000', 1, 0);
                    -- Verification and password-reset codes: 6 digits kept as SHA-256(salt || code), single use
                    -- (used), invalid after max_attempts wrong tries (locked) or a newer code (replaced).
                    CREATE TABLE account_codes (
                        id           TEXT PRIMARY KEY,
                        account_id   TEXT NOT NULL REFERENCES accounts (id),
                        purpose      TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
                        salt         BLOB NOT NULL,
                        code_hash    BLOB NOT NULL,
                        state        TEXT NOT NULL CHECK (state IN ('live', 'used', 'locked', 'replaced')),
                        attempts     INTEGER NOT NULL DEFAULT 0,
                        max_attempts INTEGER NOT NULL,
                        created_at   INTEGER NOT NULL,
                        expires_at   INTEGER NOT NULL,
                        used_at      INTEGER
                    );
                    CREATE INDEX account_codes_latest ON account_codes (account_id, purpose, created_at);
                    -- Messages to send; each is delivered by the `account-message` job with the same id (its state,
                    -- attempts and error are the job's). The body, which holds the code, is erased once the job is
                    -- final.
                    CREATE TABLE account_outbox (
                        id          TEXT PRIMARY KEY,
                        account_id  TEXT NOT NULL REFERENCES accounts (id),
                        channel     TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
                        destination TEXT NOT NULL,
                        subject     TEXT NOT NULL,
                        body        TEXT NOT NULL,
                        created_at  INTEGER NOT NULL
                    );
                    CREATE INDEX account_outbox_account ON account_outbox (account_id);
                    -- Sessions: the token (est_…) is kept only as its SHA-256; cookie sessions also keep the SHA-256 of
                    -- their CSRF token.
                    CREATE TABLE account_sessions (
                        id           TEXT PRIMARY KEY,
                        partner_id   TEXT NOT NULL,
                        account_id   TEXT NOT NULL REFERENCES accounts (id),
                        kind         TEXT NOT NULL CHECK (kind IN ('bearer', 'cookie')),
                        token_hash   TEXT NOT NULL UNIQUE,
                        csrf_hash    TEXT,
                        device       TEXT,
                        user_agent   TEXT,
                        ip           TEXT,
                        created_at   INTEGER NOT NULL,
                        last_used_at INTEGER NOT NULL,
                        expires_at   INTEGER NOT NULL,
                        revoked_at   INTEGER
                    );
                    CREATE INDEX account_sessions_account ON account_sessions (account_id, created_at);
                    """,
                postgresql: """
                    CREATE TABLE accounts (
                        id                  TEXT PRIMARY KEY,
                        partner_id          TEXT NOT NULL REFERENCES partners (id),
                        address_kind        TEXT NOT NULL CHECK (address_kind IN ('email', 'phone')),
                        address             TEXT NOT NULL,
                        country             TEXT,
                        nickname            TEXT,
                        password_hash       TEXT NOT NULL,
                        status              TEXT NOT NULL CHECK (status IN ('pending', 'active', 'disabled')),
                        created_at          BIGINT NOT NULL,
                        verified_at         BIGINT,
                        password_changed_at BIGINT NOT NULL,
                        UNIQUE (partner_id, address)
                    );
                    CREATE TABLE account_tenants (
                        partner_id     TEXT PRIMARY KEY REFERENCES partners (id),
                        direct_sign_in INTEGER NOT NULL CHECK (direct_sign_in IN (0, 1)),
                        updated_at     BIGINT NOT NULL
                    );
                    INSERT INTO partners (id, name, secret_hash, status, created_at)
                    VALUES ('ptn_00000000000000000000', 'Default tenant (accounts)', '!', 'active', 0);
                    INSERT INTO account_tenants (partner_id, direct_sign_in, updated_at)
                    VALUES ('ptn_00000000000000000000', 1, 0);
                    -- seq stands in for SQLite's rowid (the order codes were drawn in).
                    CREATE TABLE account_codes (
                        id           TEXT PRIMARY KEY,
                        seq          BIGINT GENERATED ALWAYS AS IDENTITY,
                        account_id   TEXT NOT NULL REFERENCES accounts (id),
                        purpose      TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
                        salt         BYTEA NOT NULL,
                        code_hash    BYTEA NOT NULL,
                        state        TEXT NOT NULL CHECK (state IN ('live', 'used', 'locked', 'replaced')),
                        attempts     INTEGER NOT NULL DEFAULT 0,
                        max_attempts INTEGER NOT NULL,
                        created_at   BIGINT NOT NULL,
                        expires_at   BIGINT NOT NULL,
                        used_at      BIGINT
                    );
                    CREATE INDEX account_codes_latest ON account_codes (account_id, purpose, created_at);
                    CREATE TABLE account_outbox (
                        id          TEXT PRIMARY KEY,
                        account_id  TEXT NOT NULL REFERENCES accounts (id),
                        channel     TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
                        destination TEXT NOT NULL,
                        subject     TEXT NOT NULL,
                        body        TEXT NOT NULL,
                        created_at  BIGINT NOT NULL
                    );
                    CREATE INDEX account_outbox_account ON account_outbox (account_id);
                    CREATE TABLE account_sessions (
                        id           TEXT PRIMARY KEY,
                        partner_id   TEXT NOT NULL,
                        account_id   TEXT NOT NULL REFERENCES accounts (id),
                        kind         TEXT NOT NULL CHECK (kind IN ('bearer', 'cookie')),
                        token_hash   TEXT NOT NULL UNIQUE,
                        csrf_hash    TEXT,
                        device       TEXT,
                        user_agent   TEXT,
                        ip           TEXT,
                        created_at   BIGINT NOT NULL,
                        last_used_at BIGINT NOT NULL,
                        expires_at   BIGINT NOT NULL,
                        revoked_at   BIGINT
                    );
                    CREATE INDEX account_sessions_account ON account_sessions (account_id, created_at);
                    """),
            Migration(
                version: 2, name: "instance_owner",
                sql: """
                    -- An account's role on the instance: 'owner' administers it (partners, webhooks, health) from the
                    -- console. Granted only from the server's shell (earshot accounts grant-owner), and honoured only
                    -- for accounts of the default tenant (docs/decisions/0011-instance-owner.md).
                    ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'member'
                        CHECK (role IN ('member', 'owner'));
                    """),
        ])
}
