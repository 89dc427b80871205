import EarshotAPI
import EarshotStore
import Foundation

/// A row of `devices` joined with its user's registry defaults (``DeviceRegistry``).
struct DeviceRow: Sendable, Decodable {
    let serial: String
    let partnerID: String
    let userID: String
    let homeID: String
    let name: String
    let model: String
    let firmware: String
    let state: String
    let secret: [UInt8]?
    /// The device's own setting, else the user's, else on.
    let autoTranscribe: Bool
    /// The device's own setting, else the user's, else off.
    let autoSummarize: Bool
    /// The device's own setting, else the user's, else `auto` (detect).
    let language: String
    /// The device's own setting, else the user's, else `asr-fast`.
    let transcriptionModel: String
    let reportJSON: String?
    let lastSeenAt: Int64?
    let boundAt: Int64

    /// The columns, from `devices d LEFT JOIN device_users u` (see ``from``).
    static let columns =
        "d.serial, d.partner_id, d.user_id, d.home_id, d.name, d.model, d.firmware, d.state, d.secret, "
        + "COALESCE(d.auto_transcribe, u.auto_transcribe, 1) AS auto_transcribe, "
        + "COALESCE(d.auto_summarize, u.auto_summarize, 0) AS auto_summarize, "
        + "COALESCE(d.language, u.language, 'auto') AS language, "
        + "COALESCE(d.transcription_model, u.transcription_model, '\(DeviceRegistry.autoModel)') AS transcription_model, "
        + "d.report, d.last_seen_at, d.bound_at"

    /// The tables ``columns`` read.
    static let from =
        "devices d LEFT JOIN device_users u ON u.partner_id = d.partner_id AND u.user_id = d.user_id"

    enum CodingKeys: String, CodingKey {
        case serial, name, model, firmware, state, secret, language
        case transcriptionModel = "transcription_model"
        case partnerID = "partner_id"
        case userID = "user_id"
        case homeID = "home_id"
        case autoTranscribe = "auto_transcribe"
        case autoSummarize = "auto_summarize"
        case reportJSON = "report"
        case lastSeenAt = "last_seen_at"
        case boundAt = "bound_at"
    }

    var isBound: Bool { state == DeviceState.bound.rawValue }

    /// The opaque owner string the device stores: `tenant/user`.
    var owner: String { DeviceRegistry.owner(partnerID: partnerID, userID: userID) }

    /// Whether the device reported within `window` before `now` (Unix ms).
    func isOnline(now: Int64, window: Int64) -> Bool {
        guard let lastSeenAt else { return false }
        return now - lastSeenAt <= window
    }

    func wire(now: Int64, window: Int64) -> Device {
        Device(
            serial: serial, name: name, model: model, firmware: firmware,
            state: DeviceState(rawValue: state) ?? .binding,
            homeID: homeID, userID: userID, owner: owner, online: isOnline(now: now, window: window),
            lastSeenMs: lastSeenAt,
            report: reportJSON.flatMap { try? JSONDecoder().decode(DeviceReport.self, from: Data($0.utf8)) },
            autoTranscribe: autoTranscribe, autoSummarize: autoSummarize, boundAtMs: boundAt, language: language,
            transcriptionModel: transcriptionModel)
    }
}

/// A row of `device_recordings`.
struct DeviceRecordingRow: Sendable, Decodable {
    let recordingID: Int64
    let sha256: String
    let recordID: String
    let storedAt: Int64

    static let columns = "recording_id, sha256, record_id, stored_at"

    enum CodingKeys: String, CodingKey {
        case sha256
        case recordingID = "recording_id"
        case recordID = "record_id"
        case storedAt = "stored_at"
    }

    var wire: DeviceRecording {
        DeviceRecording(recordingID: recordingID, sha256: sha256, recordID: recordID, storedAtMs: storedAt)
    }
}
