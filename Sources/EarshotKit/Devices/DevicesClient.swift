public import EarshotAPI
import Foundation

/// The platform's device registry (`/open/partner/devices…`): bind, prove, report, register synced recordings, plan
/// Wi-Fi uploads, list, rename and remove devices, and the user's device defaults. ``DeviceManager`` drives it; use it directly for a device list
/// screen. Works with a user token (the user's devices) or a partner token (pass `userID` where asked).
public struct DevicesClient: Sendable {
    public let client: EarshotClient

    public init(client: EarshotClient) {
        self.client = client
    }

    /// The user's devices, optionally in one home.
    public func list(homeID: String? = nil) async throws -> DeviceList {
        var path = APIPath.devices
        if let homeID {
            path += "?home_id=" + (homeID.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? homeID)
        }
        return try await client.send(.get(path))
    }

    /// One device with its last report.
    ///
    /// - Throws: ``EarshotError`` `DEVICE_NOT_FOUND` (as ``EarshotError/Code/notFound`` or the server's code).
    public func get(_ serial: String) async throws -> Device {
        try await client.send(.get(client.path(APIPath.device, ["serial": serial])))
    }

    /// Starts binding: the platform answers the device record whose `owner` the app hands to the device.
    ///
    /// - Throws: ``EarshotError`` with the server's `BIND_OCCUPIED` when another user holds the device.
    public func bind(_ request: DeviceBindRequest) async throws -> Device {
        try await client.send(try .post(APIPath.devices, json: request, idempotent: true))
    }

    /// Finishes binding with the secret the device answered.
    public func storeSecret(_ secret: [UInt8], serial: String) async throws -> Device {
        let body = try JSONEncoder().encode(DeviceSecretRequest(secret: Data(secret).base64EncodedString()))
        return try await client.send(
            APIRequest(
                method: "PUT", path: client.path(APIPath.deviceSecret, ["serial": serial]), body: body,
                contentType: "application/json"))
    }

    /// The owner string and HMAC proof for a session's challenge (the secret never reaches the app).
    public func proof(for challenge: [UInt8], serial: String) async throws -> (owner: String, proof: [UInt8]) {
        let answer: DeviceProof = try await client.send(
            try .post(
                client.path(APIPath.deviceProof, ["serial": serial]),
                json: DeviceProofRequest(challenge: Data(challenge).base64EncodedString()), idempotent: true))
        guard let proof = Data(base64Encoded: answer.proof), proof.count == 32 else {
            throw EarshotError(.invalidResponse, "the server's device proof is not 32 bytes of base64")
        }
        return (answer.owner, [UInt8](proof))
    }

    /// Relays what the device reported over its link; marks it online.
    @discardableResult
    public func report(_ report: DeviceStatusReport, serial: String) async throws -> Device {
        try await client.send(
            try .post(client.path(APIPath.deviceStatus, ["serial": serial]), json: report, idempotent: true))
    }

    /// Registers an uploaded recording: the server checks its SHA-256 and makes it a record, once.
    public func register(_ recording: DeviceRecordingRequest, serial: String) async throws -> DeviceRecording {
        try await client.send(
            try .post(client.path(APIPath.deviceRecordings, ["serial": serial]), json: recording, idempotent: true))
    }

    /// The recordings the server holds for a device, device ids above `after`, every page.
    public func recordings(serial: String, after: Int64 = 0) async throws -> [DeviceRecording] {
        var all: [DeviceRecording] = []
        var cursor = after
        while true {
            let page: DeviceRecordingList = try await client.send(
                .get(client.path(APIPath.deviceRecordings, ["serial": serial]) + "?after=\(cursor)"))
            all += page.recordings
            guard page.more, let last = page.recordings.last, last.recordingID > cursor else { return all }
            cursor = last.recordingID
        }
    }

    /// A presigned multipart plan for the device to upload one recording over Wi-Fi.
    ///
    /// - Throws: ``EarshotError`` `DEVICE_OFFLINE` when the device has not reported lately.
    public func uploadPlan(_ request: DeviceUploadPlanRequest, serial: String) async throws -> UploadPlan {
        try await client.send(try .post(client.path(APIPath.deviceUploadPlan, ["serial": serial]), json: request))
    }

    /// Presigned plans for the device to upload several recordings over Wi-Fi (at most
    /// `DeviceUploadPlansRequest.limit`), in the order asked; all or none.
    ///
    /// - Throws: ``EarshotError`` `DEVICE_OFFLINE` when the device has not reported lately, `CONFLICT` when the
    ///   server already holds one of them.
    public func uploadPlans(_ request: DeviceUploadPlansRequest, serial: String) async throws -> [UploadPlan] {
        let answer: DeviceUploadPlans = try await client.send(
            try .post(client.path(APIPath.deviceUploadPlans, ["serial": serial]), json: request))
        guard answer.plans.map(\.recordingID) == request.recordings.map(\.recordingID) else {
            throw EarshotError(.invalidResponse, "the server answered plans for other recordings than asked")
        }
        return answer.plans.map(\.plan)
    }

    /// Renames a device, moves it to another home, changes its own automatic-task settings (transcribe, summarise,
    /// language, speech tier) or makes it follow the user's defaults again (`followDefaults`).
    public func update(_ serial: String, _ request: DeviceUpdateRequest) async throws -> Device {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try await client.send(
            APIRequest(
                method: "PATCH", path: client.path(APIPath.device, ["serial": serial]), body: try encoder.encode(request),
                contentType: "application/json", idempotent: true))
    }

    /// The user's device defaults: what devices without their own setting do with a synced recording (transcribe,
    /// summarise, language, speech tier). A partner token names the user with `userID`.
    public func defaults(userID: String? = nil) async throws -> DeviceDefaults {
        var path = APIPath.deviceDefaults
        if let userID {
            path += "?user_id=" + (userID.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? userID)
        }
        return try await client.send(.get(path))
    }

    /// Changes the user's device defaults (what the request sends); devices with their own setting keep it.
    ///
    /// - Throws: ``EarshotError`` `INVALID_ARGUMENT` for an empty request, an unknown language or speech tier.
    public func updateDefaults(_ request: DeviceDefaultsUpdateRequest) async throws -> DeviceDefaults {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try await client.send(
            APIRequest(
                method: "PATCH", path: APIPath.deviceDefaults, body: try encoder.encode(request),
                contentType: "application/json", idempotent: true))
    }

    /// Removes the device from the registry (after unbinding it); `clear` records that its recordings were erased.
    public func remove(_ serial: String, clear: Bool) async throws {
        let _: Empty = try await client.send(
            APIRequest(
                method: "DELETE", path: client.path(APIPath.device, ["serial": serial]) + "?clear=\(clear)"))
    }
}
