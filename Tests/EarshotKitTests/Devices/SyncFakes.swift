import EarshotAPI
import EarshotDevice
import Foundation
import Synchronization

@testable import EarshotKit

/// What happened, in order, across the fake device and the fake platform: the tests check that an acknowledgement
/// never comes before the server confirmed the digest.
final class SyncLog: Sendable {
    let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A device in memory: recordings with real bytes and digests; reads can be made to fail after a byte budget (a
/// link that drops), acknowledgements free.
final class FakeDevice: SyncDevice {
    let serial = "ES1-FAKE01"
    let log: SyncLog
    let stored = Mutex<[UInt32: [UInt8]]>([:])
    /// Bytes the link carries before it "drops" (nil: unlimited).
    let budget = Mutex<Int?>(nil)
    let reads = Mutex<[(UInt32, UInt64, UInt32)]>([])
    /// Answer acknowledge with `not found` (an earlier acknowledgement got through).
    let lostAcknowledgements = Mutex(false)
    /// The device's Wi-Fi: nil refuses the upload; else uploads the parts to this platform.
    let wifi = Mutex<(FakePlatform, WiFiUploads)?>(nil)

    init(log: SyncLog, recordings: [UInt32: [UInt8]]) {
        self.log = log
        stored.withLock { $0 = recordings }
    }

    func recordings() async throws -> [EarshotDevice.DeviceRecording] {
        stored.withLock { stored in
            stored.keys.sorted().map { id in
                EarshotDevice.DeviceRecording(
                    id: id, startedAtMs: 1_700_000_000_000 + UInt64(id), durationMs: 1000, size: UInt64(stored[id]!.count),
                    codec: .opus, sha256: SHA256.hash(stored[id]!))
            }
        }
    }

    func read(_ id: UInt32, offset: UInt64, length: UInt32) async throws -> [UInt8] {
        reads.withLock { $0.append((id, offset, length)) }
        let bytes = try stored.withLock { stored -> [UInt8] in
            guard let all = stored[id] else { throw EarshotError(.device, "not found") }
            let end = min(Int(offset) + Int(length), all.count)
            return Array(all[Int(offset)..<end])
        }
        try budget.withLock { budget in
            guard let left = budget else { return }
            guard left >= bytes.count else {
                budget = 0
                throw EarshotError(.device, "the link dropped")
            }
            budget = left - bytes.count
        }
        return bytes
    }

    func acknowledge(_ id: UInt32, sha256: [UInt8]) async throws -> UInt64? {
        log.add("ack \(id)")
        if lostAcknowledgements.withLock({ $0 }) {
            stored.withLock { _ = $0.removeValue(forKey: id) }
            return nil
        }
        return try stored.withLock { stored in
            guard let bytes = stored[id] else { return nil }
            guard SHA256.hash(bytes) == sha256 else { throw EarshotError(.device, "digest mismatch") }
            stored[id] = nil
            return UInt64(bytes.count)
        }
    }

    func upload(_ plan: EarshotDevice.UploadPlan) async throws {
        guard let (platform, state) = wifi.withLock({ $0 }) else {
            throw EarshotError(.device, "this device has no Wi-Fi link configured")
        }
        log.add("wifi \(plan.recording)")
        try await put(plan, platform: platform, state: state)
    }

    /// Plans one `upload batch` takes (1: a protocol-version-1 device, which has no batch).
    let batchLimit = Mutex(1)
    /// A recording whose Wi-Fi upload fails (the device reports `upload failed`).
    let failingUpload = Mutex<UInt32?>(nil)
    /// PUT the parts but report nothing (the app died before the events came).
    let silentUploads = Mutex(false)

    var uploadBatchLimit: Int { batchLimit.withLock { $0 } }

    func upload(batch: [EarshotDevice.UploadPlan]) async throws {
        guard let (platform, state) = wifi.withLock({ $0 }), uploadBatchLimit > 1 else {
            throw EarshotError(.device, "this device takes one Wi-Fi plan at a time")
        }
        log.add("wifi batch \(batch.map { String($0.recording) }.joined(separator: ","))")
        for plan in batch { try await put(plan, platform: platform, state: state) }
    }

    private func put(_ plan: EarshotDevice.UploadPlan, platform: FakePlatform, state: WiFiUploads) async throws {
        if failingUpload.withLock({ $0 }) == plan.recording {
            state.failed(plan.recording, reason: "HTTP 403: the plan expired")
            return
        }
        let bytes = stored.withLock { $0[plan.recording] ?? [] }
        var etags: [UInt16: String] = [:]
        for part in plan.parts {
            let body = Data(bytes[Int(part.offset)..<Int(part.offset) + Int(part.length)])
            etags[part.number] = try await platform.put(body, to: part.url, part: Int(part.number))
            if !silentUploads.withLock({ $0 }) {
                state.progress(plan.recording, sent: part.offset + UInt64(part.length))
            }
        }
        if !silentUploads.withLock({ $0 }) { state.finished(plan.recording, etags: etags) }
    }
}

/// The platform in memory: multipart uploads, complete, and a registry that checks SHA-256 and registers a
/// recording once.
final class FakePlatform: SyncPlatform {
    struct Upload {
        var size: Int
        var chunk: Int
        var parts: [Int: Data] = [:]
        /// The ETag each PUT answered (the MD5 of the bytes received).
        var etags: [Int: String] = [:]
        var completed = false
        var fileID: String
    }

    let baseURL = "http://fake"
    let log: SyncLog
    let chunkSize: Int
    let uploads = Mutex<[String: Upload]>([:])
    let files = Mutex<[String: Data]>([:])
    let registered = Mutex<[Int64: EarshotAPI.DeviceRecording]>([:])
    /// register fails with this (a server that is down, or refuses the digest).
    let registerFailure = Mutex<EarshotError?>(nil)
    let puts = Mutex<[Int]>([])
    /// Corrupt the next PUT's stored bytes (a storage fault the ETag check cannot see).
    let corruptNextPut = Mutex(false)

    init(log: SyncLog, chunkSize: Int) {
        self.log = log
        self.chunkSize = chunkSize
    }

    func heldRecordings(serial: String, after: Int64) async throws -> [Int64: EarshotAPI.DeviceRecording] {
        registered.withLock { $0.filter { $0.key > after } }
    }

    func plan(size: Int64, filetype: String) async throws -> EarshotAPI.UploadPlan {
        let id = "upl_\(uploads.withLock { $0.count + 1 })"
        let count = (Int(size) + chunkSize - 1) / chunkSize
        uploads.withLock { $0[id] = Upload(size: Int(size), chunk: chunkSize, fileID: "file_" + id) }
        log.add("plan \(id)")
        return EarshotAPI.UploadPlan(
            fileID: "file_" + id, uploadID: id, chunkSize: chunkSize,
            parts: (1...count).map { .init(partNumber: $0, presignedURL: "mem://\(id)/\($0)") })
    }

    func wifiPlan(serial: String, recording: Int64, size: Int64, filetype: String) async throws
        -> EarshotAPI.UploadPlan
    {
        try await plan(size: size, filetype: filetype)
    }

    func wifiPlans(serial: String, _ recordings: [DeviceUploadPlanRequest]) async throws -> [EarshotAPI.UploadPlan] {
        log.add("plans \(recordings.map { String($0.recordingID) }.joined(separator: ","))")
        var plans: [EarshotAPI.UploadPlan] = []
        for recording in recordings { plans.append(try await plan(size: recording.size, filetype: recording.codec)) }
        return plans
    }

    func status(uploadID: String) async throws -> UploadStatus? {
        uploads.withLock { uploads in
            guard let upload = uploads[uploadID] else { return nil }
            let count = (upload.size + upload.chunk - 1) / upload.chunk
            return UploadStatus(
                uploadID: uploadID, fileID: upload.fileID, filesize: upload.size, filetype: "opus",
                chunkSize: upload.chunk, partCount: count, state: upload.completed ? "completed" : "open",
                parts: upload.parts.keys.sorted().map {
                    .init(partNumber: $0, size: upload.parts[$0]!.count, etag: "\"\(MD5.hex(upload.parts[$0]!))\"")
                },
                pending: (1...count).filter { upload.parts[$0] == nil }.map {
                    .init(partNumber: $0, presignedURL: "mem://\(uploadID)/\($0)")
                })
        }
    }

    func put(_ body: Data, to url: String, part: Int) async throws -> String {
        let path = url.dropFirst("mem://".count).split(separator: "/")
        let id = String(path[0])
        puts.withLock { $0.append(part) }
        try uploads.withLock { uploads in
            guard uploads[id] != nil else { throw EarshotError(.notFound, "no upload \(id)") }
            var stored = body
            let corrupt = corruptNextPut.withLock { flag in
                defer { flag = false }
                return flag
            }
            if corrupt { stored[0] ^= 0xFF }
            uploads[id]!.parts[part] = stored
            uploads[id]!.etags[part] = MD5.hex(body)
        }
        return "\"\(MD5.hex(body))\""
    }

    func complete(fileID: String, uploadID: String, etags: [Int: String], filetype: String) async throws -> String {
        try uploads.withLock { uploads in
            guard var upload = uploads[uploadID] else { throw EarshotError(.notFound, "no upload") }
            let count = (upload.size + upload.chunk - 1) / upload.chunk
            guard etags.count == count, upload.parts.count == count else {
                throw EarshotError(.invalidArgument, "parts missing: \(etags.keys.sorted())")
            }
            for (number, etag) in etags where FilePart.normalize(etag) != upload.etags[number] {
                throw EarshotError(.invalidArgument, "part \(number): wrong ETag")
            }
            upload.completed = true
            uploads[uploadID] = upload
            let file = (1...count).reduce(into: Data()) { $0 += upload.parts[$1]! }
            files.withLock { $0[upload.fileID] = file }
        }
        log.add("complete \(uploadID)")
        return fileID
    }

    func register(_ request: DeviceRecordingRequest, serial: String) async throws -> EarshotAPI.DeviceRecording {
        if let failure = registerFailure.withLock({ $0 }) { throw failure }
        guard let file = files.withLock({ $0[request.fileID] }) else {
            throw EarshotError(.notFound, "no file \(request.fileID)")
        }
        let digest = SHA256.hash([UInt8](file)).map { String(format: "%02x", $0) }.joined()
        guard digest == request.sha256 else {
            throw EarshotError(
                .invalidArgument, "the file's SHA-256 \(digest) is not the device's \(request.sha256)", status: 400)
        }
        let record = registered.withLock { registered in
            if let existing = registered[request.recordingID] { return existing }
            let new = EarshotAPI.DeviceRecording(
                recordingID: request.recordingID, sha256: request.sha256, recordID: "rec_\(request.recordingID)",
                storedAtMs: 0)
            registered[request.recordingID] = new
            return new
        }
        log.add("registered \(request.recordingID)")
        return record
    }
}
