import EarshotCore
import EarshotSpeech
import EarshotStore
import Foundation

extension TranscriptionService {
    /// Transcription tasks keep their data in the queue (`jobs`) and the library (`records`, `record_tasks`);
    /// this component held their speaker renames until tasks joined the library.
    static let schema = SchemaComponent(
        "transcriptions",
        [
            Migration(
                version: 1, name: "transcript_speaker_names",
                sql: """
                    -- Display names a partner gave to the speakers of a finished transcript: the label diarization
                    -- wrote into the result (`Speaker 1`, or an enrolled name) → the name shown in GET and exports.
                    CREATE TABLE transcript_speaker_names (
                        job_id     TEXT NOT NULL REFERENCES jobs (id),
                        label      TEXT NOT NULL,
                        name       TEXT NOT NULL,
                        updated_at INTEGER NOT NULL,
                        PRIMARY KEY (job_id, label)
                    );
                    """,
                postgresql: """
                    CREATE TABLE transcript_speaker_names (
                        job_id     TEXT NOT NULL REFERENCES jobs (id),
                        label      TEXT NOT NULL,
                        name       TEXT NOT NULL,
                        updated_at BIGINT NOT NULL,
                        PRIMARY KEY (job_id, label)
                    );
                    """,
                legacy: .init(
                    version: 6, name: "speaker_names_and_voiceprints",
                    checksum: "828478e37a508d777699c69822b9aed8a2f8942432660ad63cbf695610008c24")),
            Migration(
                version: 2, name: "tasks_join_the_library", revision: "1",
                body: { db in try joinLibrary(db) }),
        ])

    /// Makes every transcription task made before the library held them a job of its file's record: a record is
    /// created for a file that has none (owned by the task's user, else the uploader; its transcript is the newest
    /// successful task's), each task is linked to it, the tasks' speaker renames move to the record, and
    /// `transcript_speaker_names` goes. Tasks whose file is gone stay as they are (readable through the task API).
    static func joinLibrary(_ db: any SQLDatabase) throws {
        let jobs = try db.query(
            "SELECT \(Job.columns) FROM jobs WHERE kind = 'transcription' "
                + "AND id NOT IN (SELECT job_id FROM record_tasks) ORDER BY created_at, id"
        ).map { try $0.decode(Job.self) }
        var touched: [String] = []
        for job in jobs {
            guard let payload = try? Self.payload(job), let file = try UploadService.file(db, id: payload.fileID),
                file.partnerID == job.tenant
            else { continue }
            let record =
                try Library.record(ofFile: file.id, db)
                ?? Library.insert(
                    db,
                    .init(
                        partnerID: job.tenant, userID: payload.userID ?? file.userID, file: file,
                        durationMs: (try? Self.transcript(job))??.durationMs ?? 0),
                    at: job.createdAt)
            try RecordTasks.link(
                db, jobID: job.id, recordID: record.id, plan: RecordTaskPlan(transcription: payload),
                at: job.createdAt)
            var names = record.speakerNames
            for row in try db.query("SELECT label, name FROM transcript_speaker_names WHERE job_id = ?", job.id) {
                names[try row.decode("label", as: String.self)] = try row.decode("name", as: String.self)
            }
            if names != record.speakerNames { try Library.setSpeakerNames(db, recordID: record.id, names) }
            if !touched.contains(record.id) { touched.append(record.id) }
        }
        // Each record's transcript: its newest successful transcription, as the queue's hook would have set it.
        for recordID in touched {
            let newest = try db.queryFirst(
                "SELECT \(Job.columns(of: "j")) "
                    + "FROM record_tasks t JOIN jobs j ON j.id = t.job_id WHERE t.record_id = ? AND t.task_type = 0 "
                    + "AND j.state = 'succeeded' ORDER BY t.created_at DESC, t.job_id DESC LIMIT 1", recordID
            ).map { try $0.decode(Job.self) }
            if let newest { try RecordTasks.applyFinal(db, newest) }
        }
        try db.execute("DROP TABLE transcript_speaker_names")
    }
}
