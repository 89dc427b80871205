import EarshotAPI
import EarshotCore
import EarshotCrypto
import EarshotStore
import Foundation

/// The platform's registry of recorder devices (docs/devices.md, "Platform API"): binding a device to one user of
/// one tenant, the secret that lets the server prove ownership for the app, the device's last report and online
/// state, the user's homes, and the device recordings the server holds (``store(for:serial:_:)``).
///
/// Tenancy: a device belongs to exactly one user of one tenant (its serial is the key). Every look-up filters by
/// the caller's tenant, and by its user for a user token; another tenant's or user's serial answers
/// `DEVICE_NOT_FOUND` exactly like an unknown one. Only binding tells that a serial is taken (`BIND_OCCUPIED`), as
/// the device itself would.
///
/// The binding secret is stored as the device answered it (32 bytes), in the metadata store: the server has no
/// key-encryption facility yet, so whoever reads the database can compute proofs (docs/devices.md).
struct DeviceRegistry: Sendable {
    let metadata: any MetadataStore
    let records: RecordsService
    /// A device is online while its last report is at most this old (`device-online-window`).
    let onlineWindow: Duration
    let logger = Logger(label: "devices")
    var now: @Sendable () -> Int64 = JobQueue.wallClock

    /// A half-finished bind (no secret yet) of another user stops blocking the device after this long.
    static let bindingTimeout: Int64 = 600_000
    static let maxNameLength = 64

    var windowMs: Int64 { onlineWindow.milliseconds }

    /// `tenant/user`: the owner string the device stores at bind and names in `authenticate`.
    static func owner(partnerID: String, userID: String) -> String { "\(partnerID)/\(userID)" }

    // MARK: Bind

    /// Starts (or repeats) binding `request.serial` to the caller's user. Returns the device and whether it was
    /// registered now.
    ///
    /// - Throws: `BIND_OCCUPIED` when another user (of any tenant) holds the device.
    func bind(for caller: Principal, _ request: DeviceBindRequest) async throws -> (device: Device, created: Bool) {
        let userID = try Self.user(of: caller, requested: request.userID)
        let serial = try Self.serial(request.serial)
        let model = try Self.label(request.model, field: "model")
        let firmware = try Self.label(request.firmware, field: "firmware")
        let name = try request.name.map { try Self.label($0, field: "name") }
        let partnerID = caller.partnerID
        let at = now()
        let created = try await metadata.write { db -> Bool in
            let current = try Self.ensureUser(db, partnerID: partnerID, userID: userID, at: at)
            let homeID = try request.homeID.map { try Self.home(db, $0, partnerID: partnerID, userID: userID) }
            if let existing = try db.queryFirst(
                "SELECT partner_id, user_id, state, updated_at FROM devices WHERE serial = ?", serial)
            {
                let sameUser =
                    try existing.decode("partner_id", as: String.self) == partnerID
                    && existing.decode("user_id", as: String.self) == userID
                if sameUser {
                    // The same user again (the device was reset, or the app retried): idempotent.
                    try db.execute(
                        "UPDATE devices SET model = ?, firmware = ?, name = COALESCE(?, name), "
                            + "home_id = COALESCE(?, home_id), updated_at = ? WHERE serial = ?",
                        model, firmware, name, homeID, at, serial)
                    return false
                }
                let stale =
                    try existing.decode("state", as: String.self) == DeviceState.binding.rawValue
                    && at - existing.decode("updated_at", as: Int64.self) > Self.bindingTimeout
                guard stale else {
                    throw PlatformError.bindOccupied(
                        "device \(serial) is bound to another account; unbind it there first (or reset the device)")
                }
                try db.execute("DELETE FROM devices WHERE serial = ?", serial)
            }
            try db.execute(
                "INSERT INTO devices (serial, partner_id, user_id, home_id, name, model, firmware, state, bound_at, "
                    + "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'binding', ?, ?)",
                serial, partnerID, userID, homeID ?? current, name ?? Self.defaultName(model: model, serial: serial),
                model, firmware, at, at)
            return true
        }
        if created { logger.info("device binding", metadata: ["serial": serial, "partner": partnerID]) }
        return (try await detail(for: caller, serial: serial), created)
    }

