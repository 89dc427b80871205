import EarshotDevice
import Foundation

/// One sync of a device: ``run()`` does the work in the calling task; ``events`` reports progress, finished
/// recordings, failures and the device's storage and battery alerts.
///
/// Run it once; consume ``events`` from another task (it ends when ``run()`` returns). ``pause()`` stops after the
/// read window in flight and ``resume()`` continues; cancelling the running task stops at once and keeps the
/// journal, so the next sync of the device continues where this one stopped.
public final class DeviceSync: Sendable {
    /// The device being synced.
    public let device: DiscoveredDevice
    /// What happens, in order; ends when ``run()`` returns or throws.
    public let events: AsyncStream<DeviceSyncEvent>

    private let manager: DeviceManager
    private let continuation: AsyncStream<DeviceSyncEvent>.Continuation
    private let gate = PauseGate()
    private let started = Locked(false)

    init(manager: DeviceManager, device: DiscoveredDevice) {
        self.manager = manager
        self.device = device
        (events, continuation) = AsyncStream.makeStream(of: DeviceSyncEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    deinit { continuation.finish() }

    /// Pauses after the read window in flight (a Wi-Fi upload the device is doing goes on).
    public func pause() { gate.pause() }

    /// Continues a paused sync.
    public func resume() { gate.resume() }

    /// Whether the sync is paused.
    public var isPaused: Bool { gate.isPaused }

    /// Connects, proves ownership, reports the device's status, and syncs every recording on it, oldest first.
    ///
    /// A recording whose digest the server refuses is reported (``DeviceSyncEvent/failed(recording:_:)``), kept on
    /// the device, and skipped; a lost link or an unreachable server ends the run with the error (sync again to
    /// continue from the journal).
    ///
    /// - Throws: ``EarshotError`` (`DEVICE`, `NETWORK`, the server's codes) or `CancellationError`.
    public func run() async throws -> DeviceSyncSummary {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { throw EarshotError(.invalidArgument, "DeviceSync.run() may be called only once") }
        defer { continuation.finish() }
        let session = try await manager.open(device)
        defer { session.connection.close() }
        try await manager.authenticate(session)
        if let status = try? await manager.deviceStatus(session) {
            _ = try? await manager.registry.report(
                .init(report: DeviceManager.report(status)), serial: session.hello.serial)
            let percent = status.storageTotal == 0 ? 100 : Int(status.storageUsed * 100 / status.storageTotal)
            if percent >= 80 {
                continuation.yield(
                    .storage(
                        StorageAlert(
                            percent: percent >= 95 ? 95 : percent >= 90 ? 90 : 80, usedBytes: Int64(status.storageUsed),
                            totalBytes: Int64(status.storageTotal), full: false)))
            }
        }
        let wifi = WiFiUploads()
        var options = DeviceSyncEngine.Options(stateDirectory: manager.stateDirectory)
        options.window = UInt32(manager.configuration.readWindow)
        options.wifi = manager.configuration.wifi
        let engine = DeviceSyncEngine(
            device: session.device, platform: PlatformSync(client: manager.client), options: options,
            events: continuation, gate: gate, wifiState: wifi)
        let deviceEvents = session.connection.events
        let continuation = self.continuation
        return try await withThrowingTaskGroup(of: DeviceSyncSummary?.self) { group in
            group.addTask {
                for await event in deviceEvents {
                    Self.forward(event, to: continuation, wifi: wifi)
                }
                return nil
            }
            group.addTask { try await engine.run() }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let summary = result { return summary }
            }
            throw CancellationError()
        }
    }

    /// A device event as what the app sees (alerts) or what the Wi-Fi step waits for.
    static func forward(
        _ event: EarshotDevice.DeviceEvent, to events: AsyncStream<DeviceSyncEvent>.Continuation, wifi: WiFiUploads
    ) {
        switch event {
        case .storageLevel(let percent, let used, let total):
            events.yield(
                .storage(StorageAlert(percent: Int(percent), usedBytes: Int64(used), totalBytes: Int64(total), full: false)))
        case .storageFull(let used, let total):
            events.yield(.storage(StorageAlert(percent: 100, usedBytes: Int64(used), totalBytes: Int64(total), full: true)))
        case .batteryLow(let percent):
            events.yield(.batteryLow(percent: Int(percent)))
        case .recordingStopped(let recording):
            events.yield(.recorded(id: recording.id, durationMs: Int(recording.durationMs), size: Int64(recording.size)))
        case .recordingStarted:
            break
        case .uploadProgress(let recording, let sent, _):
            wifi.progress(recording, sent: sent)
        case .uploadFinished(let recording, let etags):
            wifi.finished(recording, etags: etags)
        case .uploadFailed(let recording, let reason):
            wifi.failed(recording, reason: reason)
        }
    }
}
