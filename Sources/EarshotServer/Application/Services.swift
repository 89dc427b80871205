import EarshotAccounts
import EarshotCore
import EarshotHTTP
import EarshotModels
import EarshotNotes
import EarshotSpeech
import EarshotStore
import EarshotVoice
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The platform's services built from the configuration and the stores, and the routes that expose them.
struct Services: Sendable {
    let keyring: Keyring
    let tokens: TokenService
    /// Long-lived API keys (accepted by `tokens` beside tokens).
    let apiKeys: APIKeys
    /// The rate-limited client-credentials check of `POST /open/partner/token`.
    let credentials: CredentialGate
    let uploads: UploadService
    let links: PublicLinks
    let queue: JobQueue
    let webhooks: Webhooks
    let transcriptions: TranscriptionService
    let records: RecordsService
    /// Recorder devices, homes and device recordings.
    let devices: DeviceRegistry
    /// Accounts, their codes and sessions.
    let accounts: AccountDirectory
    /// Every background job kind this process runs, and their runner.
    let jobs: JobRegistry
    let running = RunningJobs()
    let jobMetrics: JobMetrics
    /// Request counters and latencies of this process's HTTP server (`/metrics`, the admin overview).
    let httpMetrics = HTTPMetrics()
    /// Start time, memory, threads and files of this process.
    let processMetrics = ProcessMetrics()
    let engines: FileTranscriber
    /// Bounds the synchronous OpenAI-compatible decodes (`openai-concurrency`).
    let admission: DecodeAdmission
    let speakers: SpeakerModels
    /// Speech synthesis (`speech-provider`) and the slots of `POST /v1/audio/speech` (`speech-concurrency`).
    let speech: any SpeechSynthesizer
    let speechAdmission: DecodeAdmission
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let configuration: ServerConfiguration
    /// Summaries and translations of transcripts (offline tasks 1 and 2).
    let notes: any NoteProcessing
    /// The built-in language model's child process, when `notes` uses it (run by `Application.run`).
    let managedLanguageModel: ManagedLlamaServer?
    /// The HTTP client of webhook deliveries (it follows no redirect).
    private let webhookSession = WebhookSession.make()
    /// Where webhooks may go (`webhook-allow-networks`).
    let callbacks: CallbackPolicy
    private let logger = Logger(label: "maintenance")

