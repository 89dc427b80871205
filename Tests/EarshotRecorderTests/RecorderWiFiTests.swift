import EarshotCrypto
import EarshotDevice
import EarshotHTTP
import EarshotRecorder
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

/// Wi-Fi handover on the recorder: the device PUTs each part of a handed-over plan to its URL, reports progress and
/// the ETags, refuses a bad plan before anything moves, and reports a failed part instead of finishing.
@Suite struct RecorderWiFiTests {
    /// A storage endpoint: `PUT /parts/{n}` keeps the bytes and answers an ETag; `/refuse/{n}` answers 403.
    final class Storage: Sendable {
        let parts = Mutex<[Int: [UInt8]]>([:])
        /// `PUT /batch/{recording}/{n}`: parts by recording, then part number.
        let batch = Mutex<[UInt32: [Int: [UInt8]]]>([:])

        func router() -> Router {
            let router = Router()
            router.put("/parts/{n}", body: .buffered(limit: 8 << 20)) { request, context in
                let number = Int(try context.parameters.require("n")) ?? 0
                self.parts.withLock { $0[number] = request.bytes }
                return Response(
                    status: .ok, headers: ["ETag": "\"\(DigestAlgorithm.sha256.hash(request.bytes).hex.prefix(32))\""])
            }
            router.put("/batch/{recording}/{n}", body: .buffered(limit: 8 << 20)) { request, context in
                let recording = UInt32(try context.parameters.require("recording")) ?? 0
                let number = Int(try context.parameters.require("n")) ?? 0
                self.batch.withLock { $0[recording, default: [:]][number] = request.bytes }
                return Response(
                    status: .ok, headers: ["ETag": "\"\(DigestAlgorithm.sha256.hash(request.bytes).hex.prefix(32))\""])
            }
            router.put("/refuse/{n}", body: .buffered(limit: 8 << 20)) { _, _ in
                Response(status: .forbidden, body: .bytes(Array("expired".utf8)))
            }
            return router
        }
    }

    func withStorage(_ body: (Storage, Int) async throws -> Void) async throws {
        let storage = Storage()
        let server = HTTPServer(router: storage.router(), configuration: .init(port: 0))
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try await server.waitUntilListening()
        try await body(storage, port)
    }

    /// A bound, authenticated session on a card with one recording of a tone.
    func boundCard() async throws -> (Recorder, Recorder.Session, DeviceRecording) {
        let (recorder, session, recordings) = try await boundCard(takes: 1, version: ProtocolVersion.first)
        return (recorder, session, recordings[0])
    }

    /// A bound, authenticated session of protocol `version` on a card with `takes` recordings of a tone.
    func boundCard(takes: Int, version: UInt8) async throws -> (Recorder, Recorder.Session, [DeviceRecording]) {
        let directory = try TestEnvironment.makeTemporaryDirectory("recorder-wifi")
        var configuration = Recorder.Configuration(
            identity: RecorderIdentity(serial: "ES1-WIFI01", capacity: 8 << 20), directory: directory)
        configuration.bindCodeFile = directory.appendingPathComponent("bind-code")
        let recorder = try Recorder(configuration: configuration)
        var recordings: [DeviceRecording] = []
        for take in 0..<takes {
            try await recorder.startRecording()
            let samples = (0..<(16_000 * 8)).map { Float(sin(Double($0) * 0.05 * Double(take + 1)) * 0.3) }
            try await recorder.record(samples)
            recordings.append(try await recorder.stopRecording())
        }
        var session = Recorder.Session(linkFrameSize: 244)
        let hello = HelloRequest(maximumVersion: version, maximumFrameSize: 244, clockMs: 0, client: "t")
        _ = await recorder.handle(.hello(hello), session: &session)
        let code = try #require(await recorder.bindCode)
        _ = await recorder.handle(.bind(code: code, owner: "acme/ada"), session: &session)
        return (recorder, session, recordings)
    }

    func plan(_ recording: DeviceRecording, port: Int, path: String = "parts", chunk: Int = 8_000) -> UploadPlan {
        let size = Int(recording.size)
        let parts = stride(from: 0, to: size, by: chunk).enumerated().map { index, offset in
            UploadPlan.Part(
                number: UInt16(index + 1), offset: UInt64(offset), length: UInt32(min(chunk, size - offset)),
                url: "http://127.0.0.1:\(port)/\(path)/\(index + 1)")
        }
        return UploadPlan(
            recording: recording.id, expiresAtMs: UInt64(Date().timeIntervalSince1970 * 1000) + 60_000, parts: parts)
    }