    /// Finishes binding: keeps the 32-byte secret the device answered; the device is bound from now on.
    func setSecret(for caller: Principal, serial: String, _ request: DeviceSecretRequest) async throws -> Device {
        let device = try await row(for: caller, serial: serial)
        guard let secret = Data(base64Encoded: request.secret), secret.count == 32 else {
            let count = Data(base64Encoded: request.secret)?.count
            throw PlatformError.invalidArgument(
                "secret must be the base64 of exactly the 32 bytes the device answered to bind ("
                    + (count.map { "got \($0) bytes" } ?? "not base64") + ")")
        }
        let at = now()
        try await metadata.write { db in
            try db.execute(
                "UPDATE devices SET secret = ?, state = 'bound', bound_at = ?, updated_at = ? WHERE serial = ?",
                [.blob(Array(secret)), .integer(at), .integer(at), .text(device.serial)])
        }
        logger.notice("device bound", metadata: ["serial": device.serial, "partner": device.partnerID])
        return try await detail(for: caller, serial: serial)
    }

    /// The device's proof for a session challenge: HMAC-SHA256(secret, challenge), what the device's
    /// `authenticate` checks, with the owner string to send beside it.
    func proof(for caller: Principal, serial: String, _ request: DeviceProofRequest) async throws -> DeviceProof {
        let device = try await row(for: caller, serial: serial)
        guard device.isBound, let secret = device.secret else {
            throw PlatformError.conflict(
                "device \(device.serial) is not bound yet: PUT the secret it answered to bind first")
        }
        guard let challenge = Data(base64Encoded: request.challenge), challenge.count == 16 else {
            throw PlatformError.invalidArgument(
                "challenge must be the base64 of the 16-byte challenge of the device's hello answer")
        }
        let proof = HMAC.authenticationCode(.sha256, key: secret, message: Array(challenge))
        return DeviceProof(owner: device.owner, proof: Data(proof.bytes).base64EncodedString())
    }

    // MARK: Status

    /// Records what the device reported (through the app): its battery and storage, and firmware when newer. The
    /// device is online from now until the window passes.
    func report(for caller: Principal, serial: String, _ request: DeviceStatusReport) async throws -> Device {
        let device = try await row(for: caller, serial: serial)
        let report = request.report
        guard (0...100).contains(report.battery) else {
            throw PlatformError.invalidArgument("report.battery must be a percentage, 0-100 (got \(report.battery))")
        }
        guard report.storageTotal >= 0, report.storageUsed >= 0, report.storageUsed <= report.storageTotal else {
            throw PlatformError.invalidArgument(
                "report.storage_used (\(report.storageUsed)) must be between 0 and report.storage_total "
                    + "(\(report.storageTotal))")
        }
        guard report.recordingCount >= 0 else {
            throw PlatformError.invalidArgument("report.recording_count must not be negative")
        }
        let firmware = try request.firmware.map { try Self.label($0, field: "firmware") }
        let json = try RecordsService.json(report)
        let at = now()
        try await metadata.write { db in
            try db.execute(
                "UPDATE devices SET report = ?, last_seen_at = ?, firmware = COALESCE(?, firmware), updated_at = ? "
                    + "WHERE serial = ?", json, at, firmware, at, device.serial)
        }
        return try await detail(for: caller, serial: serial)
    }

    // MARK: Read

    func detail(for caller: Principal, serial: String) async throws -> Device {
        try await row(for: caller, serial: serial).wire(now: now(), window: windowMs)
    }

    /// The caller's devices (a partner token: every device of its tenant, or of `userID`), optionally of one home.
    func list(for caller: Principal, userID: String?, homeID: String?) async throws -> DeviceList {
        let user = caller.userID ?? userID
        let rows = try await metadata.read { db in
            try db.query(
                "SELECT \(DeviceRow.columns) FROM \(DeviceRow.from) WHERE d.partner_id = ? "
                    + "AND (? IS NULL OR d.user_id = ?) AND (? IS NULL OR d.home_id = ?) "
                    + "ORDER BY d.bound_at, d.serial",
                [
                    .text(caller.partnerID), user.sqlValue, user.sqlValue, homeID.sqlValue, homeID.sqlValue,
                ]
            ).map { try $0.decode(DeviceRow.self) }
        }
        let at = now()
        return DeviceList(devices: rows.map { $0.wire(now: at, window: windowMs) })
    }

    // MARK: Update

