import EarshotAPI
import EarshotCrypto
import Foundation
import Testing

@testable import EarshotServer

/// The device registry over HTTP: binding one device to one user of one tenant (and `BIND_OCCUPIED` for anyone
/// else), the secret and the proofs computed from it, status reports and the online window, renaming and removing,
/// and another tenant's or user's serial answered like an unknown one.
@Suite struct DeviceRegistryTests {
    @Test(arguments: ServerTestBackend.available)
    func aDeviceBindsToOneUserAndEveryoneElseGetsBindOccupied(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            let bob = try await platform.userToken(partnerToken: partner, userID: "bob")
            let (_, _, eve) = try await platform.newUser("ada", partner: "Other")

            let started = try await platform.startBind("ES1-4F2A9C", token: ada)
            #expect(started.status == 201, "\(started.text)")
            let device = try started.decode(Device.self)
            #expect(device.state == .binding && device.userID == "ada" && device.owner.hasSuffix("/ada"))
            #expect(device.name == "ES1 2A9C" && device.online == false && device.autoTranscribe)

            // The same user again is idempotent (a reset device binding again), also through the partner token.
            let again = try await platform.startBind("ES1-4F2A9C", token: ada, ["name": "Desk"])
            #expect(again.status == 200, "\(again.text)")
            #expect(try again.decode(Device.self).name == "Desk")
            let byPartner = try await platform.startBind("ES1-4F2A9C", token: partner, ["user_id": "ada"])
            #expect(try byPartner.status == 200 && byPartner.decode(Device.self).owner == device.owner)

            // Another user of the same tenant, and a user of another tenant with the same user id.
            for token in [bob, eve] {
                let taken = try await platform.startBind("ES1-4F2A9C", token: token)
                #expect(taken.status == 409 && taken.errorCode == "BIND_OCCUPIED", "\(taken.text)")
            }
            let noUser = try await platform.startBind("ES1-0000", token: partner)
            #expect(noUser.status == 400 && noUser.errorMessage.contains("user_id"), "\(noUser.text)")

            // Finishing the bind makes it bound; a bound device stays occupied for the others.
            let (bound, _) = try await platform.bindDevice("ES1-4F2A9C", token: ada)
            #expect(bound.state == .bound)
            let taken = try await platform.startBind("ES1-4F2A9C", token: bob)
            #expect(taken.errorCode == "BIND_OCCUPIED")
        }
    }

    @Test func badSecretsAreRefusedAndAProofNeedsOne() async throws {
        try await TestPlatform.with { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            _ = try await platform.startBind("ES1-SECRET", token: ada)
            let proofPath = platform.devicePath(APIPath.deviceProof, "ES1-SECRET")
            let challenge = Data(repeating: 1, count: 16).base64EncodedString()
            let early = try await platform.send("POST", proofPath, token: ada, json: ["challenge": challenge])
            #expect(early.status == 409 && early.errorCode == "CONFLICT", "\(early.text)")

            let secretPath = platform.devicePath(APIPath.deviceSecret, "ES1-SECRET")
            for bad in [
                "not base64!", Data(repeating: 1, count: 31).base64EncodedString(),
                Data(repeating: 1, count: 33).base64EncodedString(), "",
            ] {
                let response = try await platform.send("PUT", secretPath, token: ada, json: ["secret": bad])
                #expect(response.status == 400 && response.errorCode == "INVALID_ARGUMENT", "\(response.text)")
                #expect(response.errorMessage.contains("32 bytes"))
            }
            let detail = try await platform.send("GET", platform.devicePath(APIPath.device, "ES1-SECRET"), token: ada)
            #expect(try detail.decode(Device.self).state == .binding)

            // A good secret: the proof is HMAC-SHA256(secret, challenge), with the owner the device stores.
            let secret = (0..<32).map { UInt8($0) }
            let (device, _) = try await platform.bindDevice("ES1-SECRET", token: ada, secret: secret)
            let response = try await platform.send("POST", proofPath, token: ada, json: ["challenge": challenge])
            #expect(response.status == 200, "\(response.text)")
            let proof = try response.decode(DeviceProof.self)
            #expect(proof.owner == device.owner)
            let expected = HMAC.authenticationCode(key: secret, message: Array(repeating: UInt8(1), count: 16))
            #expect(Data(base64Encoded: proof.proof) == Data(expected.bytes))
            let shortChallenge = try await platform.send(
                "POST", proofPath, token: ada, json: ["challenge": Data(repeating: 1, count: 8).base64EncodedString()])
            #expect(shortChallenge.status == 400, "\(shortChallenge.text)")
        }
    }

    @Test func aStatusReportMakesTheDeviceOnlineForTheWindow() async throws {
        try await TestPlatform.with({ $0.deviceOnlineWindow = .seconds(2) }) { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-ONLINE", token: ada)
            let planPath = platform.devicePath(APIPath.deviceUploadPlan, "ES1-ONLINE")
            let planBody: [String: Any] = ["recording_id": 1, "size": 70_000, "codec": "opus"]
            let offline = try await platform.send("POST", planPath, token: ada, json: planBody)
            #expect(offline.status == 409 && offline.errorCode == "DEVICE_OFFLINE", "\(offline.text)")

            let report: [String: Any] = [
                "battery": 81, "charging": false, "storage_used": 1_000_000, "storage_total": 64_000_000,
                "recording_count": 3, "recording": false,
            ]
            let status = try await platform.send(
                "POST", platform.devicePath(APIPath.deviceStatus, "ES1-ONLINE"), token: ada,
                json: ["report": report, "firmware": "1.1.0"])
            #expect(status.status == 200, "\(status.text)")
            let device = try status.decode(Device.self)
            #expect(device.online && device.lastSeenMs != nil && device.firmware == "1.1.0")
            #expect(device.report?.battery == 81 && device.report?.recordingCount == 3)

            // Online: a Wi-Fi plan for the device, an Ogg upload of the recording's size.
            let plan = try await platform.send("POST", planPath, token: ada, json: planBody)
            #expect(plan.status == 200, "\(plan.text)")
            let upload = try plan.decode(UploadPlan.self)
            #expect(upload.parts.count == 2 && upload.chunkSize == 64 << 10)
            let badCodec = try await platform.send(
                "POST", planPath, token: ada, json: ["recording_id": 1, "size": 70_000, "codec": "mp3"])
            #expect(badCodec.status == 400, "\(badCodec.text)")

            var badReport = report
            badReport["battery"] = 140
            let refused = try await platform.send(
                "POST", platform.devicePath(APIPath.deviceStatus, "ES1-ONLINE"), token: ada,
                json: ["report": badReport])
            #expect(refused.status == 400 && refused.errorMessage.contains("battery"), "\(refused.text)")

            try await Task.sleep(for: .milliseconds(2_500))
            let later = try await platform.send("GET", platform.devicePath(APIPath.device, "ES1-ONLINE"), token: ada)
            #expect(try later.decode(Device.self).online == false)
            let late = try await platform.send("POST", planPath, token: ada, json: planBody)
            #expect(late.errorCode == "DEVICE_OFFLINE", "\(late.text)")
        }
    }

    @Test func aDeviceIsRenamedAndRemovedAndItsRecordsStay() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-RENAME", token: ada)
            let path = platform.devicePath(APIPath.device, "ES1-RENAME")
            let renamed = try await platform.send(
                "PATCH", path, token: ada, json: ["name": "Kitchen recorder", "auto_transcribe": false])
            #expect(renamed.status == 200, "\(renamed.text)")
            let device = try renamed.decode(Device.self)
            #expect(device.name == "Kitchen recorder" && !device.autoTranscribe)
            let empty = try await platform.send("PATCH", path, token: ada, json: [:])
            #expect(empty.status == 400)

            let audio = try TestAudio.jfk()
            let file = try await platform.uploadFile(audio, filetype: "wav", token: ada)
            let stored = try await platform.postRecording(
                "ES1-RENAME", id: 1, fileID: file, sha256: sha256Hex(audio), token: ada)
            #expect(stored.status == 201, "\(stored.text)")
            let recordID = try stored.decode(DeviceRecording.self).recordID

            let list = try await platform.send("GET", APIPath.devices + "?user_id=ada", token: partner)
            #expect(try list.decode(DeviceList.self).devices.map(\.serial) == ["ES1-RENAME"])
            let removed = try await platform.send("DELETE", path + "?clear=true", token: ada)
            #expect(removed.status == 204, "\(removed.text)")
            let gone = try await platform.send("GET", path, token: ada)
            #expect(gone.status == 404 && gone.errorCode == "DEVICE_NOT_FOUND")
            let record = try await platform.send("GET", platform.recordPath(APIPath.record, recordID), token: ada)
            #expect(record.status == 200, "\(record.text)")
        }
    }

    @Test func anotherTenantsOrUsersSerialIsDeviceNotFoundEverywhereButBind() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            let bob = try await platform.userToken(partnerToken: partner, userID: "bob")
            let (_, otherPartner, eve) = try await platform.newUser("ada", partner: "Other")
            _ = try await platform.bindDevice("ES1-MINE", token: ada)
            let requests: [(String, String, [String: Any]?)] = [
                ("GET", APIPath.device, nil), ("PATCH", APIPath.device, ["name": "stolen"]),
                ("DELETE", APIPath.device, nil),
                ("PUT", APIPath.deviceSecret, ["secret": Data(repeating: 1, count: 32).base64EncodedString()]),
                ("POST", APIPath.deviceProof, ["challenge": Data(repeating: 1, count: 16).base64EncodedString()]),
                (
                    "POST", APIPath.deviceStatus,
                    [
                        "report": [
                            "battery": 1, "charging": false, "storage_used": 0, "storage_total": 1,
                            "recording_count": 0, "recording": false,
                        ]
                    ]
                ),
                ("GET", APIPath.deviceRecordings, nil),
                (
                    "POST", APIPath.deviceRecordings,
                    [
                        "recording_id": 1, "started_at_ms": 0, "duration_ms": 1, "size": 1, "codec": "wav",
                        "sha256": String(repeating: "a", count: 64), "file_id": "file_x",
                    ]
                ),
                ("POST", APIPath.deviceUploadPlan, ["recording_id": 1, "size": 10, "codec": "wav"]),
                ("POST", APIPath.deviceUploadPlans, ["recordings": [["recording_id": 1, "size": 10, "codec": "wav"]]]),
            ]
            for (who, token) in [("bob", bob), ("eve", eve), ("other partner", otherPartner)] {
                for (method, template, body) in requests {
                    let response = try await platform.send(
                        method, platform.devicePath(template, "ES1-MINE"), token: token, json: body)
                    #expect(
                        response.status == 404 && response.errorCode == "DEVICE_NOT_FOUND",
                        "\(who): \(method) \(template) answered \(response.status) \(response.text)")
                }
                let list = try await platform.send("GET", APIPath.devices, token: token)
                #expect(!list.text.contains("ES1-MINE"))
            }
            let mine = try await platform.send("GET", platform.devicePath(APIPath.device, "ES1-MINE"), token: ada)
            #expect(try mine.status == 200 && mine.decode(Device.self).name == "ES1 MINE")
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func homesGroupDevicesWithOneCurrentAndOnlyEmptyOnesAreDeleted(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            // The first call makes the default home, current.
            let first = try await platform.send("GET", APIPath.homes, token: ada).decode(HomeList.self)
            #expect(first.homes.count == 1 && first.homes[0].name == "My home" && first.homes[0].current)
            let home = first.homes[0].homeID
            #expect(try await platform.send("GET", APIPath.homes, token: ada).decode(HomeList.self) == first)
            let noUser = try await platform.send("GET", APIPath.homes, token: partner)
            #expect(noUser.status == 400, "\(noUser.text)")

            let created = try await platform.send(
                "POST", APIPath.homes, token: partner, json: ["name": "Office", "user_id": "ada"])
            #expect(created.status == 201, "\(created.text)")
            let office = try created.decode(Home.self)
            #expect(office.name == "Office" && !office.current && office.deviceCount == 0)
            let officePath = APIPath.filled(APIPath.home, ["home_id": office.homeID])
            let current = try await platform.send("PATCH", officePath, token: ada, json: ["current": true])
            #expect(try current.decode(Home.self).current, "\(current.text)")
            let renamed = try await platform.send("PATCH", officePath, token: ada, json: ["name": "Studio"])
            #expect(try renamed.decode(Home.self).name == "Studio")

            // A device binds into the current home; a home with devices is not deleted.
            let (device, _) = try await platform.bindDevice("ES1-HOME01", token: ada)
            #expect(device.homeID == office.homeID)
            let homes = try await platform.send("GET", APIPath.homes, token: ada).decode(HomeList.self).homes
            #expect(homes.map(\.deviceCount) == [0, 1] && homes.map(\.current) == [false, true])
            let full = try await platform.send("DELETE", officePath, token: ada)
            #expect(full.status == 409 && full.errorCode == "CONFLICT", "\(full.text)")
            let moved = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-HOME01"), token: ada, json: ["home_id": home])
            #expect(try moved.decode(Device.self).homeID == home)
            let inHome = try await platform.send("GET", APIPath.devices + "?home_id=\(home)", token: ada)
            #expect(try inHome.decode(DeviceList.self).devices.map(\.serial) == ["ES1-HOME01"])
            let emptied = try await platform.send("DELETE", officePath, token: ada)
            #expect(emptied.status == 204, "\(emptied.text)")

            // The remaining home is current again, and a user keeps at least one.
            let left = try await platform.send("GET", APIPath.homes, token: ada).decode(HomeList.self).homes
            #expect(left.map(\.homeID) == [home] && left[0].current && left[0].deviceCount == 1)
            let last = try await platform.send(
                "DELETE", APIPath.filled(APIPath.home, ["home_id": home]), token: ada)
            #expect(last.status == 409, "\(last.text)")
            let unknown = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-HOME01"), token: ada,
                json: ["home_id": office.homeID])
            #expect(unknown.status == 404 && unknown.errorCode == "NOT_FOUND", "\(unknown.text)")
        }
    }
}
