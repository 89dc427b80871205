import EarshotAPI
import EarshotAudio
import EarshotCore
import EarshotDiarization
import EarshotSpeech
import EarshotStore
import Foundation

/// Voiceprints: named speakers enrolled per (partner, user) from an uploaded recording, matched against the speakers
/// of that user's later transcriptions (``TranscriptionJob``).
///
/// A partner token manages any of its users' voiceprints (it names the user); a user token only its own, from its
/// own files. Another tenant's voiceprint or file answers 404 exactly like a missing one.
struct VoiceprintService: Sendable {
    /// Audio beyond this (from the start of the file) is not used for enrolment: it bounds the work of one request.
    static let maximumEnrolmentAudio = 120 * 16_000

    let metadata: any MetadataStore
    let blobs: any BlobStore
    let engines: FileTranscriber
    let speakers: SpeakerModels
    let transcriptions: TranscriptionService

    // MARK: Enrol

    /// Makes a voiceprint from the dominant voice of `request.fileID` and stores it under (tenant, user, name),
    /// replacing an earlier one of the same name.
    func enrol(for caller: Principal, _ request: VoiceprintEnrolmentRequest) async throws -> SpeakerVoiceprint {
        let userID = try owner(caller, requested: request.userID)
        let name = try Voiceprint.validName(request.name)
        let fileID = try await transcriptions.fileID(from: request.fileID)
        let file = try await metadata.read { db in try UploadService.file(db, id: fileID) }
        guard let file, file.partnerID == caller.partnerID, caller.userID == nil || file.userID == caller.userID else {
            throw PlatformError.notFound(
                "no file \(fileID); upload the sample first (complete-upload returns its FileId)")
        }
        var samples: [Float]
        do {
            samples = try await blobs.withLocalFile(for: try BlobKey(file.blobKey)) { path in
                try await engines.prepareAudio(path, type: file.filetype, displayName: file.displayName).samples
            }
        } catch let error as AudioError {
            throw PlatformError.invalidArgument(
                "file \(fileID) could not be decoded as audio (\(error.code)): upload WAV, MP3, M4A/AAC, FLAC, "
                    + "Ogg/Opus or WebM")
        }
        if samples.count > Self.maximumEnrolmentAudio { samples = Array(samples[..<Self.maximumEnrolmentAudio]) }
        let voiceprint = try await speakers.attribution().voiceprint(named: name, samples: samples)
        let record = SpeakerVoiceprint(
            voiceprintID: Identifier.make(prefix: "vp"), userID: userID, name: voiceprint.name,
            speechMs: Int((voiceprint.speechSeconds * 1000).rounded()), fileID: fileID,
            createdAtMs: milliseconds(Date()))
        let vector = Self.encode(voiceprint.vector)
        let partnerID = caller.partnerID
        try await metadata.write { db in
            _ = try db.execute(
                "DELETE FROM voiceprints WHERE partner_id = ? AND user_id = ? AND name = ?", partnerID, userID,
                record.name)
            _ = try db.execute(
                """
                INSERT INTO voiceprints (id, partner_id, user_id, name, model, vector, speech_ms, file_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, record.voiceprintID, partnerID, userID, record.name, voiceprint.model, vector, record.speechMs,
                fileID, record.createdAtMs)
        }
        return record
    }

    /// Deletes the voiceprints enrolled from `fileID`, inside the caller's transaction: a voiceprint is made from
    /// that audio, so deleting the recording (``Library/delete(_:_:queue:)``) deletes it too.
    static func forget(_ db: any SQLDatabase, fileID: String) throws {
        try db.execute("DELETE FROM voiceprints WHERE file_id = ?", fileID)
    }

    // MARK: List and delete

    /// The caller's user's voiceprints (a partner token: `userID`'s, or every user's without it), oldest first.
    func list(for caller: Principal, userID requested: String?) async throws -> SpeakerVoiceprintList {
        let partnerID = caller.partnerID
        let userID = caller.userID ?? requested
        if let requested, let own = caller.userID, requested != own {
            throw PlatformError.forbidden("a user token can only list its own user's voiceprints")
        }
        let rows = try await metadata.read { db in
            if let userID {
                return try db.query(
                    "SELECT * FROM voiceprints WHERE partner_id = ? AND user_id = ? ORDER BY created_at, id",
                    partnerID, userID)
            }
            return try db.query("SELECT * FROM voiceprints WHERE partner_id = ? ORDER BY created_at, id", partnerID)
        }
        return SpeakerVoiceprintList(voiceprints: try rows.map(Self.wire))
    }

    /// Deletes one voiceprint and returns what it was.
    func delete(for caller: Principal, id: String) async throws -> SpeakerVoiceprint {
        let notFound = PlatformError.notFound("no voiceprint \(id)")
        guard Identifier.isValid(id, prefix: "vp") else { throw notFound }
        let partnerID = caller.partnerID
        let row = try await metadata.write { db -> SQLRow? in
            guard
                let row = try db.queryFirst("SELECT * FROM voiceprints WHERE id = ? AND partner_id = ?", id, partnerID)
            else { return nil }
            if let userID = caller.userID, try row.decode("user_id", as: String.self) != userID { return nil }
            _ = try db.execute("DELETE FROM voiceprints WHERE id = ?", id)
            return row
        }
        guard let row else { throw notFound }
        return try Self.wire(row)
    }

    // MARK: For the workers

    /// The voiceprints of (partner, user) made by the current speaker model.
    static func voiceprints(in metadata: any MetadataStore, partnerID: String, userID: String) async throws
        -> [Voiceprint]
    {
        let rows = try await metadata.read { db in
            try db.query(
                "SELECT name, vector, speech_ms FROM voiceprints WHERE partner_id = ? AND user_id = ? AND model = ?",
                partnerID, userID, SpeakerAttribution.embedderName)
        }
        return try rows.map { row in
            Voiceprint(
                name: try row.decode("name", as: String.self),
                vector: Self.decode(try row.decode("vector", as: [UInt8].self)),
                speechSeconds: Double(try row.decode("speech_ms", as: Int.self)) / 1000)
        }
    }

    // MARK: Helpers

    /// The user a request acts for: a user token's own (a different `user_id` is 403), or the `user_id` a partner
    /// token names (required).
    func owner(_ caller: Principal, requested: String?) throws -> String {
        if let own = caller.userID {
            if let requested, requested != own {
                throw PlatformError.forbidden("a user token can only manage its own user's voiceprints")
            }
            return own
        }
        guard let requested, !requested.isEmpty, requested.count <= 128 else {
            throw PlatformError.invalidArgument(
                "user_id (1-128 characters) is required with a partner token: a voiceprint belongs to one user")
        }
        return requested
    }

    static func wire(_ row: SQLRow) throws -> SpeakerVoiceprint {
        SpeakerVoiceprint(
            voiceprintID: try row.decode("id", as: String.self), userID: try row.decode("user_id", as: String.self),
            name: try row.decode("name", as: String.self), speechMs: try row.decode("speech_ms", as: Int.self),
            fileID: try row.decode("file_id", as: String.self),
            createdAtMs: try row.decode("created_at", as: Int64.self))
    }

    /// Float32 little-endian bytes.
    static func encode(_ vector: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> [Float] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { offset in
            Float(
                bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                    | UInt32(bytes[offset + 3]) << 24)
        }
    }
}
