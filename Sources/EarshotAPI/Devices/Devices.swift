/// A place devices are grouped in (seed 000: a user's homes, one of them current).
public struct Home: Codable, Sendable, Hashable {
    public var homeID: String
    public var name: String
    public var current: Bool
    public var deviceCount: Int

    public init(homeID: String, name: String, current: Bool, deviceCount: Int) {
        self.homeID = homeID
        self.name = name
        self.current = current
        self.deviceCount = deviceCount
    }

    enum CodingKeys: String, CodingKey {
        case name, current
        case homeID = "home_id"
        case deviceCount = "device_count"
    }
}

/// `GET /open/partner/homes`.
public struct HomeList: Codable, Sendable, Hashable {
    public var homes: [Home]

    public init(homes: [Home]) {
        self.homes = homes
    }
}

/// `POST /open/partner/homes`.
public struct HomeCreateRequest: Codable, Sendable, Hashable {
    public var name: String
    /// Partner tokens only: the user the home belongs to.
    public var userID: String?

    public init(name: String, userID: String? = nil) {
        self.name = name
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case name
        case userID = "user_id"
    }
}

/// `PATCH /open/partner/homes/{home_id}`.
public struct HomeUpdateRequest: Codable, Sendable, Hashable {
    public var name: String?
    /// `true` makes this the user's current home.
    public var current: Bool?

    public init(name: String? = nil, current: Bool? = nil) {
        self.name = name
        self.current = current
    }
}

/// A device's binding state in the registry.
public enum DeviceState: String, Codable, Sendable, Hashable {
    /// The platform answered an owner; the device has not yet returned its secret.
    case binding
    /// Bound: the server holds the device's secret.
    case bound
}

/// What a device last reported over its link (through the app).
public struct DeviceReport: Codable, Sendable, Hashable {
    /// Percent, 0–100.
    public var battery: Int
    public var charging: Bool
    public var storageUsed: Int64
    public var storageTotal: Int64
    public var recordingCount: Int
    /// Whether it is recording now.
    public var recording: Bool

    public init(
        battery: Int, charging: Bool, storageUsed: Int64, storageTotal: Int64, recordingCount: Int, recording: Bool
    ) {
        self.battery = battery
        self.charging = charging
        self.storageUsed = storageUsed
        self.storageTotal = storageTotal
        self.recordingCount = recordingCount
        self.recording = recording
    }

    enum CodingKeys: String, CodingKey {
        case battery, charging, recording
        case storageUsed = "storage_used"
        case storageTotal = "storage_total"
        case recordingCount = "recording_count"
    }
}

/// A device in the registry (`GET /open/partner/devices/{serial}`).
public struct Device: Codable, Sendable, Hashable {
    public var serial: String
    public var name: String
    public var model: String
    public var firmware: String
    public var state: DeviceState
    public var homeID: String
    public var userID: String?
    /// The opaque owner string the device stores at bind (`tenant/user`).
    public var owner: String
    /// Reported within the last `online_window` (a link session is open).
    public var online: Bool
    public var lastSeenMs: Int64?
    /// The last status report, if any.
    public var report: DeviceReport?
    /// Device setting, else the user's: transcribe each synced recording.
    public var autoTranscribe: Bool
    /// Also summarise once transcribed.
    public var autoSummarize: Bool
    /// Device setting, else the user's: the language of its recordings (an ISO code such as `en`), or `auto` to
    /// detect it.
    public var language: String
    /// Device setting, else the user's: the speech tier of its automatic transcriptions (`asr-fast`, `asr-pro`).
    public var transcriptionModel: String
    public var boundAtMs: Int64

    public init(
        serial: String, name: String, model: String, firmware: String, state: DeviceState, homeID: String,
        userID: String?, owner: String, online: Bool, lastSeenMs: Int64?, report: DeviceReport?,
        autoTranscribe: Bool, autoSummarize: Bool, boundAtMs: Int64, language: String = "auto",
        transcriptionModel: String = "asr-fast"
    ) {
        self.language = language
        self.transcriptionModel = transcriptionModel
        self.serial = serial
        self.name = name
        self.model = model
        self.firmware = firmware
        self.state = state
        self.homeID = homeID
        self.userID = userID
        self.owner = owner
        self.online = online
        self.lastSeenMs = lastSeenMs
        self.report = report
        self.autoTranscribe = autoTranscribe
        self.autoSummarize = autoSummarize
        self.boundAtMs = boundAtMs
    }

    enum CodingKeys: String, CodingKey {
        case serial, name, model, firmware, state, owner, online, report
        case homeID = "home_id"
        case userID = "user_id"
        case lastSeenMs = "last_seen_ms"
        case autoTranscribe = "auto_transcribe"
        case autoSummarize = "auto_summarize"
        case language
        case transcriptionModel = "transcription_model"
        case boundAtMs = "bound_at_ms"
    }
}

/// `GET /open/partner/devices`.
public struct DeviceList: Codable, Sendable, Hashable {
    public var devices: [Device]

