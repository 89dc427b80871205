import EarshotAPI
import EarshotKit
import Foundation

/// Seed 001 with a recorder: bind the card (once), sync its recordings with progress, and print each one's
/// transcript as the platform finishes it (the device's recordings are transcribed automatically).
struct DeviceFlow {
    let client: EarshotClient
    let arguments: Arguments

    func run(serial: String) async throws {
        let transport = StreamDeviceTransport(
            directory: arguments.deviceDirectory ?? StreamDeviceTransport.defaultDirectory())
        let devices = DeviceManager(
            client: client,
            configuration: .init(
                transport: transport,
                stateDirectory: arguments.journal ?? DeviceManager.defaultStateDirectory, clientName: "app-flow"))
        let device = try await devices.find(serial)

        // 1. Bind with the code the card shows (a second run, already bound, skips this).
        if let code = arguments.code {
            let bound = try await devices.bind(device, code: code)
            say("bound \(bound.serial) (\(bound.name)) in home \(bound.homeID)")
        }
        // 2. Its recordings become records and are transcribed as they arrive.
        _ = try await devices.registry.update(serial, DeviceUpdateRequest(autoTranscribe: true))

        // 3. Sync with progress; 4. wait for each synced recording's transcript while the next one syncs.
        let records = RecordsClient(client: client)
        let sync = devices.sync(device)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let summary = try await sync.run()
                say("synced \(summary.synced.count) recordings in \(String(format: "%.1f", summary.seconds)) s")
            }
            var lastLine = 0.0
            for await event in sync.events {
                switch event {
                case .progress(let progress):
                    let now = ProcessInfo.processInfo.systemUptime
                    guard now - lastLine >= 1 || progress.completedBytes == progress.totalBytes else { continue }
                    lastLine = now
                    var line = "sync \(Int(progress.fractionCompleted * 100))% (\(progress.completedBytes)/"
                        + "\(progress.totalBytes) bytes, \(progress.completedRecordings)/\(progress.totalRecordings))"
                    if let left = progress.secondsLeft { line += ", \(Int(left.rounded(.up))) s left" }
                    say(line)
                case .synced(let recording):
                    say("recording \(recording.id) → \(recording.recordID), freed on the device")
                    group.addTask { try await Self.printTranscript(of: recording, records: records) }
                case .failed(let id, let error):
                    say("recording \(id) kept on the device: \(error.message)")
                case .storage(let alert):
                    say("device storage \(alert.percent)%" + (alert.full ? ": full, recording stopped" : ""))
                case .batteryLow(let percent):
                    say("device battery low: \(percent)%")
                case .recorded:
                    break
                }
            }
            try await group.waitForAll()
        }
    }

    /// Polls the record until its transcript is there (or its transcription failed), then prints it.
    static func printTranscript(of recording: SyncedRecording, records: RecordsClient) async throws {
        let deadline = Date().addingTimeInterval(900)
        while Date() < deadline {
            let detail = try await records.get(recording.recordID)
            if let transcript = detail.transcript {
                say("transcript of recording \(recording.id) (\(recording.recordID)):")
                for sentence in transcript.sentences {
                    let seconds = sentence.startMs / 1000
                    say(String(format: "[%02d:%02d] ", seconds / 60, seconds % 60) + sentence.text)
                }
                return
            }
            if let failed = detail.tasks.first(where: { $0.status == .failure }) {
                say("recording \(recording.id): transcription failed: \(failed.error ?? "unknown")")
                return
            }
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        say("recording \(recording.id): no transcript after 15 minutes")
    }
}
