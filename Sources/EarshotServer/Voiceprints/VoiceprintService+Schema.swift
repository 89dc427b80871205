import EarshotStore

extension VoiceprintService {
    /// Enrolled speakers.
    static let schema = SchemaComponent(
        "voiceprints",
        [
            Migration(
                version: 1, name: "voiceprints",
                sql: """
                    -- Enrolled speakers of a partner's user: a speaker vector (float32 little-endian) made by `model`
                    -- from the dominant voice of an uploaded file. Later recordings of that user name a speaker whose
                    -- voice matches one.
                    CREATE TABLE voiceprints (
                        id         TEXT PRIMARY KEY,
                        partner_id TEXT NOT NULL REFERENCES partners (id),
                        user_id    TEXT NOT NULL,
                        name       TEXT NOT NULL,
                        model      TEXT NOT NULL,
                        vector     BLOB NOT NULL,
                        speech_ms  INTEGER NOT NULL,
                        file_id    TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        UNIQUE (partner_id, user_id, name)
                    );
                    """,
                postgresql: """
                    CREATE TABLE voiceprints (
                        id         TEXT PRIMARY KEY,
                        partner_id TEXT NOT NULL REFERENCES partners (id),
                        user_id    TEXT NOT NULL,
                        name       TEXT NOT NULL,
                        model      TEXT NOT NULL,
                        vector     BYTEA NOT NULL,
                        speech_ms  BIGINT NOT NULL,
                        file_id    TEXT NOT NULL,
                        created_at BIGINT NOT NULL,
                        UNIQUE (partner_id, user_id, name)
                    );
                    """,
                legacy: .init(
                    version: 6, name: "speaker_names_and_voiceprints",
                    checksum: "828478e37a508d777699c69822b9aed8a2f8942432660ad63cbf695610008c24"))
        ])
}