    init(
        configuration: ServerConfiguration, metadata: any MetadataStore, blobs: any BlobStore,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.metadata = metadata
        self.blobs = blobs
        (notes, managedLanguageModel) = configuration.makeNotes()
        let leeway = Duration.seconds(30)
        // A retired key must verify everything it signed: the longest token or URL lifetime, plus skew.
        let retention =
            [
                configuration.partnerTokenTTL, configuration.userTokenTTL, configuration.uploadURLTTL,
                configuration.downloadURLTTL, configuration.liveSecretMaxTTL,
            ].max()! + leeway
        keyring = Keyring(
            metadata: metadata,
            configuration: .init(rotationInterval: configuration.signingKeyRotation, retention: retention), now: now)
        let partners = PartnerDirectory(metadata: metadata, now: now)
        apiKeys = APIKeys(metadata: metadata, partners: partners, now: now)
        credentials = CredentialGate(partners: partners)
        var tokens = TokenService(
            keyring: keyring, partners: partners,
            configuration: .init(
                partnerTokenTTL: configuration.partnerTokenTTL, userTokenTTL: configuration.userTokenTTL,
                leeway: leeway),
            now: now)
        tokens.apiKeys = apiKeys
        self.tokens = tokens
        links = PublicLinks(configuredBase: configuration.publicURL, prefix: configuration.apiPrefix)
        uploads = UploadService(
            metadata: metadata, blobs: blobs, signer: URLSigner(keyring: keyring, partners: partners, now: now),
            links: links,
            configuration: .init(
                chunkSize: configuration.uploadChunkSize, maxFileSize: configuration.uploadMaxFileSize,
                filetypes: configuration.uploadFiletypes, partURLTTL: configuration.uploadURLTTL,
                downloadURLTTL: configuration.downloadURLTTL, maxAge: configuration.uploadMaxAge,
                direct: configuration.uploadDirect && configuration.blobStore != nil),
            now: now)
        let models = ModelHome.resolve(configuration.modelHome)
        speakers = SpeakerModels(home: models)
        engines = FileTranscriber(
            configuration: .init(
                models: ModelStore(home: models), concurrentDecodes: configuration.workers,
                allowTruncatedAudio: true))
        let callbacks = CallbackPolicy(allowed: configuration.webhookAllowNetworks.compactMap(NetworkRange.init))
        self.callbacks = callbacks
        let signal = JobSignal()
        let (accounts, outbox) = configuration.makeAccounts(metadata: metadata, signal: signal)
        self.accounts = accounts
        let webhooks = Webhooks(metadata: metadata, retryPeriod: configuration.webhookRetryPeriod, signal: signal)
        self.webhooks = webhooks
        let taskPolicy = JobPolicy(
            concurrency: configuration.workers, lease: configuration.taskLease,
            retryDelay: configuration.taskRetryDelay)
        let kinds: [any JobKind] = [
            TranscriptionJob(
                policy: taskPolicy, metadata: metadata, blobs: blobs, engines: engines, speakers: speakers,
                webhooks: webhooks, window: configuration.transcriptionWindow,
                maxDuration: configuration.maxAudioDuration),
            RecordNoteJob(
                policy: JobPolicy(lease: configuration.taskLease, retryDelay: configuration.taskRetryDelay),
                metadata: metadata, processor: notes),
            RecordMeasureJob(
                policy: JobPolicy(
                    concurrency: configuration.workers > 0 ? 1 : 0, lease: configuration.taskLease,
                    retryDelay: configuration.taskRetryDelay),
                metadata: metadata, blobs: blobs),
            AccountMessageJob(
                policy: JobPolicy(
                    concurrency: 2, lease: .seconds(90), retryDelay: .seconds(5), maximumRetryDelay: .seconds(600)),
                outbox: outbox),
        ]
        let metrics = JobMetrics(
            kinds: kinds.map(\.name) + [WebhookJob.name], running: running)
        jobMetrics = metrics
        let registry = JobRegistry(
            kinds + [
                WebhookJob(
                    policy: JobPolicy(
                        concurrency: configuration.webhookConcurrency,
                        lease: configuration.webhookTimeout + .seconds(30),
                        retryDelay: configuration.webhookRetryDelay, maximumRetryDelay: .seconds(3600),
                        tenantLimit: max(1, configuration.webhookConcurrency / 2),
                        partitionLimit: configuration.webhookHostConcurrency),
                    timeout: configuration.webhookTimeout, metadata: metadata, webhooks: webhooks,
                    callbacks: callbacks, metrics: metrics, session: webhookSession)
            ])
        jobs = registry
        // What must commit with a job's final state (a webhook delivery, a record's new transcript) is its kind's
        // `finished`; deleting a task deletes its webhook deliveries and their jobs.
        queue = JobQueue(
            metadata: metadata, onFinal: { db, job in try registry.finished(db, job) },
            onDelete: { db, ids in try webhooks.forget(db, jobIDs: ids) }, signal: signal)
        transcriptions = TranscriptionService(
            queue: queue, metadata: metadata, links: links, signer: uploads.signer, running: running,
            callbacks: callbacks, maxAttempts: configuration.taskMaxAttempts)
        admission = DecodeAdmission(
            configuration: .init(
                slots: configuration.openAIConcurrency, maxWaiting: configuration.openAIConcurrency,
                maxWait: configuration.openAIMaxWait))
        speech = configuration.makeSynthesizer()
        speechAdmission = DecodeAdmission(
            configuration: .init(
                slots: configuration.speechConcurrency, maxWaiting: configuration.speechConcurrency,
                maxWait: configuration.openAIMaxWait, work: "speech syntheses",
                alternative: "send shorter inputs"))
        records = RecordsService(
            metadata: metadata, blobs: blobs, uploads: uploads, transcriptions: transcriptions,
            tasks: RecordTasks(queue: queue, metadata: metadata, maxAttempts: configuration.taskMaxAttempts),
            running: running)
        devices = DeviceRegistry(metadata: metadata, records: records, onlineWindow: configuration.deviceOnlineWindow)
    }

    /// The runner of every background job kind (run by `Application.run`).
    var runner: JobRunner {
        JobRunner(
            queue: queue, registry: jobs, running: running, metrics: jobMetrics,
            configuration: .init(
                pollInterval: configuration.taskPollInterval, drainTimeout: configuration.workerDrainTimeout))
    }

    /// `/healthz`, `/readyz` and `/metrics` of this process (mounted by `Application.run` in every role).
    var health: HealthRoutes {
        HealthRoutes(
            metadata: metadata, blobs: blobs, metrics: httpMetrics, process: processMetrics,
            extraMetrics: { [jobMetrics] in jobMetrics.render() },
            storagePaths: [
                configuration.resolvedBlobDirectory,
                (configuration.resolvedDatabasePath as NSString).deletingLastPathComponent,
            ],
            minimumFreeSpace: configuration.minFreeSpace)
    }