    @Test func theDeviceUploadsEveryPartAndReportsTheETags() async throws {
        try await withStorage { storage, port in
            var (recorder, session, recording) = try await boundCard()
            let (subscription, events) = await recorder.subscribe()
            let plan = plan(recording, port: port)
            #expect(plan.parts.count >= 2)
            #expect(await recorder.handle(.upload(plan), session: &session) == [.done])
            var progress: [UInt64] = []
            var etags: [UInt16: String] = [:]
            for await event in events {
                if case .uploadProgress(let id, let sent, let total) = event, id == recording.id {
                    #expect(total == recording.size)
                    progress.append(sent)
                }
                if case .uploadFinished(let id, let tags) = event, id == recording.id {
                    etags = tags
                    break
                }
                if case .uploadFailed(_, let reason) = event { Issue.record("upload failed: \(reason)") }
            }
            await recorder.unsubscribe(subscription)
            // Progress after each part but the last: `upload finished` reports the end.
            #expect(progress == progress.sorted() && progress.count == plan.parts.count - 1)
            #expect(progress.allSatisfy { $0 < recording.size })
            #expect(etags.keys.sorted() == plan.parts.map(\.number))
            // The bytes stored are the recording's, byte for byte.
            let stored = storage.parts.withLock { parts in parts.keys.sorted().flatMap { parts[$0]! } }
            #expect(DigestAlgorithm.sha256.hash(stored).bytes == recording.sha256)
            // Uploading frees nothing: only an acknowledgement does.
            #expect(await recorder.recordings.map(\.id) == [recording.id])
        }
    }

    @Test func aBadPlanIsRefusedAndARefusedPartIsReportedAsFailed() async throws {
        try await withStorage { _, port in
            var (recorder, session, recording) = try await boundCard()
            var outside = plan(recording, port: port)
            outside.parts[0].length = UInt32(recording.size + 1)
            #expect(await recorder.handle(.upload(outside), session: &session).first.map(Self.code) == .outOfRange)
            var expired = plan(recording, port: port)
            expired.expiresAtMs = 1
            #expect(await recorder.handle(.upload(expired), session: &session).first.map(Self.code) == .malformed)
            var missing = plan(recording, port: port)
            missing.recording = 999
            #expect(await recorder.handle(.upload(missing), session: &session).first.map(Self.code) == .notFound)

            let (subscription, events) = await recorder.subscribe()
            #expect(await recorder.handle(.upload(plan(recording, port: port, path: "refuse")), session: &session) == [.done])
            for await event in events {
                if case .uploadFailed(let id, let reason) = event {
                    #expect(id == recording.id && reason.contains("403"), "\(reason)")
                    break
                }
                if case .uploadFinished = event { Issue.record("a refused upload finished") }
            }
            await recorder.unsubscribe(subscription)
        }
    }

    @Test func aBatchIsQueuedAndUploadedInOrderEachRecordingReportedOnItsOwn() async throws {
        try await withStorage { storage, port in
            var (recorder, session, recordings) = try await boundCard(takes: 3, version: ProtocolVersion.uploadBatch)
            #expect(session.version == ProtocolVersion.uploadBatch)
            let (subscription, events) = await recorder.subscribe()
            let plans = recordings.map { plan($0, port: port, path: "batch/\($0.id)") }
            #expect(await recorder.handle(.uploadBatch(plans), session: &session) == [.done])
            var finished: [UInt32] = []
            for await event in events {
                if case .uploadFinished(let id, let tags) = event {
                    finished.append(id)
                    #expect(tags.keys.sorted() == plans.first { $0.recording == id }?.parts.map(\.number))
                    if finished.count == recordings.count { break }
                }
                if case .uploadFailed(_, let reason) = event { Issue.record("upload failed: \(reason)") }
            }
            await recorder.unsubscribe(subscription)
            // One after another, in the batch's order; every recording's bytes stored byte for byte, none freed.
            #expect(finished == recordings.map(\.id))
            for recording in recordings {
                let stored = storage.batch.withLock { batch in
                    (batch[recording.id] ?? [:]).keys.sorted().flatMap { batch[recording.id]![$0]! }
                }
                #expect(DigestAlgorithm.sha256.hash(stored).bytes == recording.sha256)
            }
            #expect(await recorder.recordings.map(\.id) == recordings.map(\.id))
        }
    }

    @Test func aBadBatchQueuesNothingAndAVersionOneSessionCannotSendOne() async throws {
        try await withStorage { storage, port in
            var (recorder, session, recordings) = try await boundCard(takes: 2, version: ProtocolVersion.uploadBatch)
            let good = recordings.map { plan($0, port: port, path: "batch/\($0.id)") }
            var missing = good[1]
            missing.recording = 999
            let unknown = await recorder.handle(.uploadBatch([good[0], missing]), session: &session)
            #expect(unknown.first.map(Self.code) == .notFound)
            #expect(
                await recorder.handle(.uploadBatch([good[0], good[0]]), session: &session).first.map(Self.code)
                    == .malformed)
            var expired = good[1]
            expired.expiresAtMs = 1
            let late = await recorder.handle(.uploadBatch([good[0], expired]), session: &session)
            #expect(late.first.map(Self.code) == .malformed)
            await recorder.waitForUpload()
            #expect(storage.batch.withLock { $0.isEmpty }, "a refused batch must not upload any of its plans")

            // A session that said hello with version 1 only: the device refuses the batch (the app uses `upload`).
            var (old, oldSession, oldRecordings) = try await boundCard(takes: 1, version: ProtocolVersion.first)
            #expect(oldSession.version == ProtocolVersion.first)
            let batch = [plan(oldRecordings[0], port: port, path: "batch/\(oldRecordings[0].id)")]
            #expect(await old.handle(.uploadBatch(batch), session: &oldSession).first.map(Self.code) == .unexpected)
        }
    }

    static func code(_ response: DeviceResponse) -> DeviceProtocolError.Code? {
        if case .failed(let error) = response { return error.code }
        return nil
    }
}
