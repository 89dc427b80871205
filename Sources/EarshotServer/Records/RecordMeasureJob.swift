import EarshotAudio
import EarshotCore
import EarshotStore
import Foundation

/// The `record-measure` job kind: the duration and waveform of a record stored without decoding its audio. A device
/// recording that is not transcribed is registered at once (decoding an hour of Opus inside the registration held
/// the app's sync, and the device's free space, for seconds per recording) and measured here; a transcribed record
/// is measured by its transcription instead. A record deleted or measured meanwhile ends the job with nothing to do;
/// audio Earshot cannot decode fails it, and the record keeps the duration it was stored with.
struct RecordMeasureJob: JobKind {
    static let name = "record-measure"
    var name: String { Self.name }

    let policy: JobPolicy
    let metadata: any MetadataStore
    let blobs: any BlobStore

    struct Payload: Codable {
        let recordID: String

        enum CodingKeys: String, CodingKey {
            case recordID = "record_id"
        }
    }

    /// Queues the measurement of `recordID` of `tenant` in the caller's transaction.
    static func enqueue(_ db: any SQLDatabase, recordID: String, tenant: String, maxAttempts: Int) throws {
        _ = try JobQueue.insert(
            db,
            NewJob(
                id: Identifier.make(prefix: "job"), tenant: tenant, kind: name,
                payload: try RecordsService.json(Payload(recordID: recordID)), maxAttempts: maxAttempts),
            at: JobQueue.wallClock())
    }

    func run(_ job: Job, context: JobContext) async throws -> String {
        let payload = try JSONDecoder().decode(Payload.self, from: Data(job.payload.utf8))
        guard let blobKey = try await unmeasuredBlob(of: payload.recordID) else { return "{}" }
        let measured: (envelope: [UInt8], durationMs: Int)
        do {
            measured = try await Library.decodeMeasurement(of: try BlobKey(blobKey), in: blobs)
        } catch {
            // Its record (and audio) deleted while decoding: nothing left to measure.
            guard try await unmeasuredBlob(of: payload.recordID) != nil else { return "{}" }
            if let error = error as? AudioError {
                throw TaskFailure.failure(.invalidInput, "record \(payload.recordID): \(error)")
            }
            throw error
        }
        try await metadata.write { db in
            try Library.measure(
                db, recordID: payload.recordID, durationMs: measured.durationMs, envelope: measured.envelope,
                at: JobQueue.wallClock())
        }
        return "{}"
    }

    /// The blob of `recordID` while it exists and has no waveform yet.
    private func unmeasuredBlob(of recordID: String) async throws -> String? {
        try await metadata.read { db in
            try db.queryFirst(
                "SELECT files.blob_key FROM records JOIN files ON files.id = records.file_id "
                    + "WHERE records.id = ? AND records.envelope IS NULL", recordID
            ).map { try $0.decode("blob_key", as: String.self) }
        }
    }
}
