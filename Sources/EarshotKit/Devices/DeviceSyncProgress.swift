/// How far a device sync is, overall and for the recording in progress.
///
/// Bytes count what the server holds plus what the app has read of the part in progress, so a resumed sync starts
/// where the last one stopped. Times left come from this run's rate (nil until it is known).
public struct DeviceSyncProgress: Sendable, Hashable {
    /// The recording being synced.
    public struct Recording: Sendable, Hashable {
        /// The device's id for it.
        public var id: UInt32
        /// Its size in bytes.
        public var size: Int64
        /// Bytes read from the device or stored on the server so far.
        public var completedBytes: Int64
        /// Seconds until this recording is synced at the current rate.
        public var secondsLeft: Double?
        /// True when the device uploads it itself over Wi-Fi.
        public var viaWiFi: Bool

        public init(id: UInt32, size: Int64, completedBytes: Int64, secondsLeft: Double?, viaWiFi: Bool) {
            self.id = id
            self.size = size
            self.completedBytes = completedBytes
            self.secondsLeft = secondsLeft
            self.viaWiFi = viaWiFi
        }

        /// `completedBytes / size`, 0…1.
        public var fractionCompleted: Double { size == 0 ? 1 : min(1, Double(completedBytes) / Double(size)) }
    }

    /// The recording in progress (nil between recordings).
    public var current: Recording?
    /// Bytes of the whole backlog done (synced recordings and the current one's progress).
    public var completedBytes: Int64
    /// Bytes of the whole backlog at the start of the sync.
    public var totalBytes: Int64
    /// Recordings synced and acknowledged.
    public var completedRecordings: Int
    /// Recordings in the backlog.
    public var totalRecordings: Int
    /// This run's transfer rate in bytes per second.
    public var bytesPerSecond: Double?
    /// Seconds until the backlog is synced at this rate.
    public var secondsLeft: Double?

    public init(
        current: Recording?, completedBytes: Int64, totalBytes: Int64, completedRecordings: Int,
        totalRecordings: Int, bytesPerSecond: Double?, secondsLeft: Double?
    ) {
        self.current = current
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.completedRecordings = completedRecordings
        self.totalRecordings = totalRecordings
        self.bytesPerSecond = bytesPerSecond
        self.secondsLeft = secondsLeft
    }

    /// `completedBytes / totalBytes`, 0…1.
    public var fractionCompleted: Double {
        totalBytes == 0 ? 1 : min(1, Double(completedBytes) / Double(totalBytes))
    }
}

/// A recording the server holds (digest checked) and the device has freed.
public struct SyncedRecording: Sendable, Hashable {
    /// The device's id for it.
    public var id: UInt32
    /// The record it became.
    public var recordID: String
    /// SHA-256, lowercase hex: the device's, equal to the stored file's.
    public var sha256: String
    public var size: Int64
    public var durationMs: Int
    /// When it started recording (Unix ms, the device's clock).
    public var startedAtMs: Int64
    /// Bytes the device freed on acknowledgement (0 when an earlier run's acknowledgement had freed it).
    public var freedBytes: Int64
    /// True when this run continued an earlier, interrupted sync of it.
    public var resumed: Bool
    /// True when the device uploaded it itself over Wi-Fi.
    public var viaWiFi: Bool

    public init(
        id: UInt32, recordID: String, sha256: String, size: Int64, durationMs: Int, startedAtMs: Int64,
        freedBytes: Int64, resumed: Bool, viaWiFi: Bool
    ) {
        self.id = id
        self.recordID = recordID
        self.sha256 = sha256
        self.size = size
        self.durationMs = durationMs
        self.startedAtMs = startedAtMs
        self.freedBytes = freedBytes
        self.resumed = resumed
        self.viaWiFi = viaWiFi
    }
}

/// The device's storage crossed a level (80, 90, 95 %) or is full: sync soon, or it stops recording.
public struct StorageAlert: Sendable, Hashable {
    /// 80, 90 or 95; 100 when full.
    public var percent: Int
    public var usedBytes: Int64
    public var totalBytes: Int64
    /// The device stopped (or refused) a recording for lack of space.
    public var full: Bool

    public init(percent: Int, usedBytes: Int64, totalBytes: Int64, full: Bool) {
        self.percent = percent
        self.usedBytes = usedBytes
        self.totalBytes = totalBytes
        self.full = full
    }
}

/// What a sync reports while it runs (``DeviceSync/events``).
public enum DeviceSyncEvent: Sendable {
    /// Bytes moved (at most a few per second, and at every part and recording boundary).
    case progress(DeviceSyncProgress)
    /// A recording is on the server and freed on the device.
    case synced(SyncedRecording)
    /// A recording could not be synced this time; it stays on the device and the sync goes on with the next.
    case failed(recording: UInt32, EarshotError)
    /// The device's storage is filling up.
    case storage(StorageAlert)
    /// The device's battery is low (percent).
    case batteryLow(percent: Int)
    /// A recording the device finished while connected (it joins the next sync).
    case recorded(id: UInt32, durationMs: Int, size: Int64)
}

/// What a finished sync did.
public struct DeviceSyncSummary: Sendable, Hashable {
    /// Recordings synced and freed, in order.
    public var synced: [SyncedRecording]
    /// Recordings that failed (they stay on the device), with the reason.
    public var failed: [UInt32: String]
    /// Bytes this run read over the device link (BLE), excluding what the device uploaded over Wi-Fi.
    public var bytesOverLink: Int64
    /// Bytes the device uploaded over Wi-Fi.
    public var bytesOverWiFi: Int64
    /// Seconds the sync ran, excluding pauses.
    public var seconds: Double

    public init(
        synced: [SyncedRecording], failed: [UInt32: String], bytesOverLink: Int64, bytesOverWiFi: Int64,
        seconds: Double
    ) {
        self.synced = synced
        self.failed = failed
        self.bytesOverLink = bytesOverLink
        self.bytesOverWiFi = bytesOverWiFi
        self.seconds = seconds
    }
}
