public import EarshotAPI
import EarshotAccounts
import EarshotCore
import EarshotNotes
import EarshotStore
public import Foundation

/// The library of a data directory used from the command line, without a server: what `earshot notes add`,
/// `earshot token` and `earshot keys` do locally. It opens the same database and blobs `earshot serve` uses (so it
/// is safe while a server runs on them: SQLite's WAL and the queue's leases arbitrate) and the same services, and
/// runs the jobs it creates itself — never anyone else's.
public struct LocalLibrary: Sendable {
    let services: Services
    let metadata: any MetadataStore

    /// What a note should get.
    public struct NoteRequest: Sendable {
        /// The record's title (default: the file's name).
        public var title: String?
        public var tags: [String]
        /// The speech tier or alias.
        public var model: String
        /// The spoken language, nil to detect it.
        public var language: String?
        /// Label speakers with this template (`Speaker {n}`), nil for no speakers.
        public var speakerLabel: String?
        public var summarize: Bool
        /// Translation targets (ISO 639-1).
        public var translate: [String]
        /// The user who owns the note; nil for the partner.
        public var userID: String?

        public init(
            title: String? = nil, tags: [String] = [], model: String = "asr-fast", language: String? = nil,
            speakerLabel: String? = nil, summarize: Bool = false, translate: [String] = [], userID: String? = nil
        ) {
            self.title = title
            self.tags = tags
            self.model = model
            self.language = language
            self.speakerLabel = speakerLabel
            self.summarize = summarize
            self.translate = translate
            self.userID = userID
        }
    }

    /// Where a note is: which step, and how far that step is (0…1).
    public struct Progress: Sendable {
        public var step: String
        public var fraction: Double
    }

    /// Opens the data directory `configuration` names (creating and migrating its database as `serve` does).
    public static func open(_ configuration: ServerConfiguration) async throws -> LocalLibrary {
        let metadata = try await Application.openMetadataStore(configuration)
        do {
            let blobs = try await Application.openBlobStore(configuration)
            return LocalLibrary(
                services: Services(configuration: configuration, metadata: metadata, blobs: blobs), metadata: metadata)
        } catch {
            await metadata.close()
            throw error
        }
    }

    /// Closes the database.
    public func close() async { await metadata.close() }

    // MARK: Partners and credentials

    /// The id of the partner `nameOrID` names (an id `ptn_…`, or a name), creating a partner of that name when
    /// none exists and `create` is set. Throws 404 otherwise, or when a name is ambiguous.
    public func partner(_ nameOrID: String, create: Bool) async throws -> String {
        let directory = PartnerDirectory(metadata: metadata)
        let partners = try await directory.list()
        if let partner = partners.first(where: { $0.id == nameOrID }) { return partner.id }
        let named = partners.filter { $0.name == nameOrID }
        if named.count == 1 { return named[0].id }
        if named.count > 1 {
            throw PlatformError.invalidArgument(
                "\(named.count) partners are named \"\(nameOrID)\"; pass the id: "
                    + named.map(\.id).joined(separator: ", "))
        }
        guard create else {
            throw PlatformError.notFound(
                "no partner \"\(nameOrID)\" in this data directory; see 'earshot partners list'")
        }
        return try await directory.create(name: nameOrID).partner.id
    }

    /// The ids of the active partners, oldest first — not the accounts' default tenant, which has no credentials
    /// and only holds the accounts that sign up without a partner.
    public func partners() async throws -> [String] {
        try await PartnerDirectory(metadata: metadata).list()
            .filter { $0.isActive && $0.id != AccountDirectory.defaultTenant }.map(\.id)
    }

    /// A partner token, or a user token when `userID` is given, signed with the data directory's keys (valid on any
    /// server using this database). `ttlSeconds` nil: the configured lifetime.
    public func token(partnerID: String, userID: String?, ttlSeconds: Int?) async throws -> TokenResponse {
        guard let partner = try await PartnerDirectory(metadata: metadata).partner(partnerID), partner.isActive
        else { throw PlatformError.notFound("partner \(partnerID) does not exist or is disabled") }
        let tokens = services.tokens
        guard let userID else {
            if let ttlSeconds {
                let cap = Int(tokens.configuration.partnerTokenTTL.components.seconds)
                guard (1...cap).contains(ttlSeconds) else {
                    throw PlatformError.invalidArgument("a partner token lives 1-\(cap) s (partner-token-ttl)")
                }
                let token = try await tokens.sign(
                    subject: partner.id, partner: partner.id, kind: .partner, scopes: [.partner],
                    ttlSeconds: ttlSeconds, generation: partner.generation)
                return TokenResponse(accessToken: token, expiresIn: ttlSeconds)
            }
            return try await tokens.partnerToken(for: partner)
        }
        var caller = Principal(partnerID: partner.id, userID: nil, scopes: [Scope.partner.rawValue], tokenID: "cli")
        caller.generation = partner.generation  // a user token carries its partner's current generation
        return try await tokens.userToken(for: caller, userID: userID, ttlSeconds: ttlSeconds)
    }

    /// Creates an API key of `partnerID` (the key text is shown once).
    public func createKey(partnerID: String, _ request: APIKeyRequest) async throws -> CreatedAPIKey {
        try await services.apiKeys.create(partnerID: partnerID, request)
    }

