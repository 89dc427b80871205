/// The stable set of error codes on the wire (`{"error":{"code":"UNAUTHORIZED",…}}`).
///
/// Clients (the SDK, the seeds' apps) switch on these strings; never rename one. New codes may be added, so a
/// client must treat an unknown code like ``internal``. The server maps every error to one of these in a single
/// table (`EarshotServer/Errors/ErrorTable.swift`).
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The request is malformed: bad JSON, a missing or invalid field, a wrong file type (400).
    public static let invalidArgument = ErrorCode(rawValue: "INVALID_ARGUMENT")
    /// No credentials, or a token/signature that is expired, forged or otherwise invalid (401).
    public static let unauthorized = ErrorCode(rawValue: "UNAUTHORIZED")
    /// Valid credentials that may not do this (a user token calling a partner-only API; an expired or
    /// tampered presigned URL) (403).
    public static let forbidden = ErrorCode(rawValue: "FORBIDDEN")
    /// An admin route (`/open/admin/…`) called with anything but the instance owner's account session: another
    /// account's session, a partner or user token, an API key (403).
    public static let ownerRequired = ErrorCode(rawValue: "OWNER_REQUIRED")
    /// No such resource for this caller — also what another tenant's ids look like (404).
    public static let notFound = ErrorCode(rawValue: "NOT_FOUND")
    /// The method is not served on this path (405).
    public static let methodNotAllowed = ErrorCode(rawValue: "METHOD_NOT_ALLOWED")
    /// The request conflicts with the current state (idempotency key reused with another body…) (409).
    public static let conflict = ErrorCode(rawValue: "CONFLICT")
    /// A body's bytes are not what the client's checksum header (`x-amz-checksum-crc32`/`-sha256`) says: damaged on the
    /// way, and not stored; send it again (400).
    public static let badDigest = ErrorCode(rawValue: "BAD_DIGEST")
    /// The body is larger than this route accepts (413).
    public static let payloadTooLarge = ErrorCode(rawValue: "PAYLOAD_TOO_LARGE")
    /// Too many requests; retry after the `Retry-After` header (429).
    public static let rateLimited = ErrorCode(rawValue: "RATE_LIMITED")
    /// The device is already bound to another user (409).
    public static let bindOccupied = ErrorCode(rawValue: "BIND_OCCUPIED")
    /// No device with that serial/id for this caller (404).
    public static let deviceNotFound = ErrorCode(rawValue: "DEVICE_NOT_FOUND")
    /// The operation needs the device present (a Wi-Fi upload plan) and it has not reported lately (409).
    public static let deviceOffline = ErrorCode(rawValue: "DEVICE_OFFLINE")
    /// Bluetooth is off or unauthorised on the client (client-side only; never sent by the server).
    public static let bleUnavailable = ErrorCode(rawValue: "BLE_UNAVAILABLE")
    /// A dependency is temporarily unavailable; retry later (503).
    public static let unavailable = ErrorCode(rawValue: "UNAVAILABLE")
    /// A task's output failed its quality gate (a translation in the wrong language, looping, or describing itself
    /// instead of translating); the message says what to configure. Only in a failed task's `error_code`.
    public static let lowQualityOutput = ErrorCode(rawValue: "LOW_QUALITY_OUTPUT")
    /// A task needs something the server is not configured with (a language model for translations); the message
    /// names the setting. Only in a failed task's `error_code`.
    public static let notConfigured = ErrorCode(rawValue: "NOT_CONFIGURED")
    /// A task's input cannot be processed (undecodable audio, a record without a transcript). Only in a failed
    /// task's `error_code`.
    public static let invalidInput = ErrorCode(rawValue: "INVALID_INPUT")
    /// The server's disk is full: nothing can be stored until its operator frees space; retry later (507).
    public static let insufficientStorage = ErrorCode(rawValue: "INSUFFICIENT_STORAGE")
    /// The request URI is too long, or its query has too many parameters (414).
    public static let uriTooLong = ErrorCode(rawValue: "URI_TOO_LONG")
    /// An unexpected server fault; the message carries the request id (500).
    public static let `internal` = ErrorCode(rawValue: "INTERNAL")
}
