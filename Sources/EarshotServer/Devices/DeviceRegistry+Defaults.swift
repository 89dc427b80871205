import EarshotAPI
import EarshotCore
import EarshotStore

/// A user's device defaults: what the user's devices do with a synced recording — transcribe it (on), summarise it
/// (off), in which language (`auto`: detect) and with which speech tier (`asr-fast`) — unless a device has its own
/// setting (`PATCH /devices/{serial}`), which wins. Kept in the user's `device_users` row, made on first use.
extension DeviceRegistry {
    /// The defaults of the caller's user (a partner token names it with `requested`).
    ///
    /// - Throws: `INVALID_ARGUMENT` when a partner token names no valid user, or a user token another user.
    func defaults(for caller: Principal, userID requested: String?) async throws -> DeviceDefaults {
        let userID = try Self.user(of: caller, requested: requested)
        let (partnerID, at) = (caller.partnerID, now())
        return try await metadata.write { db in
            _ = try Self.ensureUser(db, partnerID: partnerID, userID: userID, at: at)
            return try Self.defaults(db, partnerID: partnerID, userID: userID)
        }
    }

    /// Changes what the request sends of the user's defaults; devices with their own setting keep it.
    ///
    /// - Throws: `INVALID_ARGUMENT` for an empty request, an unknown language or speech tier, or a user the caller
    ///   may not act for.
    func updateDefaults(for caller: Principal, _ request: DeviceDefaultsUpdateRequest) async throws -> DeviceDefaults {
        let userID = try Self.user(of: caller, requested: request.userID)
        guard
            request.autoTranscribe != nil || request.autoSummarize != nil || request.language != nil
                || request.transcriptionModel != nil
        else {
            throw PlatformError.invalidArgument(
                "nothing to update: send auto_transcribe, auto_summarize, language or transcription_model")
        }
        let language = try request.language.map(Self.settingLanguage)
        let model = try request.transcriptionModel.map(Self.settingModel)
        let (partnerID, at) = (caller.partnerID, now())
        let defaults = try await metadata.write { db in
            _ = try Self.ensureUser(db, partnerID: partnerID, userID: userID, at: at)
            try db.execute(
                "UPDATE device_users SET auto_transcribe = COALESCE(?, auto_transcribe), "
                    + "auto_summarize = COALESCE(?, auto_summarize), language = COALESCE(?, language), "
                    + "transcription_model = COALESCE(?, transcription_model) WHERE partner_id = ? AND user_id = ?",
                request.autoTranscribe, request.autoSummarize, language, model, partnerID, userID)
            return try Self.defaults(db, partnerID: partnerID, userID: userID)
        }
        logger.info(
            "device defaults changed",
            metadata: [
                "partner": partnerID, "user": userID, "auto_transcribe": "\(defaults.autoTranscribe)",
                "auto_summarize": "\(defaults.autoSummarize)", "language": defaults.language,
                "transcription_model": defaults.transcriptionModel,
            ])
        return defaults
    }

    /// The user's row as `DeviceDefaults` (it exists: see ``ensureUser(_:partnerID:userID:at:)``).
    static func defaults(_ db: any SQLDatabase, partnerID: String, userID: String) throws -> DeviceDefaults {
        guard
            let row = try db.queryFirst(
                "SELECT auto_transcribe, auto_summarize, language, transcription_model FROM device_users "
                    + "WHERE partner_id = ? AND user_id = ?", partnerID, userID)
        else { throw PlatformError.notFound("no device defaults for user \(userID.prefix(64))") }
        return DeviceDefaults(
            userID: userID, autoTranscribe: try row.decode("auto_transcribe", as: Int64.self) != 0,
            autoSummarize: try row.decode("auto_summarize", as: Int64.self) != 0,
            language: try row.decode("language", as: String?.self) ?? "auto",
            transcriptionModel: try row.decode("transcription_model", as: String?.self) ?? autoModel)
    }

    /// A language setting: `auto` (detect) or a language the speech engine knows, lowercased.
    static func settingLanguage(_ value: String) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "auto" { return trimmed }
        guard !trimmed.isEmpty, let known = try RecordsService.language(trimmed) else {
            throw PlatformError.invalidArgument("language must be an ISO code such as en or zh, or auto to detect it")
        }
        return known
    }

    /// A speech tier setting: one the transcription service offers (`asr-fast`, `asr-pro`).
    static func settingModel(_ value: String) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        try TranscriptionService.validateModel(trimmed)
        return trimmed
    }
}
