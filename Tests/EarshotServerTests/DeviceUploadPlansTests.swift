import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// `POST /open/partner/devices/{serial}/upload-plans`: the Wi-Fi plans of several recordings in one call, all or
/// none — refused without a token with `devices:bind`, for another tenant's device, for an offline device, when the
/// server already holds one of the recordings, or for an empty, oversize or repeating batch.
@Suite struct DeviceUploadPlansTests {
    static var report: [String: Any] {
        [
            "battery": 81, "charging": false, "storage_used": 1_000_000, "storage_total": 64_000_000,
            "recording_count": 3, "recording": false,
        ]
    }

    static func batch(_ ids: [Int64], size: Int = 70_000) -> [String: Any] {
        ["recordings": ids.map { ["recording_id": $0, "size": size, "codec": "opus"] as [String: Any] }]
    }

    @Test func aBatchPlansEveryRecordingInOrderAndRefusesWhatIsNotAllowed() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-BATCH", token: ada)
            let path = platform.devicePath(APIPath.deviceUploadPlans, "ES1-BATCH")

            // Offline until the device reports.
            let offline = try await platform.send("POST", path, token: ada, json: Self.batch([1, 2]))
            #expect(offline.status == 409 && offline.errorCode == "DEVICE_OFFLINE", "\(offline.text)")
            let status = try await platform.send(
                "POST", platform.devicePath(APIPath.deviceStatus, "ES1-BATCH"), token: ada,
                json: ["report": Self.report])
            try #require(status.status == 200, "\(status.text)")

            // One plan per recording, in the order asked, each an upload of the recording's size.
            let answer = try await platform.send("POST", path, token: ada, json: Self.batch([3, 1, 2]))
            #expect(answer.status == 200, "\(answer.text)")
            let plans = try answer.decode(DeviceUploadPlans.self).plans
            #expect(plans.map(\.recordingID) == [3, 1, 2])
            #expect(plans.allSatisfy { $0.plan.parts.count == 2 && $0.plan.chunkSize == 64 << 10 })
            #expect(Set(plans.map(\.plan.uploadID)).count == 3)

            // Bad batches: nothing planned, the reason named.
            for (body, reason) in [
                (Self.batch([]), "1 to 16"),
                (Self.batch(Array(1...17)), "1 to 16"),
                (Self.batch([4, 4]), "named twice"),
                (Self.batch([4, 5], size: 0), "size"),
                (["recordings": [["recording_id": 4, "size": 10, "codec": "mp3"]]] as [String: Any], "codec"),
            ] {
                let refused = try await platform.send("POST", path, token: ada, json: body)
                #expect(
                    refused.status == 400 && refused.errorCode == "INVALID_ARGUMENT"
                        && refused.errorMessage.contains(reason), "\(refused.text)")
            }

            // A recording the server already holds: the whole batch is a conflict naming it.
            let audio = try TestAudio.jfk()
            let stored = try await platform.postRecording(
                "ES1-BATCH", id: 7, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: sha256Hex(audio), token: ada)
            try #require(stored.status == 201, "\(stored.text)")
            let held = try await platform.send("POST", path, token: ada, json: Self.batch([6, 7, 8]))
            #expect(held.status == 409 && held.errorCode == "CONFLICT", "\(held.text)")
            #expect(held.errorMessage.contains("recording 7") && held.errorMessage.contains(sha256Hex(audio)))

            // The partner's own token reaches its users' devices, as on every device route.
            let asPartner = try await platform.send("POST", path, token: partner, json: Self.batch([9]))
            #expect(asPartner.status == 200, "\(asPartner.text)")
        }
    }

    @Test func noTokenAScopeWithoutDevicesBindAndAnotherTenantsDeviceAreRefused() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-MINE2", token: ada)
            let path = platform.devicePath(APIPath.deviceUploadPlans, "ES1-MINE2")
            let anonymous = try await platform.send("POST", path, json: Self.batch([1]))
            #expect(anonymous.status == 401, "\(anonymous.text)")

            let key = try await platform.send(
                "POST", APIPath.apiKeys, token: partner,
                json: ["name": "reader", "scopes": ["records:read"], "user_id": "ada"])
            try #require(key.status == 201, "\(key.text)")
            let reader = try await platform.send(
                "POST", path, token: try key.decode(CreatedAPIKey.self).apiKey, json: Self.batch([1]))
            #expect(reader.status == 403 && reader.errorMessage.contains("devices:bind"), "\(reader.text)")

            // Another tenant's user, and another user of the same tenant: no such device for them.
            let (_, _, eve) = try await platform.newUser("eve", partner: "Other")
            let bob = try await platform.userToken(partnerToken: partner, userID: "bob")
            for token in [eve, bob] {
                let other = try await platform.send("POST", path, token: token, json: Self.batch([1]))
                #expect(other.status == 404 && other.errorCode == "DEVICE_NOT_FOUND", "\(other.text)")
            }
        }
    }
}
