import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// A user's device defaults (`/open/partner/device-defaults`): what devices without their own setting do with a
/// synced recording — transcribe, summarise, language, speech tier — honoured when a recording arrives; a device's
/// own setting wins until it follows the defaults again; nobody reaches another user's or tenant's defaults or
/// devices.
@Suite struct DeviceDefaultsTests {
    /// Stores `audio` as recording `id` of `serial` and returns the record's detail.
    func store(
        _ platform: TestPlatform, _ serial: String, id: Int64, audio: Data, token: String
    ) async throws -> RecordDetail {
        let stored = try await platform.postRecording(
            serial, id: id, fileID: try await platform.uploadFile(audio, filetype: "wav", token: token),
            sha256: sha256Hex(audio), token: token)
        try #require(stored.status == 201, "\(stored.text)")
        let recordID = try stored.decode(EarshotAPI.DeviceRecording.self).recordID
        return try await platform.send("GET", platform.recordPath(APIPath.record, recordID), token: token)
            .decode(RecordDetail.self)
    }

    @Test(arguments: ServerTestBackend.available)
    func theUsersDefaultsDecideWhatHappensToRecordingsOfDevicesWithoutTheirOwnSetting(
        backend: ServerTestBackend
    ) async throws {
        try await TestPlatform.with(backend: backend, { $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            let fresh = try await platform.send("GET", APIPath.deviceDefaults, token: ada)
            #expect(fresh.status == 200, "\(fresh.text)")
            #expect(
                try fresh.decode(DeviceDefaults.self)
                    == DeviceDefaults(
                        userID: "ada", autoTranscribe: true, autoSummarize: false, language: "auto",
                        transcriptionModel: "asr-fast"))

            // French, high accuracy: a device without its own setting follows at once.
            let changed = try await platform.send(
                "PATCH", APIPath.deviceDefaults, token: ada, json: ["language": "FR", "transcription_model": "asr-pro"])
            #expect(changed.status == 200, "\(changed.text)")
            let defaults = try changed.decode(DeviceDefaults.self)
            #expect(defaults.language == "fr" && defaults.transcriptionModel == "asr-pro" && defaults.autoTranscribe)
            let (device, _) = try await platform.bindDevice("ES1-DEFS", token: ada)
            #expect(device.language == "fr" && device.transcriptionModel == "asr-pro")

            let audio = try TestAudio.jfk()
            let first = try await store(platform, "ES1-DEFS", id: 1, audio: audio, token: ada)
            #expect(first.record.language == "fr")
            #expect(first.tasks.map(\.model) == ["asr-pro"] && first.tasks.map(\.taskType) == [0])

            // The device's own language wins over the defaults.
            let own = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-DEFS"), token: ada, json: ["language": "en"])
            #expect(try own.decode(Device.self).language == "en", "\(own.text)")
            let second = try await store(platform, "ES1-DEFS", id: 2, audio: audio, token: ada)
            #expect(second.record.language == "en" && second.tasks.map(\.model) == ["asr-pro"])

            // Turning automatic transcription off in the defaults (the partner acting for its user).
            let off = try await platform.send(
                "PATCH", APIPath.deviceDefaults, token: partner, json: ["auto_transcribe": false, "user_id": "ada"])
            #expect(try off.decode(DeviceDefaults.self).autoTranscribe == false, "\(off.text)")
            let third = try await store(platform, "ES1-DEFS", id: 3, audio: audio, token: ada)
            #expect(third.tasks.isEmpty, "no transcription: the defaults say off")
            let byPartner = try await platform.send("GET", APIPath.deviceDefaults + "?user_id=ada", token: partner)
            #expect(try byPartner.decode(DeviceDefaults.self).language == "fr", "\(byPartner.text)")

            // Following the defaults again forgets the device's own language; auto detects it.
            let follow = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-DEFS"), token: ada, json: ["follow_defaults": true])
            let following = try follow.decode(Device.self)
            #expect(following.language == "fr" && !following.autoTranscribe, "\(follow.text)")
            _ = try await platform.send(
                "PATCH", APIPath.deviceDefaults, token: ada, json: ["language": "auto", "auto_transcribe": true])
            let fourth = try await store(platform, "ES1-DEFS", id: 4, audio: audio, token: ada)
            #expect(fourth.record.language == nil && fourth.tasks.map(\.model) == ["asr-pro"])
        }
    }