    /// The partner's API keys, newest first.
    public func keys(partnerID: String) async throws -> [APIKey] {
        try await services.apiKeys.list(partnerID: partnerID)
    }

    /// Revokes an API key of the partner.
    public func revokeKey(partnerID: String, keyID: String) async throws -> APIKey {
        try await services.apiKeys.revoke(partnerID: partnerID, keyID: keyID)
    }

    // MARK: Notes

    /// Adds `file` to the library as a record of `partnerID`, transcribes it (with speakers when asked), then
    /// summarises and translates it, running each job here; reports each step's progress. Returns the record.
    ///
    /// A step that fails ends the note there: the record keeps what was done, and the error (``NoteFailure``)
    /// names the record and the task's code and reason.
    public func addNote(
        _ file: URL, partnerID: String, _ request: NoteRequest, progress: @escaping @Sendable (Progress) -> Void
    ) async throws -> RecordDetail {
        let caller = Principal(
            partnerID: partnerID, userID: request.userID,
            scopes: Set([Scope.partner.rawValue] + Scope.user.map(\.rawValue)), tokenID: "cli")
        let record = try await importFile(file, caller: caller, request)
        let runner = services.runner
        // The built-in language model runs as a child process while this command needs it.
        return try await withThrowingTaskGroup(of: Void.self) { group in
            if let model = services.managedLanguageModel, request.summarize || !request.translate.isEmpty {
                group.addTask { try await model.run() }
            }
            defer { group.cancelAll() }
            var steps: [(String, RecordTaskRequest)] = [
                (
                    "transcribing",
                    RecordTaskRequest(
                        taskType: 0, model: request.model,
                        diarization: request.speakerLabel.map {
                            TranscriptionTaskRequest.Diarization(enabled: true, labelTemplate: $0)
                        })
                )
            ]
            if request.summarize { steps.append(("summarizing", RecordTaskRequest(taskType: 1))) }
            for target in request.translate {
                steps.append(("translating to \(target)", RecordTaskRequest(taskType: 2, targetLanguage: target)))
            }
            for (step, taskRequest) in steps {
                let row = try await services.records.record(for: caller, id: record.record.recordID)
                let task = try await services.records.tasks.create(for: caller, record: row, taskRequest)
                let jobProgress = JobProgress()
                let done = try await withThrowingTaskGroup(of: Job?.self) { watch in
                    watch.addTask { try await runner.drive(task.taskID, progress: jobProgress) }
                    watch.addTask {
                        while true {
                            progress(Progress(step: step, fraction: jobProgress.current.fraction ?? 0))
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                    defer { watch.cancelAll() }
                    return try await watch.next() ?? nil
                }
                progress(Progress(step: step, fraction: 1))
                let final = try await services.records.tasks.task(
                    for: caller, recordID: record.record.recordID, taskID: task.taskID)
                guard done != nil, final.status == .success else {
                    throw NoteFailure(recordID: record.record.recordID, step: step, task: final)
                }
            }
            return try await services.records.detail(for: caller, id: record.record.recordID)
        }
    }

    /// The record as a file (`md`, `txt`, `srt`, `vtt`, `json`), as `GET …/export` renders it.
    public func export(_ recordID: String, partnerID: String, format: String) async throws -> String {
        let caller = Principal(partnerID: partnerID, userID: nil, scopes: [Scope.partner.rawValue], tokenID: "cli")
        let response = try await services.records.export(for: caller, id: recordID, format: format)
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Copies `file` into the blob store and makes it a record.
    private func importFile(_ file: URL, caller: Principal, _ request: NoteRequest) async throws -> RecordDetail {
        let filetype = file.pathExtension.lowercased()
        guard FileTypes.isWellFormed(filetype), services.configuration.uploadFiletypes.contains(filetype) else {
            throw PlatformError.invalidArgument(
                "\(file.lastPathComponent): .\(filetype) is not an accepted audio type ("
                    + services.configuration.uploadFiletypes.sorted().joined(separator: ", ") + ")")
        }
        let spool = URL(fileURLWithPath: services.configuration.resolvedBlobDirectory).appendingPathComponent(".tmp")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let copy = spool.appendingPathComponent("import_" + Identifier.make(prefix: "f"))
        try FileManager.default.copyItem(at: file, to: copy)
        let fileID: String
        do {
            fileID = try await services.uploads.keep(
                movingFile: copy, owner: (caller.partnerID, caller.userID), filetype: filetype,
                originalName: file.lastPathComponent
            ) { _, stored in stored.id }
        } catch {
            try? FileManager.default.removeItem(at: copy)
            throw error
        }
        return try await services.records.create(
            for: caller,
            RecordCreateRequest(
                fileID: fileID, title: request.title ?? file.deletingPathExtension().lastPathComponent,
                tags: request.tags.isEmpty ? nil : request.tags, language: request.language, source: "import"))
    }
}

/// A step of `earshot notes add` that did not succeed: the record, the step, and the task's code and reason.
public struct NoteFailure: Error, CustomStringConvertible {
    public let recordID: String
    public let step: String
    public let task: RecordTask

    public var description: String {
        "\(step) failed" + (task.errorCode.map { " (\($0))" } ?? "") + ": \(task.error ?? "\(task.status)"); "
            + "the record \(recordID) keeps what was done"
    }
}