    public init(devices: [Device]) {
        self.devices = devices
    }
}

/// `POST /open/partner/devices`: start binding the device the app found (its `hello` answer).
///
/// Binding the same device to the same user again is idempotent (a new bind after the device was reset).
public struct DeviceBindRequest: Codable, Sendable, Hashable {
    public var serial: String
    public var model: String
    public var firmware: String
    /// Display name; defaults to the model and the serial's last four characters.
    public var name: String?
    /// Defaults to the user's current home.
    public var homeID: String?
    /// Partner tokens only: the user the device is bound to.
    public var userID: String?

    public init(
        serial: String, model: String, firmware: String, name: String? = nil, homeID: String? = nil,
        userID: String? = nil
    ) {
        self.serial = serial
        self.model = model
        self.firmware = firmware
        self.name = name
        self.homeID = homeID
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case serial, model, firmware, name
        case homeID = "home_id"
        case userID = "user_id"
    }
}

/// `PUT /open/partner/devices/{serial}/secret`: the 32-byte binding secret the device answered, base64.
public struct DeviceSecretRequest: Codable, Sendable, Hashable {
    public var secret: String

    public init(secret: String) {
        self.secret = secret
    }
}

/// `POST /open/partner/devices/{serial}/proof`: the 16-byte challenge from the device's `hello`, base64.
public struct DeviceProofRequest: Codable, Sendable, Hashable {
    public var challenge: String

    public init(challenge: String) {
        self.challenge = challenge
    }
}

/// The answer to `DeviceProofRequest`: the owner and HMAC-SHA256(secret, challenge), base64, for `authenticate`.
public struct DeviceProof: Codable, Sendable, Hashable {
    public var owner: String
    public var proof: String

    public init(owner: String, proof: String) {
        self.owner = owner
        self.proof = proof
    }
}

/// `POST /open/partner/devices/{serial}/status`: the device's `info` answer, relayed by the app.
public struct DeviceStatusReport: Codable, Sendable, Hashable {
    public var report: DeviceReport
    /// When the app saw a newer firmware in `hello`.
    public var firmware: String?

    public init(report: DeviceReport, firmware: String? = nil) {
        self.report = report
        self.firmware = firmware
    }
}

/// `PATCH /open/partner/devices/{serial}`: what is sent changes; the device's own settings win over the user's
/// defaults (``DeviceDefaults``).
public struct DeviceUpdateRequest: Codable, Sendable, Hashable {
    public var name: String?
    public var homeID: String?
    public var autoTranscribe: Bool?
    public var autoSummarize: Bool?
    /// An ISO language code, or `auto` to detect it.
    public var language: String?
    /// `asr-fast` or `asr-pro`.
    public var transcriptionModel: String?
    /// `true` forgets the device's own automatic-task settings first, so it follows the user's defaults again
    /// (settings sent in the same request are then applied).
    public var followDefaults: Bool?

    public init(
        name: String? = nil, homeID: String? = nil, autoTranscribe: Bool? = nil, autoSummarize: Bool? = nil,
        language: String? = nil, transcriptionModel: String? = nil, followDefaults: Bool? = nil
    ) {
        self.name = name
        self.homeID = homeID
        self.autoTranscribe = autoTranscribe
        self.autoSummarize = autoSummarize
        self.language = language
        self.transcriptionModel = transcriptionModel
        self.followDefaults = followDefaults
    }

    enum CodingKeys: String, CodingKey {
        case name, language
        case homeID = "home_id"
        case autoTranscribe = "auto_transcribe"
        case autoSummarize = "auto_summarize"
        case transcriptionModel = "transcription_model"
        case followDefaults = "follow_defaults"
    }
}

/// `GET`/`PATCH /open/partner/device-defaults`: what a user's devices do with their synced recordings unless a
/// device has its own setting.
public struct DeviceDefaults: Codable, Sendable, Hashable {
    public var userID: String
    /// Transcribe each synced recording (default on).
    public var autoTranscribe: Bool
    /// Summarise it once transcribed (default off).
    public var autoSummarize: Bool
    /// The recordings' language (an ISO code such as `en`), or `auto` to detect it (default).
    public var language: String
    /// The speech tier of the automatic transcriptions: `asr-fast` (default) or `asr-pro`.
    public var transcriptionModel: String

    public init(
        userID: String, autoTranscribe: Bool, autoSummarize: Bool, language: String, transcriptionModel: String
    ) {
        self.userID = userID
        self.autoTranscribe = autoTranscribe
        self.autoSummarize = autoSummarize
        self.language = language
        self.transcriptionModel = transcriptionModel
    }

    enum CodingKeys: String, CodingKey {
        case language
        case userID = "user_id"
        case autoTranscribe = "auto_transcribe"
        case autoSummarize = "auto_summarize"
        case transcriptionModel = "transcription_model"
    }
}

