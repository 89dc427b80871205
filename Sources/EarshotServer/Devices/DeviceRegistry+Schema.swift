import EarshotStore

extension DeviceRegistry {
    /// The device registry: each user's homes and registry defaults, the bound devices, and the device recordings
    /// the server holds (each one a record).
    static let schema = SchemaComponent(
        "devices",
        [
            Migration(
                version: 1, name: "devices",
                scripts: [
                    .sqlite: """
                        -- A partner's user as the registry knows it: the current home, and the defaults of the
                        -- automatic tasks of the user's devices (a device's own setting wins). Made on first use.
                        CREATE TABLE device_users (
                            partner_id      TEXT NOT NULL REFERENCES partners (id),
                            user_id         TEXT NOT NULL,
                            current_home    TEXT,
                            auto_transcribe INTEGER NOT NULL DEFAULT 1,
                            auto_summarize  INTEGER NOT NULL DEFAULT 0,
                            created_at      INTEGER NOT NULL,
                            PRIMARY KEY (partner_id, user_id)
                        );
                        -- A place a user's devices are grouped in (seed 000).
                        CREATE TABLE homes (
                            id         TEXT PRIMARY KEY,
                            partner_id TEXT NOT NULL REFERENCES partners (id),
                            user_id    TEXT NOT NULL,
                            name       TEXT NOT NULL,
                            created_at INTEGER NOT NULL
                        );
                        CREATE INDEX homes_user ON homes (partner_id, user_id, created_at);
                        -- One row per device serial: a device belongs to one user of one tenant. state is 'binding'
                        -- until the app returns the secret the device answered (32 bytes, kept to compute proofs);
                        -- report is the last DeviceReport JSON, last_seen_at when it came (Unix ms). NULL
                        -- auto_transcribe / auto_summarize follow the user's defaults.
                        CREATE TABLE devices (
                            serial          TEXT PRIMARY KEY,
                            partner_id      TEXT NOT NULL REFERENCES partners (id),
                            user_id         TEXT NOT NULL,
                            home_id         TEXT NOT NULL,
                            name            TEXT NOT NULL,
                            model           TEXT NOT NULL,
                            firmware        TEXT NOT NULL,
                            state           TEXT NOT NULL CHECK (state IN ('binding', 'bound')),
                            secret          BLOB,
                            auto_transcribe INTEGER,
                            auto_summarize  INTEGER,
                            report          TEXT,
                            last_seen_at    INTEGER,
                            bound_at        INTEGER NOT NULL,
                            updated_at      INTEGER NOT NULL
                        );
                        CREATE INDEX devices_user ON devices (partner_id, user_id, home_id);
                        -- A device recording the server stored for a user: once per (device, user, recording id),
                        -- with the digest that was checked. It outlives the device's binding (a rebound device does
                        -- not sync it twice); the record stays when the device is removed. summarize asks for a
                        -- summary once the record's first transcript is in.
                        CREATE TABLE device_recordings (
                            serial       TEXT NOT NULL,
                            partner_id   TEXT NOT NULL,
                            user_id      TEXT NOT NULL,
                            recording_id INTEGER NOT NULL,
                            sha256       TEXT NOT NULL,
                            record_id    TEXT NOT NULL,
                            summarize    INTEGER NOT NULL DEFAULT 0,
                            stored_at    INTEGER NOT NULL,
                            PRIMARY KEY (serial, partner_id, user_id, recording_id)
                        );
                        CREATE INDEX device_recordings_record ON device_recordings (record_id);
                        """,
                    .postgresql: """
                        -- See the SQLite script.
                        CREATE TABLE device_users (
                            partner_id      TEXT NOT NULL REFERENCES partners (id),
                            user_id         TEXT NOT NULL,
                            current_home    TEXT,
                            auto_transcribe INTEGER NOT NULL DEFAULT 1,
                            auto_summarize  INTEGER NOT NULL DEFAULT 0,
                            created_at      BIGINT NOT NULL,
                            PRIMARY KEY (partner_id, user_id)
                        );
                        CREATE TABLE homes (
                            id         TEXT PRIMARY KEY,
                            partner_id TEXT NOT NULL REFERENCES partners (id),
                            user_id    TEXT NOT NULL,
                            name       TEXT NOT NULL,
                            created_at BIGINT NOT NULL
                        );
                        CREATE INDEX homes_user ON homes (partner_id, user_id, created_at);
                        CREATE TABLE devices (
                            serial          TEXT PRIMARY KEY,
                            partner_id      TEXT NOT NULL REFERENCES partners (id),
                            user_id         TEXT NOT NULL,
                            home_id         TEXT NOT NULL,
                            name            TEXT NOT NULL,
                            model           TEXT NOT NULL,
                            firmware        TEXT NOT NULL,
                            state           TEXT NOT NULL CHECK (state IN ('binding', 'bound')),
                            secret          BYTEA,
                            auto_transcribe INTEGER,
                            auto_summarize  INTEGER,
                            report          TEXT,
                            last_seen_at    BIGINT,
                            bound_at        BIGINT NOT NULL,
                            updated_at      BIGINT NOT NULL
                        );
                        CREATE INDEX devices_user ON devices (partner_id, user_id, home_id);
                        CREATE TABLE device_recordings (
                            serial       TEXT NOT NULL,
                            partner_id   TEXT NOT NULL,
                            user_id      TEXT NOT NULL,
                            recording_id BIGINT NOT NULL,
                            sha256       TEXT NOT NULL,
                            record_id    TEXT NOT NULL,
                            summarize    INTEGER NOT NULL DEFAULT 0,
                            stored_at    BIGINT NOT NULL,
                            PRIMARY KEY (serial, partner_id, user_id, recording_id)
                        );
                        CREATE INDEX device_recordings_record ON device_recordings (record_id);
                        """,
                ]),
            Migration(
                version: 2, name: "device_transcription_settings",
                sql: """
                    -- The language and speech tier of the automatic transcriptions: the user's defaults, and a
                    -- device's own setting that wins over them. NULL follows (a device: the user's; a user: 'auto'
                    -- detection and asr-fast). language is an ISO code or 'auto'.
                    ALTER TABLE device_users ADD COLUMN language TEXT;
                    ALTER TABLE device_users ADD COLUMN transcription_model TEXT;
                    ALTER TABLE devices ADD COLUMN language TEXT;
                    ALTER TABLE devices ADD COLUMN transcription_model TEXT;
                    """),
        ])
}
