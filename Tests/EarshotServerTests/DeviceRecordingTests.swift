import EarshotAPI
import EarshotCrypto
import EarshotDevice
import EarshotRecorder
import Foundation
import Testing

@testable import EarshotServer

/// Device recordings end to end: a real in-process recorder (EarshotRecorder) over its link (`DeviceConnection`)
/// binds to the server and accepts the server's proof; a synced recording becomes a record exactly once after its
/// digest was checked, with the automatic transcription the device's setting asks for.
@Suite struct DeviceRecordingTests {
    /// Runs `body` with a recorder served on a loopback port.
    func withRecorder(serial: String, _ body: (Recorder, Int) async throws -> Void) async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("device-recordings")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Recorder.Configuration(identity: RecorderIdentity(serial: serial), directory: directory)
        configuration.bindCodeFile = directory.appendingPathComponent("bind-code")
        let recorder = try Recorder(configuration: configuration)
        var link = RecorderLink.Configuration()
        link.bytesPerSecond = 0
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let serving = Task {
            try await RecorderLink(recorder: recorder, configuration: link).run { continuation.yield($0) }
        }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(recorder, port)
        serving.cancel()
        _ = await serving.result
    }

    @Test(arguments: ServerTestBackend.available)
    func aRealRecorderBindsAcceptsTheServersProofAndSyncsARecordingOnce(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend, { $0.workers = 0 }) { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            try await withRecorder(serial: "ES1-REAL01") { recorder, port in
                // Bind: the app relays the device's identity, hands the platform's owner and the shown code to the
                // device, and returns the secret the device answered.
                let first = try DeviceConnection(port: port)
                let hello = try await first.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "tests"))
                let started = try await platform.startBind(
                    hello.serial, token: ada, ["model": hello.model, "firmware": hello.firmware])
                try #require(started.status == 201, "\(started.text)")
                let owner = try started.decode(Device.self).owner
                let code = try #require(await recorder.bindCode)
                guard case .bound(let secret) = try await first.single(.bind(code: code, owner: owner)) else {
                    Issue.record("the recorder did not bind")
                    return
                }
                let put = try await platform.send(
                    "PUT", platform.devicePath(APIPath.deviceSecret, hello.serial), token: ada,
                    json: ["secret": Data(secret).base64EncodedString()])
                try #require(put.status == 200, "\(put.text)")
                first.close()

                // A new session: the server's proof of the device's challenge authenticates the app.
                let connection = try DeviceConnection(port: port)
                defer { connection.close() }
                let session = try await connection.hello(
                    HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "tests"))
                #expect(session.bound)
                let proofResponse = try await platform.send(
                    "POST", platform.devicePath(APIPath.deviceProof, hello.serial), token: ada,
                    json: ["challenge": Data(session.challenge).base64EncodedString()])
                try #require(proofResponse.status == 200, "\(proofResponse.text)")
                let proof = try proofResponse.decode(DeviceProof.self)
                let authenticated = try await connection.single(
                    .authenticate(owner: proof.owner, proof: Array(try #require(Data(base64Encoded: proof.proof)))))
                #expect(authenticated == .done)

                // Record, sync over the link, store on the server, acknowledge only after it answered.
                try await recorder.startRecording()
                try await recorder.record((0..<(2 * 16_000)).map { Float(sin(Double($0) * 0.07) * 0.4) })
                let recording = try await recorder.stopRecording()
                var bytes: [UInt8] = []
                while UInt64(bytes.count) < recording.size {
                    bytes += try await connection.read(
                        recording: recording.id, offset: UInt64(bytes.count), length: 16_384)
                }
                let fileID = try await platform.uploadFile(Data(bytes), filetype: "ogg", token: ada)
                let stored = try await platform.postRecording(
                    hello.serial, id: Int64(recording.id), fileID: fileID, sha256: recording.sha256Hex, codec: "opus",
                    token: ada, startedAt: Int64(recording.startedAtMs))
                #expect(stored.status == 201, "\(stored.text)")
                let held = try stored.decode(EarshotAPI.DeviceRecording.self)
                #expect(held.sha256 == recording.sha256Hex && held.recordingID == Int64(recording.id))
                let freed = try await connection.single(
                    .acknowledge(recording: recording.id, sha256: try #require(Digest(hex: held.sha256)).bytes))
                #expect(freed == .acknowledged(freed: recording.size, storageUsed: 0))

                // The record: source device:<serial>, recorded when the device started, with its transcription.
                let records = try await platform.send(
                    "GET", APIPath.records + "?source=device:\(hello.serial)", token: ada)
                let list = try records.decode(RecordList.self)
                #expect(list.records.map(\.recordID) == [held.recordID], "\(records.text)")
                #expect(list.records.first?.recordTimeMs == Int64(recording.startedAtMs))
                let tasks = try await platform.send(
                    "GET", platform.recordPath(APIPath.recordTasks, held.recordID), token: ada)
                #expect(try tasks.decode(RecordTaskList.self).tasks.map(\.taskType) == [0], "\(tasks.text)")

                // What the server holds, for a restarted app.
                let holds = try await platform.send(
                    "GET", platform.devicePath(APIPath.deviceRecordings, hello.serial), token: ada)
                #expect(try holds.decode(DeviceRecordingList.self).recordings == [held])
            }
        }
    }

    @Test(arguments: ServerTestBackend.available)
    func aRecordingIsStoredOnceAfterItsDigestIsChecked(backend: ServerTestBackend) async throws {
        try await TestPlatform.with(backend: backend, { $0.workers = 0 }) { platform in
            let (_, partner, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-ONCE", token: ada)
            let audio = try TestAudio.jfk()
            let digest = sha256Hex(audio)
            let file = try await platform.uploadFile(audio, filetype: "wav", token: ada)

            // A file that is not the recording: refused, naming both digests, and nothing stored.
            let wrong = String(repeating: "0", count: 64)
            let mismatch = try await platform.postRecording("ES1-ONCE", id: 7, fileID: file, sha256: wrong, token: ada)
            #expect(mismatch.status == 400 && mismatch.errorCode == "INVALID_ARGUMENT", "\(mismatch.text)")
            #expect(mismatch.errorMessage.contains(digest) && mismatch.errorMessage.contains(wrong))
            let none = try await platform.send("GET", APIPath.records + "?source=device:ES1-ONCE", token: ada)
            #expect(try none.decode(RecordList.self).records.isEmpty)

            let first = try await platform.postRecording("ES1-ONCE", id: 7, fileID: file, sha256: digest, token: ada)
            #expect(first.status == 201, "\(first.text)")
            let stored = try first.decode(EarshotAPI.DeviceRecording.self)
            // A repeat (the app retried, or restarted before acknowledging): the same answer, no second record.
            let repeated = try await platform.postRecording(
                "ES1-ONCE", id: 7, fileID: file, sha256: digest.uppercased(), token: ada)
            #expect(repeated.status == 200, "\(repeated.text)")
            #expect(try repeated.decode(EarshotAPI.DeviceRecording.self) == stored)
            // The same id with another digest: a conflict, nothing replaced.
            let other = Data(audio.dropLast(2))
            let otherFile = try await platform.uploadFile(other, filetype: "wav", token: ada)
            let conflict = try await platform.postRecording(
                "ES1-ONCE", id: 7, fileID: otherFile, sha256: sha256Hex(other), token: ada)
            #expect(conflict.status == 409 && conflict.errorCode == "CONFLICT", "\(conflict.text)")

            let records = try await platform.send("GET", APIPath.records + "?source=device:ES1-ONCE", token: ada)
            #expect(try records.decode(RecordList.self).records.map(\.recordID) == [stored.recordID])
            let list = try await platform.send(
                "GET", platform.devicePath(APIPath.deviceRecordings, "ES1-ONCE") + "?after=6&limit=1", token: partner)
            #expect(try list.decode(DeviceRecordingList.self).recordings == [stored], "\(list.text)")
            let after = try await platform.send(
                "GET", platform.devicePath(APIPath.deviceRecordings, "ES1-ONCE") + "?after=7", token: ada)
            #expect(try after.decode(DeviceRecordingList.self).recordings.isEmpty)
        }
    }

    @Test func deletingTheRecordMakesTheRegistryForgetTheRecording() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-GONE", token: ada)
            let audio = try TestAudio.jfk()
            let digest = sha256Hex(audio)
            let first = try await platform.postRecording(
                "ES1-GONE", id: 3, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: digest, token: ada)
            try #require(first.status == 201, "\(first.text)")
            let stored = try first.decode(EarshotAPI.DeviceRecording.self)
            let deleted = try await platform.send("DELETE", platform.recordPath(APIPath.record, stored.recordID), token: ada)
            #expect(deleted.status == 204, "\(deleted.text)")
            let listed = try await platform.send(
                "GET", platform.devicePath(APIPath.deviceRecordings, "ES1-GONE"), token: ada)
            #expect(try listed.decode(DeviceRecordingList.self).recordings.isEmpty, "\(listed.text)")

            // The same recording synced again: a new record, not the deleted one.
            let again = try await platform.postRecording(
                "ES1-GONE", id: 3, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: digest, token: ada)
            #expect(again.status == 201, "\(again.text)")
            let renewed = try again.decode(EarshotAPI.DeviceRecording.self)
            #expect(renewed.recordID != stored.recordID && renewed.recordingID == 3 && renewed.sha256 == digest)
            let records = try await platform.send("GET", APIPath.records + "?source=device:ES1-GONE", token: ada)
            #expect(try records.decode(RecordList.self).records.map(\.recordID) == [renewed.recordID])
        }
    }

    @Test func automaticTranscriptionFollowsTheDevicesSetting() async throws {
        try await TestPlatform.with({ $0.workers = 0 }) { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-AUTO", token: ada)
            let audio = try TestAudio.jfk()
            let on = try await platform.postRecording(
                "ES1-AUTO", id: 1, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: sha256Hex(audio), token: ada)
            try #require(on.status == 201, "\(on.text)")
            let onTasks = try await platform.send(
                "GET",
                platform.recordPath(APIPath.recordTasks, try on.decode(EarshotAPI.DeviceRecording.self).recordID),
                token: ada)
            let task = try #require(try onTasks.decode(RecordTaskList.self).tasks.first)
            #expect(task.taskType == 0 && task.model == "asr-fast")

            let patched = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-AUTO"), token: ada, json: ["auto_transcribe": false])
            #expect(patched.status == 200, "\(patched.text)")
            let off = try await platform.postRecording(
                "ES1-AUTO", id: 2, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: sha256Hex(audio), token: ada)
            try #require(off.status == 201, "\(off.text)")
            let offTasks = try await platform.send(
                "GET",
                platform.recordPath(APIPath.recordTasks, try off.decode(EarshotAPI.DeviceRecording.self).recordID),
                token: ada)
            #expect(try offTasks.decode(RecordTaskList.self).tasks.isEmpty, "\(offTasks.text)")
        }
    }

    /// Registration answers without decoding the audio (it held syncs for seconds per long recording); a recording
    /// that is not transcribed gets its duration and waveform from a `record-measure` job, and is never listed as a
    /// task of its record.
    @Test func aRecordingNotTranscribedIsStoredAtOnceAndMeasuredInTheBackground() async throws {
        try await TestPlatform.with { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-MEASURE", token: ada)
            _ = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-MEASURE"), token: ada,
                json: ["auto_transcribe": false])
            let audio = try TestAudio.jfk()
            // The device says 4 s; the audio is 11 s.
            let stored = try await platform.postRecording(
                "ES1-MEASURE", id: 1, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: sha256Hex(audio), token: ada, durationMs: 4_000)
            try #require(stored.status == 201, "\(stored.text)")
            let recordID = try stored.decode(EarshotAPI.DeviceRecording.self).recordID
            var record: RecordDetail?
            for _ in 0..<300 {
                record = try await platform.send("GET", platform.recordPath(APIPath.record, recordID), token: ada)
                    .decode(RecordDetail.self)
                if record?.envelope != nil { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let measured = try #require(record)
            #expect(measured.envelope != nil, "the record-measure job did not measure the record within 15 s")
            #expect((10_900...11_100).contains(measured.record.durationMs), "\(measured.record.durationMs)")
            let tasks = try await platform.send(
                "GET", platform.recordPath(APIPath.recordTasks, recordID), token: ada)
            #expect(try tasks.decode(RecordTaskList.self).tasks.isEmpty, "\(tasks.text)")
        }
    }

    @Test(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
    func autoSummarizeAddsASummaryOnceTheTranscriptIsIn() async throws {
        try await TestPlatform.with({ $0.llmManaged = false }) { platform in
            let (_, _, ada) = try await platform.newUser("ada")
            _ = try await platform.bindDevice("ES1-SUMMARY", token: ada, ["name": "Meeting card"])
            let patched = try await platform.send(
                "PATCH", platform.devicePath(APIPath.device, "ES1-SUMMARY"), token: ada,
                json: ["auto_summarize": true])
            #expect(try patched.decode(Device.self).autoSummarize)
            let audio = try TestAudio.jfk()
            let stored = try await platform.postRecording(
                "ES1-SUMMARY", id: 1, fileID: try await platform.uploadFile(audio, filetype: "wav", token: ada),
                sha256: sha256Hex(audio), token: ada)
            try #require(stored.status == 201, "\(stored.text)")
            let recordID = try stored.decode(EarshotAPI.DeviceRecording.self).recordID
            let tasks = platform.recordPath(APIPath.recordTasks, recordID)
            let transcription = try #require(
                try await platform.send("GET", tasks, token: ada).decode(RecordTaskList.self).tasks.first)
            let transcribed = try await platform.waitForRecordTask(recordID, transcription.taskID, token: ada)
            #expect(transcribed.status == .success, "\(transcribed.error ?? "")")
            // The summary task was added in the transaction that stored the transcript: exactly one.
            let after = try await platform.send("GET", tasks, token: ada).decode(RecordTaskList.self).tasks
            #expect(after.map(\.taskType).sorted() == [0, 1], "\(after)")
            let record = try await platform.send("GET", platform.recordPath(APIPath.record, recordID), token: ada)
                .decode(RecordDetail.self)
            #expect(record.transcript?.sentences.isEmpty == false)
        }
    }
}