    @Test func badSettingsAreRefusedWithWhatToSend() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-BADSET", token: ada)
            let cases: [(String, [String: Any], String)] = [
                (APIPath.deviceDefaults, [:], "nothing to update"),
                (APIPath.deviceDefaults, ["language": "klingon"], "language"),
                (APIPath.deviceDefaults, ["transcription_model": "asr-huge"], "asr-huge"),
                (platform.devicePath(APIPath.device, "ES1-BADSET"), ["language": "xx-yy"], "language"),
                (platform.devicePath(APIPath.device, "ES1-BADSET"), ["transcription_model": ""], "model"),
                // A user token acts for its own user only.
                (APIPath.deviceDefaults, ["auto_summarize": true, "user_id": "bob"], "user_id"),
            ]
            for (path, body, needle) in cases {
                let response = try await platform.send("PATCH", path, token: ada, json: body)
                #expect(response.status == 400 && response.errorCode == "INVALID_ARGUMENT", "\(path) \(response.text)")
                #expect(response.errorMessage.contains(needle), "\(response.errorMessage)")
            }
            let noUser = try await platform.send("GET", APIPath.deviceDefaults, token: partner)
            #expect(noUser.status == 400 && noUser.errorMessage.contains("user_id"), "\(noUser.text)")
            let unchanged = try await platform.send("GET", APIPath.deviceDefaults, token: ada)
            #expect(try unchanged.decode(DeviceDefaults.self).language == "auto")
        }
    }

    @Test func anotherUsersOrTenantsDevicesAndDefaultsAreOutOfReach() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            let bob = try await platform.userToken(partnerToken: partner, userID: "bob")
            let (_, otherPartner, eve) = try await platform.newUser("ada", partner: "Other")
            _ = try await platform.bindDevice("ES1-MINE", token: ada)

            // Ada's device: another user of her tenant, and a user of another tenant (even one also called ada, and
            // that tenant's partner token acting for its own ada), get DEVICE_NOT_FOUND, like an unknown serial.
            for token in [bob, eve] {
                let response = try await platform.send(
                    "PATCH", platform.devicePath(APIPath.device, "ES1-MINE"), token: token,
                    json: ["language": "de", "auto_transcribe": false])
                #expect(response.status == 404 && response.errorCode == "DEVICE_NOT_FOUND", "\(response.text)")
            }
            let foreign = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-MINE") + "?user_id=ada", token: otherPartner,
                json: ["follow_defaults": true])
            #expect(foreign.status == 404 && foreign.errorCode == "DEVICE_NOT_FOUND", "\(foreign.text)")
            let mine = try await platform.send("GET", platform.devicePath(APIPath.device, "ES1-MINE"), token: ada)
            let device = try mine.decode(Device.self)
            #expect(device.language == "auto" && device.autoTranscribe, "nothing changed: \(mine.text)")

            // Defaults are per user of a tenant: Bob's and the other tenant's ada's changes leave Ada's alone.
            _ = try await platform.send("PATCH", APIPath.deviceDefaults, token: bob, json: ["language": "de"])
            _ = try await platform.send(
                "PATCH", APIPath.deviceDefaults, token: otherPartner, json: ["user_id": "ada", "auto_transcribe": false])
            let evesOwn = try await platform.send("GET", APIPath.deviceDefaults, token: eve)
            #expect(try evesOwn.decode(DeviceDefaults.self).autoTranscribe == false, "\(evesOwn.text)")
            let adas = try await platform.send("GET", APIPath.deviceDefaults, token: ada)
            #expect(
                try adas.decode(DeviceDefaults.self)
                    == DeviceDefaults(
                        userID: "ada", autoTranscribe: true, autoSummarize: false, language: "auto",
                        transcriptionModel: "asr-fast"), "\(adas.text)")
        }
    }
}
