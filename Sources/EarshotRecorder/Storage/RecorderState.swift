internal import EarshotCrypto
internal import EarshotDevice

/// A recorder's identity: what `hello` and `info` report and what is printed on its label.
public struct RecorderIdentity: Codable, Hashable, Sendable {
    /// Unique serial number.
    public var serial: String
    /// Hardware model.
    public var model: String
    /// Firmware version.
    public var firmware: String
    /// Bytes of storage for recordings.
    public var capacity: UInt64

    /// An identity; the default model and firmware are the simulator's.
    public init(
        serial: String, model: String = "Earshot S1 (simulated)", firmware: String = "1.0.0",
        capacity: UInt64 = 64 << 20
    ) {
        self.serial = serial
        self.model = model
        self.firmware = firmware
        self.capacity = capacity
    }
}

/// What a recorder keeps across restarts besides its recordings (`state.json` in its directory).
struct RecorderState: Codable, Sendable {
    /// The owner a bind set, and the binding secret (hex) that authenticates it.
    struct Binding: Codable, Sendable {
        var owner: String
        var secret: String
    }

    var identity: RecorderIdentity
    var binding: Binding?
    /// The next recording id (ids are never reused on a device).
    var nextRecordingID: UInt32 = 1
    /// The one-time code an unbound device shows; nil while bound.
    var bindCode: String?
    var batteryPercent: UInt8 = 100
    /// The recording being written, and when it started: what recovery needs of a kill mid-recording.
    var inProgress: InProgress?

    struct InProgress: Codable, Sendable {
        var id: UInt32
        var startedAtMs: UInt64
    }
}

/// One recording's metadata as stored next to it (`recordings/NNNNNNNN.json`).
struct StoredRecording: Codable, Sendable {
    var id: UInt32
    var startedAtMs: UInt64
    var durationMs: UInt32
    var size: UInt64
    var codec: UInt8
    var sha256: String

    init(_ recording: DeviceRecording) {
        id = recording.id
        startedAtMs = recording.startedAtMs
        durationMs = recording.durationMs
        size = recording.size
        codec = recording.codec.rawValue
        sha256 = Digest(bytes: recording.sha256).hex
    }

    var recording: DeviceRecording? {
        guard let codec = AudioCodec(rawValue: codec), let digest = Digest(hex: sha256)?.bytes, digest.count == 32
        else {
            return nil
        }
        return DeviceRecording(
            id: id, startedAtMs: startedAtMs, durationMs: durationMs, size: size, codec: codec, sha256: digest)
    }
}
