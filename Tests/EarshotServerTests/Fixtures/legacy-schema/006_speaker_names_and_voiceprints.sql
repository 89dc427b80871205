-- Display names a partner gave to the speakers of a finished transcript: the label diarization
-- wrote into the result (`Speaker 1`, or an enrolled name) → the name shown in GET and exports.
CREATE TABLE transcript_speaker_names (
    job_id     TEXT NOT NULL REFERENCES jobs (id),
    label      TEXT NOT NULL,
    name       TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, label)
);
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