/// `PATCH /open/partner/device-defaults`: what is sent changes (at least one setting).
public struct DeviceDefaultsUpdateRequest: Codable, Sendable, Hashable {
    public var autoTranscribe: Bool?
    public var autoSummarize: Bool?
    /// An ISO language code, or `auto` to detect it.
    public var language: String?
    /// `asr-fast` or `asr-pro`.
    public var transcriptionModel: String?
    /// Partner tokens only: the user whose defaults change.
    public var userID: String?

    public init(
        autoTranscribe: Bool? = nil, autoSummarize: Bool? = nil, language: String? = nil,
        transcriptionModel: String? = nil, userID: String? = nil
    ) {
        self.autoTranscribe = autoTranscribe
        self.autoSummarize = autoSummarize
        self.language = language
        self.transcriptionModel = transcriptionModel
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case language
        case autoTranscribe = "auto_transcribe"
        case autoSummarize = "auto_summarize"
        case transcriptionModel = "transcription_model"
        case userID = "user_id"
    }
}

/// `POST /open/partner/devices/{serial}/recordings`: a recording the app (or the device over Wi-Fi) uploaded.
public struct DeviceRecordingRequest: Codable, Sendable, Hashable {
    /// The device's recording id.
    public var recordingID: Int64
    public var startedAtMs: Int64
    public var durationMs: Int64
    public var size: Int64
    /// `opus` (Ogg Opus) or `wav`.
    public var codec: String
    /// The device's SHA-256 of the recording, lowercase hex; must equal the uploaded file's.
    public var sha256: String
    /// The `FileId` complete-upload returned.
    public var fileID: String

    public init(
        recordingID: Int64, startedAtMs: Int64, durationMs: Int64, size: Int64, codec: String, sha256: String,
        fileID: String
    ) {
        self.recordingID = recordingID
        self.startedAtMs = startedAtMs
        self.durationMs = durationMs
        self.size = size
        self.codec = codec
        self.sha256 = sha256
        self.fileID = fileID
    }

    enum CodingKeys: String, CodingKey {
        case size, codec, sha256
        case recordingID = "recording_id"
        case startedAtMs = "started_at_ms"
        case durationMs = "duration_ms"
        case fileID = "file_id"
    }
}

/// A device recording the server holds: stored once, with its digest checked. The app acknowledges it to the
/// device only after receiving this.
public struct DeviceRecording: Codable, Sendable, Hashable {
    public var recordingID: Int64
    public var sha256: String
    public var recordID: String
    public var storedAtMs: Int64

    public init(recordingID: Int64, sha256: String, recordID: String, storedAtMs: Int64) {
        self.recordingID = recordingID
        self.sha256 = sha256
        self.recordID = recordID
        self.storedAtMs = storedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case sha256
        case recordingID = "recording_id"
        case recordID = "record_id"
        case storedAtMs = "stored_at_ms"
    }
}

/// `GET /open/partner/devices/{serial}/recordings`: oldest device id first.
public struct DeviceRecordingList: Codable, Sendable, Hashable {
    public var recordings: [DeviceRecording]
    public var more: Bool

    public init(recordings: [DeviceRecording], more: Bool) {
        self.recordings = recordings
        self.more = more
    }
}

/// `POST /open/partner/devices/{serial}/upload-plan`: plan the device's own Wi-Fi upload of one recording.
public struct DeviceUploadPlanRequest: Codable, Sendable, Hashable {
    public var recordingID: Int64
    public var size: Int64
    /// `opus` or `wav`: the file type of the upload.
    public var codec: String

    public init(recordingID: Int64, size: Int64, codec: String) {
        self.recordingID = recordingID
        self.size = size
        self.codec = codec
    }

    enum CodingKeys: String, CodingKey {
        case size, codec
        case recordingID = "recording_id"
    }
}

/// `POST /open/partner/devices/{serial}/upload-plans`: plan the device's own Wi-Fi uploads of several recordings in
/// one call (each as in `upload-plan`; different recordings, at most ``limit``).
public struct DeviceUploadPlansRequest: Codable, Sendable, Hashable {
    /// Plans in one request at most (what one `upload batch` message of the device protocol holds).
    public static let limit = 16

    public var recordings: [DeviceUploadPlanRequest]

    public init(recordings: [DeviceUploadPlanRequest]) {
        self.recordings = recordings
    }
}

/// The answer to `POST …/upload-plans`: one plan per requested recording, in the request's order.
public struct DeviceUploadPlans: Codable, Sendable, Hashable {
    /// A recording's plan.
    public struct Entry: Codable, Sendable, Hashable {
        public var recordingID: Int64
        public var plan: UploadPlan

        public init(recordingID: Int64, plan: UploadPlan) {
            self.recordingID = recordingID
            self.plan = plan
        }

        enum CodingKeys: String, CodingKey {
            case plan
            case recordingID = "recording_id"
        }
    }

    public var plans: [Entry]

    public init(plans: [Entry]) {
        self.plans = plans
    }
}
