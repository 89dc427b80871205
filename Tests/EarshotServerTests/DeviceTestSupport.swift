import EarshotAPI
import EarshotCrypto
import Foundation
import Testing

@testable import EarshotServer

extension TestPlatform {
    func devicePath(_ template: String, _ serial: String) -> String {
        APIPath.filled(template, ["serial": serial])
    }

    /// `POST /open/partner/devices` for `serial` (fields added to the body).
    func startBind(
        _ serial: String, token: String, _ fields: [String: Any] = [:]
    ) async throws -> HTTPResult {
        var body: [String: Any] = ["serial": serial, "model": "ES1", "firmware": "1.0.0"]
        body.merge(fields) { $1 }
        return try await send("POST", APIPath.devices, token: token, json: body)
    }

    /// Binds `serial` to the token's user completely (start + secret); returns the device and its secret.
    func bindDevice(
        _ serial: String, token: String, _ fields: [String: Any] = [:], secret: [UInt8] = Array(repeating: 7, count: 32)
    ) async throws -> (Device, [UInt8]) {
        let started = try await startBind(serial, token: token, fields)
        try #require(started.status == 201 || started.status == 200, "\(started.text)")
        let done = try await send(
            "PUT", devicePath(APIPath.deviceSecret, serial), token: token,
            json: ["secret": Data(secret).base64EncodedString()])
        try #require(done.status == 200, "\(done.text)")
        return (try done.decode(Device.self), secret)
    }

    /// Uploads `content` as `filetype` with `token` and returns its FileId.
    func uploadFile(_ content: Data, filetype: String, token: String) async throws -> String {
        let plan = try await plan(content.count, filetype: filetype, token: token)
        var etags: [Int: String] = [:]
        for part in plan.parts { etags[part.partNumber] = try await putPart(part.partNumber, of: content, plan: plan) }
        let done = try await complete(plan, etags: etags, filetype: filetype, token: token)
        try #require(done.status == 200, "\(done.text)")
        return try done.decode(CompleteUploadResponse.self).fileID
    }

    /// `POST …/devices/{serial}/recordings` for `content` uploaded as `fileID`.
    func postRecording(
        _ serial: String, id: Int64, fileID: String, sha256: String, codec: String = "wav", token: String,
        startedAt: Int64 = 1_764_576_000_000, durationMs: Int = 11_000
    ) async throws -> HTTPResult {
        try await send(
            "POST", devicePath(APIPath.deviceRecordings, serial), token: token,
            json: [
                "recording_id": id, "started_at_ms": startedAt, "duration_ms": durationMs, "size": 1, "codec": codec,
                "sha256": sha256, "file_id": fileID,
            ])
    }
}

/// SHA-256 of `data` as lowercase hex.
func sha256Hex(_ data: Data) -> String {
    DigestAlgorithm.sha256.hash(Array(data)).hex
}
