/// What a client says in `hello`: the protocol versions it speaks, the largest frame its link carries and the time.
public struct HelloRequest: Hashable, Sendable {
    /// Oldest protocol version the client speaks.
    public var minimumVersion: UInt8
    /// Newest protocol version the client speaks.
    public var maximumVersion: UInt8
    /// The largest frame the client's link carries (BLE: ATT MTU − 3).
    public var maximumFrameSize: UInt16
    /// The client's clock (Unix time, ms): a device without a battery-backed clock sets its own from it.
    public var clockMs: UInt64
    /// Who is connecting (an app name), for the device's log.
    public var client: String

    public init(
        minimumVersion: UInt8 = 1, maximumVersion: UInt8 = 1, maximumFrameSize: UInt16, clockMs: UInt64,
        client: String
    ) {
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.maximumFrameSize = maximumFrameSize
        self.clockMs = clockMs
        self.client = client
    }
}

/// The device's answer to `hello`.
public struct HelloReply: Hashable, Sendable {
    /// The protocol version both sides now speak.
    public var version: UInt8
    /// The frame size both sides now use (the smaller of the two sides' limits).
    public var maximumFrameSize: UInt16
    /// The device's serial number (unique, printed on the device).
    public var serial: String
    /// The hardware model.
    public var model: String
    /// The firmware version.
    public var firmware: String
    /// Whether the device is bound to an owner.
    public var bound: Bool
    /// 16 random bytes for this session; `authenticate` proves the binding secret against them.
    public var challenge: [UInt8]

    public init(
        version: UInt8, maximumFrameSize: UInt16, serial: String, model: String, firmware: String, bound: Bool,
        challenge: [UInt8]
    ) {
        self.version = version
        self.maximumFrameSize = maximumFrameSize
        self.serial = serial
        self.model = model
        self.firmware = firmware
        self.bound = bound
        self.challenge = challenge
    }
}

/// Battery, storage and state, as the device reports them.
public struct DeviceStatus: Hashable, Sendable {
    /// Battery charge, 0–100 %.
    public var batteryPercent: UInt8
    /// Whether it is charging.
    public var charging: Bool
    /// Bytes of storage in use (recordings not yet freed).
    public var storageUsed: UInt64
    /// Bytes of storage in all.
    public var storageTotal: UInt64
    /// Recordings on the device.
    public var recordingCount: UInt32
    /// Whether the device is bound to an owner.
    public var bound: Bool
    /// Whether it is recording now.
    public var recording: Bool

    public init(
        batteryPercent: UInt8, charging: Bool, storageUsed: UInt64, storageTotal: UInt64, recordingCount: UInt32,
        bound: Bool, recording: Bool
    ) {
        self.batteryPercent = batteryPercent
        self.charging = charging
        self.storageUsed = storageUsed
        self.storageTotal = storageTotal
        self.recordingCount = recordingCount
        self.bound = bound
        self.recording = recording
    }
}

/// One recording on the device: what `list` returns and what the platform checks after a sync.
public struct DeviceRecording: Hashable, Sendable {
    /// The device's id for it (increasing; never reused on that device).
    public var id: UInt32
    /// When recording started (Unix time, ms, by the device's clock).
    public var startedAtMs: UInt64
    /// Its length in milliseconds.
    public var durationMs: UInt32
    /// Its size in bytes (what `read` serves).
    public var size: UInt64
    /// How it is encoded.
    public var codec: AudioCodec
    /// SHA-256 of its bytes: the end-to-end check, and the key of `acknowledge`.
    public var sha256: [UInt8]

    public init(
        id: UInt32, startedAtMs: UInt64, durationMs: UInt32, size: UInt64, codec: AudioCodec, sha256: [UInt8]
    ) {
        self.id = id
        self.startedAtMs = startedAtMs
        self.durationMs = durationMs
        self.size = size
        self.codec = codec
        self.sha256 = sha256
    }

    /// The SHA-256 as 64 lowercase hex digits (how the platform names digests).
    public var sha256Hex: String { sha256.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// A page of `list`.
public struct RecordingPage: Hashable, Sendable {
    /// Recordings with ids above the request's `after`, oldest first.
    public var recordings: [DeviceRecording]
    /// Whether more follow (ask again with `after` = the last id).
    public var more: Bool

    public init(recordings: [DeviceRecording], more: Bool) {
        self.recordings = recordings
        self.more = more
    }
}

/// A piece of a recording: the answer to `read`, one chunk per frame.
public struct RecordingChunk: Hashable, Sendable {
    /// The recording.
    public var recording: UInt32
    /// Where `bytes` start in it.
    public var offset: UInt64
    /// Whether this is the last chunk of the read (the requested length, or the recording's end, was reached).
    public var final: Bool
    /// The bytes.
    public var bytes: [UInt8]

    public init(recording: UInt32, offset: UInt64, final: Bool, bytes: [UInt8]) {
        self.recording = recording
        self.offset = offset
        self.final = final
        self.bytes = bytes
    }

    /// Header bytes a chunk spends before its data: recording id, offset, final flag.
    public static let headerSize = 13
}

/// Wi-Fi handover: where a device uploads one recording itself, part by part (presigned PUT URLs), and until when.
public struct UploadPlan: Hashable, Sendable {
    /// One presigned PUT of a byte range.
    public struct Part: Hashable, Sendable {
        /// The part number (1-based), echoed in `uploadFinished` with its ETag.
        public var number: UInt16
        /// First byte of the range.
        public var offset: UInt64
        /// Bytes in the range.
        public var length: UInt32
        /// The presigned URL to PUT them to.
        public var url: String

        public init(number: UInt16, offset: UInt64, length: UInt32, url: String) {
            self.number = number
            self.offset = offset
            self.length = length
            self.url = url
        }
    }

    /// The recording to upload.
    public var recording: UInt32
    /// When the URLs expire (Unix time, ms).
    public var expiresAtMs: UInt64
    /// The parts, covering the recording.
    public var parts: [Part]

    /// Plans in one `upload batch` message at most.
    public static let batchLimit = 16

    public init(recording: UInt32, expiresAtMs: UInt64, parts: [Part]) {
        self.recording = recording
        self.expiresAtMs = expiresAtMs
        self.parts = parts
    }
}

/// What the device reports unasked.
public enum DeviceEvent: Hashable, Sendable {
    /// A recording started (its id).
    case recordingStarted(id: UInt32)
    /// A recording ended and is listed from now on.
    case recordingStopped(DeviceRecording)
    /// Storage crossed 80, 90 or 95 % (the level crossed, bytes used and total).
    case storageLevel(percent: UInt8, used: UInt64, total: UInt64)
    /// Storage is full: recording stopped or was refused. Audio is never dropped silently.
    case storageFull(used: UInt64, total: UInt64)
    /// Battery is low (its charge).
    case batteryLow(percent: UInt8)
    /// Wi-Fi upload progress of a recording.
    case uploadProgress(recording: UInt32, sent: UInt64, total: UInt64)
    /// Every part of a Wi-Fi upload was stored; the ETags, by part number, complete the upload.
    case uploadFinished(recording: UInt32, etags: [UInt16: String])
    /// A Wi-Fi upload failed (why); the app falls back to reading over BLE or hands over a new plan.
    case uploadFailed(recording: UInt32, reason: String)
}

/// Start or stop.
public enum RecordAction: UInt8, Sendable {
    case start = 1
    case stop = 2
}
