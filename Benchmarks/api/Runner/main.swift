// Benchmarks/api/run's client: drives a running `earshot serve` through EarshotKit, the way an app and a partner
// backend do, and prints one machine-readable line per measurement.
//
//   earshot-bench-api upload  BASE CLIENT_ID SECRET FILE PARALLEL   → "upload <bytes> <seconds> <parts> <parts s>"
//   earshot-bench-api task    BASE CLIENT_ID SECRET CLIP            → "task <task_id>" (a finished task, for wrk)
//   earshot-bench-api latency BASE CLIENT_ID SECRET CLIP MODEL RUNS → "latency <task ms>… | sync <openai ms>…"
//
// Latency is measured from the moment complete-upload returned (the app reports the file) to the poll that sees
// SUCCESS, with 20 ms polls; its peer is the synchronous OpenAI-compatible call on the same clip and model.
import EarshotAPI
import EarshotKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("earshot-bench-api: \(message)\n".utf8))
    exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 5, let base = URL(string: arguments[1]) else {
    fail("usage: earshot-bench-api upload|task|latency BASE CLIENT_ID SECRET FILE [PARALLEL | MODEL RUNS]")
}
let tokens = PartnerTokenClient(baseURL: base, clientID: arguments[2], clientSecret: arguments[3])
let file = URL(fileURLWithPath: arguments[4])
let clock = ContinuousClock()
let state = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bench-api-\(UUID())")
defer { try? FileManager.default.removeItem(at: state) }

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Uploads `file` as an app would (user token, FileUploader); returns the result, the total time and the time
/// until the last part was on the server (the rest is complete-upload: ETag checks and assembly).
func upload(parallel: Int) async throws -> (UploadResult, Duration, Duration) {
    let app = EarshotClient(baseURL: base, token: try await tokens.userToken(for: "bench-user").accessToken)
    let uploader = FileUploader(
        client: app, configuration: .init(maxConcurrentParts: parallel, stateDirectory: state))
    let upload = try uploader.prepare(fileAt: file)
    let start = clock.now
    async let result = upload.run()
    var partsDone = start
    for await progress in upload.progress where progress.completedBytes == progress.totalBytes {
        partsDone = clock.now
    }
    let finished = try await result
    return (finished, clock.now - start, partsDone - start)
}

let partner = TranscriptionClient(client: EarshotClient(baseURL: base, tokenProvider: tokens.provider))
let fastPolls = PollPolicy(
    initialInterval: .milliseconds(20), maximumInterval: .milliseconds(20), multiplier: 1, timeout: .seconds(600))

do {
    switch arguments[0] {
    case "upload":
        guard arguments.count == 6, let parallel = Int(arguments[5]), parallel > 0 else {
            fail("upload needs PARALLEL")
        }
        let (result, elapsed, parts) = try await upload(parallel: parallel)
        print(
            "upload \(result.size) \(milliseconds(elapsed) / 1000) \(result.partsSent) \(milliseconds(parts) / 1000)")

    case "task":
        let (result, _, _) = try await upload(parallel: 1)
        let task = try await partner.create(.init(fileURL: result.fileID, model: "asr-fast"))
        _ = try await partner.wait(for: task.taskID, policy: fastPolls)
        print("task \(task.taskID)")

    case "latency":
        guard arguments.count == 7, let runs = Int(arguments[6]), runs > 0 else { fail("latency needs MODEL RUNS") }
        let model = arguments[5]
        var tasks: [Double] = []
        var sync: [Double] = []
        for _ in 0..<runs {
            let (result, _, _) = try await upload(parallel: 1)
            let start = clock.now
            let task = try await partner.create(.init(fileURL: result.fileID, model: model))
            _ = try await partner.wait(for: task.taskID, policy: fastPolls)
            tasks.append(milliseconds(clock.now - start))

            let syncStart = clock.now
            _ = try await partner.transcribe(fileAt: file, model: model)
            sync.append(milliseconds(clock.now - syncStart))
        }
        print("latency " + tasks.map { String(format: "%.1f", $0) }.joined(separator: " "))
        print("sync " + sync.map { String(format: "%.1f", $0) }.joined(separator: " "))

    default:
        fail("unknown command \(arguments[0]); use upload, task or latency")
    }
} catch {
    FileHandle.standardError.write(Data("earshot-bench-api: \(error)\n".utf8))
    exit(1)
}