    func update(for caller: Principal, serial: String, _ request: DeviceUpdateRequest) async throws -> Device {
        guard
            request.name != nil || request.homeID != nil || request.autoTranscribe != nil
                || request.autoSummarize != nil || request.language != nil || request.transcriptionModel != nil
                || request.followDefaults == true
        else {
            throw PlatformError.invalidArgument(
                "nothing to update: send name, home_id, auto_transcribe, auto_summarize, language, "
                    + "transcription_model or follow_defaults: true")
        }
        let device = try await row(for: caller, serial: serial)
        let name = try request.name.map { try Self.label($0, field: "name") }
        let language = try request.language.map(Self.settingLanguage)
        let model = try request.transcriptionModel.map(Self.settingModel)
        let at = now()
        try await metadata.write { db in
            let homeID = try request.homeID.map {
                try Self.home(db, $0, partnerID: device.partnerID, userID: device.userID)
            }
            if request.followDefaults == true {
                try db.execute(
                    "UPDATE devices SET auto_transcribe = NULL, auto_summarize = NULL, language = NULL, "
                        + "transcription_model = NULL WHERE serial = ?", device.serial)
            }
            try db.execute(
                "UPDATE devices SET name = COALESCE(?, name), home_id = COALESCE(?, home_id), "
                    + "auto_transcribe = COALESCE(?, auto_transcribe), auto_summarize = COALESCE(?, auto_summarize), "
                    + "language = COALESCE(?, language), transcription_model = COALESCE(?, transcription_model), "
                    + "updated_at = ? WHERE serial = ?",
                name, homeID, request.autoTranscribe, request.autoSummarize, language, model, at, device.serial)
        }
        return try await detail(for: caller, serial: serial)
    }

    /// Removes the device from the registry (unbound). The records of its synced recordings stay; so does the
    /// list of what was synced, so the same user binding it again does not sync them twice.
    func remove(for caller: Principal, serial: String, cleared: Bool) async throws {
        let device = try await row(for: caller, serial: serial)
        try await metadata.write { db in try db.execute("DELETE FROM devices WHERE serial = ?", device.serial) }
        logger.notice(
            "device removed", metadata: ["serial": device.serial, "partner": device.partnerID, "cleared": "\(cleared)"])
    }

    /// Deletes everything the registry keeps about a user (inside the caller's transaction): its devices (free to
    /// bind again), homes, defaults and the list of its synced recordings. Its records are the library's to delete.
    static func forget(_ db: any SQLDatabase, partnerID: String, userID: String) throws {
        for table in ["devices", "homes", "device_users", "device_recordings"] {
            try db.execute("DELETE FROM \(table) WHERE partner_id = ? AND user_id = ?", partnerID, userID)
        }
    }

    // MARK: Helpers

    /// The device `serial` if `caller` may see it; otherwise `DEVICE_NOT_FOUND`, exactly like an unknown serial.
    func row(for caller: Principal, serial: String) async throws -> DeviceRow {
        guard Self.isValidSerial(serial),
            let row = try await metadata.read({ db in
                try db.queryFirst(
                    "SELECT \(DeviceRow.columns) FROM \(DeviceRow.from) WHERE d.serial = ? AND d.partner_id = ? "
                        + "AND (? IS NULL OR d.user_id = ?)",
                    serial, caller.partnerID, caller.userID, caller.userID
                ).map { try $0.decode(DeviceRow.self) }
            })
        else {
            throw PlatformError.deviceNotFound(
                "no device \(serial.prefix(64)); bind it first (POST /open/partner/devices)")
        }
        return row
    }

    /// The user `caller` acts for: a user token's own, or the `user_id` a partner token names (required).
    static func user(of caller: Principal, requested: String?) throws -> String {
        if let own = caller.userID {
            if let requested, requested != own {
                throw PlatformError.invalidArgument("user_id comes from the user token; omit it")
            }
            return own
        }
        guard let requested else {
            throw PlatformError.invalidArgument(
                "user_id is required with a partner token: devices and homes belong to one of your users")
        }
        guard TokenService.isValidUserID(requested) else {
            throw PlatformError.invalidArgument(
                "user_id must be 1-128 characters of letters, digits and . _ @ : - (got \(requested.count) characters)")
        }
        return requested
    }

    /// A serial: 1-64 of ASCII letters, digits and `-_.:` (what `source: device:<serial>` allows).
    static func isValidSerial(_ serial: String) -> Bool {
        (1...64).contains(serial.utf8.count)
            && serial.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                    UInt8(ascii: ":"):
                    true
                default: false
                }
            }
    }

    static func serial(_ serial: String) throws -> String {
        guard isValidSerial(serial) else {
            throw PlatformError.invalidArgument(
                "serial must be 1-64 characters of letters, digits and - _ . : (the serial of the device's hello)")
        }
        return serial
    }

    /// A display label (name, model, firmware): trimmed, 1-64 characters, no control characters.
    static func label(_ value: String, field: String) throws -> String {
        // Lengths in Unicode scalars, as JSON Schema's maxLength counts them.
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, value.unicodeScalars.count <= maxNameLength,
            !value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else {
            throw PlatformError.invalidArgument(
                "\(field) must be 1-\(maxNameLength) characters without control characters")
        }
        return trimmed
    }

    /// `ES1 9C4F`: the model and the serial's last four characters.
    static func defaultName(model: String, serial: String) -> String {
        String(String.UnicodeScalarView("\(model) \(serial.suffix(4))".unicodeScalars.prefix(maxNameLength)))
    }
}
