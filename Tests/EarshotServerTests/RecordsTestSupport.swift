import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

extension TestPlatform {
    /// Uploads `audio` (default: JFK's 11 s WAV) with `token` and creates a record of it with `fields`.
    func createRecord(
        token: String, audio: Data? = nil, _ fields: [String: Any] = [:]
    ) async throws -> RecordDetail {
        let upload = try await upload(audio ?? TestAudio.jfk(), token: token)
        var body = fields
        body["file_id"] = upload.fileID
        let response = try await send("POST", APIPath.records, token: token, json: body)
        try #require(response.status == 201, "\(response.text)")
        return try response.decode(RecordDetail.self)
    }

    func recordPath(_ path: String, _ id: String, task: String? = nil) -> String {
        APIPath.filled(path, ["record_id": id, "task_id": task ?? ""])
    }

    /// Polls a record task until it is final (or `timeout` passes).
    func waitForRecordTask(
        _ recordID: String, _ taskID: String, token: String, timeout: Duration = .seconds(240)
    ) async throws -> RecordTask {
        let deadline = ContinuousClock.now + timeout
        while true {
            let response = try await send("GET", recordPath(APIPath.recordTask, recordID, task: taskID), token: token)
            try #require(response.status == 200, "\(response.text)")
            let task = try response.decode(RecordTask.self)
            if task.status.isFinal { return task }
            guard ContinuousClock.now < deadline else {
                Issue.record("record task \(taskID) still \(task.status) after \(timeout)")
                return task
            }
            try await Task.sleep(for: .milliseconds(150))
        }
    }

    /// Every file under the blob directory (relative paths), or every key of the S3 bucket.
    func blobFiles() async throws -> [String] {
        // An S3 bucket: its keys.
        if configuration.blobStore != nil {
            return try await Application.openBlobStore(configuration).list(prefix: "").map(\.rawValue)
        }
        let root = configuration.resolvedBlobDirectory
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(path)
            }
        }
        return files
    }
}
