public import EarshotAPI
import Foundation

/// Voiceprints (enrolled speakers) and speaker renames.
///
/// With a partner token every call names the user (`userID`); with a user token it acts for that user only.
///
/// ```swift
/// let voiceprints = VoiceprintClient(client: client)
/// let upload = try await FileUploader(client: client).upload(fileAt: sample)
/// try await voiceprints.enrol(name: "Me", fileID: upload.fileID, userID: "user-42")
/// ```
public struct VoiceprintClient: Sendable {
    public let client: EarshotClient

    public init(client: EarshotClient) {
        self.client = client
    }

    /// Enrols `name` from an uploaded file (10–30 s of that person speaking; at least 3 s). Enrolling a name again
    /// replaces its voiceprint.
    public func enrol(name: String, fileID: String, userID: String? = nil) async throws -> SpeakerVoiceprint {
        try await client.send(
            .post(APIPath.voiceprints, json: VoiceprintEnrolmentRequest(name: name, fileID: fileID, userID: userID)))
    }

    /// The user's voiceprints (a partner token without `userID`: every user's), oldest first.
    public func list(userID: String? = nil) async throws -> [SpeakerVoiceprint] {
        var path = APIPath.voiceprints
        if let userID, let encoded = userID.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) {
            path += "?user_id=" + encoded.replacingOccurrences(of: "&", with: "%26")
        }
        let list: SpeakerVoiceprintList = try await client.send(.get(path))
        return list.voiceprints
    }

    /// Deletes a voiceprint and returns what it was.
    @discardableResult
    public func delete(_ voiceprintID: String) async throws -> SpeakerVoiceprint {
        try await client.send(
            .init(method: "DELETE", path: client.path(APIPath.voiceprint, ["voiceprint_id": voiceprintID])))
    }

    /// Renames speakers of a finished transcript (`names`: label or current name → new name); returns the task as
    /// it now reads.
    public func renameSpeakers(taskID: String, names: [String: String]) async throws -> TranscriptionTask {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try await client.send(
            .init(
                method: "PUT", path: client.path(APIPath.transcriptionSpeakers, ["task_id": taskID]),
                body: try encoder.encode(SpeakerRenameRequest(names: names)), contentType: "application/json"))
    }
}
