/// Everything an account owns outside the accounts tables, deleted with the account: its records (with their
/// files, transcripts, jobs and search rows) and its voiceprints.
struct AccountData: Sendable {
    let records: RecordsService
    let voiceprints: VoiceprintService

    /// Deletes the records and voiceprints of `caller`'s user.
    func deleteAll(of caller: Principal) async throws {
        while true {
            let page = try await records.list(for: caller, cursor: nil, limit: 100, filters: .init())
            if page.records.isEmpty { break }
            for record in page.records { try await records.delete(for: caller, id: record.recordID) }
        }
        for voiceprint in try await voiceprints.list(for: caller, userID: nil).voiceprints {
            _ = try await voiceprints.delete(for: caller, id: voiceprint.voiceprintID)
        }
    }
}