    /// Mounts the platform API under `api-prefix` and the OpenAPI document at `/openapi.json`.
    func register(on router: Router) {
        let api = APIRoutes(
            builder: router.group(configuration.apiPrefix.isEmpty ? "/" : configuration.apiPrefix), tokens: tokens,
            signer: uploads.signer, sessions: SessionCredentials(directory: accounts))
        let spool = (configuration.resolvedBlobDirectory as NSString).appendingPathComponent(".tmp")
        AuthRoutes(tokens: tokens, credentials: credentials).register(on: api)
        APIKeyRoutes(keys: apiKeys).register(on: api)
        UploadRoutes(uploads: uploads, spoolDirectory: spool).register(on: api)
        TranscriptionRoutes(transcriptions: transcriptions).register(on: api)
        RecordsRoutes(records: records).register(on: api)
        EvaluationRoutes(evaluations: EvaluationService(metadata: metadata, records: records)).register(on: api)
        DeviceRoutes(devices: devices).register(on: api)
        WebhookRoutes(transcriptions: transcriptions, webhooks: webhooks).register(on: api)
        AdminRoutes(
            administration: InstanceAdministration(
                metadata: metadata, partners: PartnerDirectory(metadata: metadata), webhooks: webhooks, queue: queue,
                accounts: accounts),
            health: health, jobMetrics: jobMetrics
        ).register(on: api)
        let voiceprints = VoiceprintService(
            metadata: metadata, blobs: blobs, engines: engines, speakers: speakers, transcriptions: transcriptions)
        VoiceprintRoutes(voiceprints: voiceprints).register(on: api)
        AccountRoutes(
            directory: accounts, tokens: tokens, data: AccountData(records: records, voiceprints: voiceprints, metadata: metadata, blobs: blobs),
            limits: AccountLimits(configuration.accounts), tokenTTL: configuration.accounts.tokenTTL,
            secureCookies: configuration.publicURL?.hasPrefix("https://") == true,
            cookiePath: configuration.apiPrefix.isEmpty ? "/" : configuration.apiPrefix
        ).register(on: api)
        // OpenAI clients append /audio/… to a base URL ending in /v1: these stay at the root, outside api-prefix.
        OpenAIRoutes(
            engines: engines, records: records, admission: admission, speakers: speakers,
            maxFileSize: configuration.openAIMaxFileSize, spoolDirectory: spool
        ).register(on: APIRoutes(builder: router.group("/"), tokens: tokens, signer: uploads.signer))
        OpenAISpeechRoutes(synthesizer: speech, admission: speechAdmission).register(
            on: APIRoutes(builder: router.group("/"), tokens: tokens, signer: uploads.signer))
        // Client secrets are minted at the root for OpenAI clients and under api-prefix for the console's Live page,
        // whose session cookie is scoped to the prefix (one registration when there is none).
        let secrets = ClientSecretRoutes(
            tokens: tokens, recognizer: EngineRecognizer(engines: engines, admission: admission),
            interpreter: LiveInterpreter(engines: engines, admission: admission, notes: notes),
            limits: .init(ttl: configuration.liveSecretTTL, maxTTL: configuration.liveSecretMaxTTL))
        secrets.register(on: api)
        if !configuration.apiPrefix.isEmpty {
            secrets.register(on: APIRoutes(builder: router.group("/"), tokens: tokens, signer: uploads.signer))
        }
        RealtimeRoutes(
            engines: engines, admission: admission,
            interpreter: LiveInterpreter(engines: engines, admission: admission, notes: notes),
            voice: LiveVoice(synthesizer: speech), tokens: tokens,
            sessions: LiveSessionCount(limit: configuration.liveMaxSessions),
            voiceActivityModel: ModelHome.resolve(configuration.modelHome).voiceActivityModel, records: records,
            spoolDirectory: spool
        ).register(on: router.group("/"))
        OpenAPIRoutes(links: links).register(on: router)
    }

    /// Collects abandoned uploads and temporary files no process owns, and rotates/expires signing keys every
    /// `interval`, until cancelled. A failed
    /// round is logged and retried at the next one.
    func maintain(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await uploads.sweep()
                if let files = blobs as? FileSystemBlobStore { try await files.removeStaleTemporaryFiles() }
                try await keyring.maintain()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("maintenance round failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
