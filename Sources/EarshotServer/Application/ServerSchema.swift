import EarshotAccounts
public import EarshotStore

/// The server's database schema: every feature's tables, listed in dependency order (a component may refer to the
/// tables of those before it). Each feature declares its component next to its code; add a new feature's here.
public enum ServerSchema {
    public static let components: [SchemaComponent] = [
        StoreSchema.settings,
        PartnerDirectory.schema,
        APIKeys.schema,
        Keyring.schema,
        UploadService.schema,
        JobQueue.schema,
        RecordsService.schema,
        // Before the transcriptions: their library migration copies results into records through
        // `RecordTasks.applyFinal`, which looks for device recordings.
        DeviceRegistry.schema,
        TranscriptionService.schema,
        Webhooks.schema,
        VoiceprintService.schema,
        AccountDirectory.schema,
        EvaluationService.schema,
    ]
}
