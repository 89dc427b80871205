import EarshotStore

/// Everything an account owns outside the accounts tables, deleted with the account: its records (with their
/// files, transcripts, jobs and search rows), its voiceprints, and the files it uploaded that no record holds.
/// Its devices, homes and the list of its synced device recordings go too (the devices become free to bind).
/// Unfinished uploads are left to the upload sweep (`upload-max-age`).
struct AccountData: Sendable {
    let records: RecordsService
    let voiceprints: VoiceprintService
    let metadata: any MetadataStore
    let blobs: any BlobStore

    /// Deletes the records, voiceprints, evaluations and files of `caller`'s user.
    func deleteAll(of caller: Principal) async throws {
        while true {
            let page = try await records.list(for: caller, cursor: nil, limit: 100, filters: .init())
            if page.records.isEmpty { break }
            for record in page.records { try await records.delete(for: caller, id: record.recordID) }
        }
        for voiceprint in try await voiceprints.list(for: caller, userID: nil).voiceprints {
            _ = try await voiceprints.delete(for: caller, id: voiceprint.voiceprintID)
        }
        guard let userID = caller.userID else { return }
        let partnerID = caller.partnerID
        let orphans = try await metadata.write { db in
            try DeviceRegistry.forget(db, partnerID: partnerID, userID: userID)
            try EvaluationService.deleteAll(db, partnerID: partnerID, userID: userID)
            return try db.query("SELECT id FROM files WHERE partner_id = ? AND user_id = ?", partnerID, userID)
                .compactMap { try UploadService.deleteFile(db, id: try $0.decode("id", as: String.self)) }
        }
        for blob in orphans { try await blobs.delete(blob) }
    }
}
