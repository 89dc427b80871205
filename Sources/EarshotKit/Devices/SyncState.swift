import Foundation

/// Pauses a sync between read windows (and between recordings) until resumed.
final class PauseGate: Sendable {
    private struct State {
        var paused = false
        var pausedAt: TimeInterval?
        var pausedTotal: TimeInterval = 0
    }
    private let state = Locked(State())

    func pause() {
        state.withLock {
            guard !$0.paused else { return }
            $0.paused = true
            $0.pausedAt = ProcessInfo.processInfo.systemUptime
        }
    }

    func resume() {
        state.withLock {
            guard $0.paused else { return }
            $0.paused = false
            if let at = $0.pausedAt { $0.pausedTotal += ProcessInfo.processInfo.systemUptime - at }
            $0.pausedAt = nil
        }
    }

    var isPaused: Bool { state.withLock { $0.paused } }

    /// Seconds spent paused so far.
    var pausedSeconds: TimeInterval {
        state.withLock { $0.pausedTotal + ($0.pausedAt.map { ProcessInfo.processInfo.systemUptime - $0 } ?? 0) }
    }

    /// Returns at once unless paused; then waits (cancellably) until resumed.
    func wait() async throws {
        while isPaused {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        try Task.checkCancellation()
    }
}

/// What the device reported about its Wi-Fi uploads, by recording: fed from the device's events, read by the sync,
/// which waits for the next change (``change(of:after:timeoutSeconds:)``) instead of polling, so a small recording's
/// upload is seen finished the moment its event arrives.
final class WiFiUploads: Sendable {
    struct Upload: Sendable {
        var sent: UInt64 = 0
        var finished: [UInt16: String]?
        var failed: String?
        /// Bumped by every report.
        var version = 0
    }
    private struct State {
        var uploads: [UInt32: Upload] = [:]
        var waiters: [UInt64: (recording: UInt32, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter: UInt64 = 0
    }
    private let state = Locked(State())

    func start(_ recording: UInt32) {
        update(recording) { $0 = Upload(version: $0.version + 1) }
    }

    func state(of recording: UInt32) -> Upload {
        state.withLock { $0.uploads[recording] ?? Upload() }
    }

    func progress(_ recording: UInt32, sent: UInt64) {
        update(recording) { $0.sent = sent }
    }

    func finished(_ recording: UInt32, etags: [UInt16: String]) {
        update(recording) { $0.finished = etags }
    }

    func failed(_ recording: UInt32, reason: String) {
        update(recording) { $0.failed = reason }
    }

    /// Returns once `recording`'s state is newer than `version`, or after `timeoutSeconds`, or when cancelled.
    func change(of recording: UInt32, after version: Int, timeoutSeconds: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForVersion(of: recording, after: version) }
            group.addTask { try? await Task.sleep(nanoseconds: UInt64(max(timeoutSeconds, 0) * 1_000_000_000)) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForVersion(of recording: UInt32, after version: Int) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || (state.uploads[recording]?.version ?? 0) > version { return true }
                    state.waiters[id] = (recording, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    private func update(_ recording: UInt32, _ change: (inout Upload) -> Void) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            var upload = state.uploads[recording] ?? Upload()
            change(&upload)
            upload.version += 1
            state.uploads[recording] = upload
            let ids = state.waiters.filter { $0.value.recording == recording }.map(\.key)
            return ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in woken { continuation.resume() }
    }
}

/// Progress bookkeeping: the backlog's bytes, this run's transfer rate, times left. Several recordings may be in
/// progress at once (one moving, others being finished).
final class RateMeter: Sendable {
    private struct Active {
        var size: Int64
        var done: Int64
        var wifi: Bool
    }
    private struct State {
        var total: Int64
        var count: Int
        /// Bytes of recordings finished (or skipped).
        var finishedBytes: Int64 = 0
        var finishedCount = 0
        /// Recordings in progress and their bytes done.
        var active: [UInt32: Active] = [:]
        var linkBytes: Int64 = 0
        var wifiBytes: Int64 = 0
        /// Bytes moved this run (link or Wi-Fi), and when the run started moving them.
        var moved: Int64 = 0
        var started = ProcessInfo.processInfo.systemUptime
    }
    private let state: Locked<State>

    init(total: Int64, count: Int) {
        state = Locked(State(total: total, count: count))
    }

    var total: Int64 { state.withLock { $0.total } }
    var linkBytes: Int64 { state.withLock { $0.linkBytes } }
    var wifiBytes: Int64 { state.withLock { $0.wifiBytes } }

    func begin(_ recording: EarshotDeviceRecording, done: Int64, viaWiFi: Bool) {
        state.withLock {
            $0.active[recording.id] = Active(size: Int64(recording.size), done: done, wifi: viaWiFi)
        }
    }

    func advance(_ recording: EarshotDeviceRecording, done: Int64, linkBytes: Int64 = 0, wifiBytes: Int64 = 0) {
        state.withLock {
            let wifi = $0.active[recording.id]?.wifi ?? false
            $0.active[recording.id] = Active(size: Int64(recording.size), done: done, wifi: wifi)
            $0.linkBytes += linkBytes
            $0.wifiBytes += wifiBytes
            $0.moved += linkBytes + wifiBytes
        }
    }

    func finish(_ recording: EarshotDeviceRecording) {
        state.withLock {
            $0.finishedBytes += Int64(recording.size)
            $0.finishedCount += 1
            $0.active[recording.id] = nil
        }
    }

    func skip(_ recording: EarshotDeviceRecording) {
        state.withLock {
            $0.total -= Int64(recording.size)
            $0.count -= 1
            $0.active[recording.id] = nil
        }
    }

    /// The progress now; `current` names the recording in progress.
    func progress(current: EarshotDeviceRecording?) -> DeviceSyncProgress {
        state.withLock { state in
            let now = ProcessInfo.processInfo.systemUptime
            let elapsed = now - state.started
            let rate: Double? = state.moved > 0 && elapsed > 0.2 ? Double(state.moved) / elapsed : nil
            let done = state.finishedBytes + state.active.values.reduce(0) { $0 + $1.done }
            func left(_ bytes: Int64) -> Double? {
                guard let rate, rate > 0 else { return nil }
                return Double(max(bytes, 0)) / rate
            }
            var recording: DeviceSyncProgress.Recording?
            if let current, let active = state.active[current.id] {
                recording = .init(
                    id: current.id, size: active.size, completedBytes: active.done,
                    secondsLeft: left(active.size - active.done), viaWiFi: active.wifi)
            }
            return DeviceSyncProgress(
                current: recording, completedBytes: done, totalBytes: state.total,
                completedRecordings: state.finishedCount, totalRecordings: state.count, bytesPerSecond: rate,
                secondsLeft: left(state.total - done))
        }
    }
}
