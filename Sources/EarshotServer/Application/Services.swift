import EarshotCore
import EarshotHTTP
import EarshotModels
import EarshotNotes
import EarshotSpeech
import EarshotStore
import Foundation

/// The platform's services built from the configuration and the stores, and the routes that expose them.
struct Services: Sendable {
    let keyring: Keyring
    let tokens: TokenService
    let uploads: UploadService
    let links: PublicLinks
    let queue: JobQueue
    let webhooks: Webhooks
    let transcriptions: TranscriptionService
    let records: RecordsService
    let running = RunningTasks()
    let engines: FileTranscriber
    /// Bounds the synchronous OpenAI-compatible decodes (`openai-concurrency`).
    let admission: DecodeAdmission
    let speakers: SpeakerModels
    let taskMetrics = TaskMetrics()
    let metadata: any MetadataStore
    let blobs: any BlobStore
    let configuration: ServerConfiguration
    /// Summaries and translations of transcripts (offline tasks 1 and 2).
    let notes: any NoteProcessing
    /// The built-in language model's child process, when `notes` uses it (run by `Application.run`).
    let managedLanguageModel: ManagedLlamaServer?
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
                configuration.downloadURLTTL,
            ].max()! + leeway
        keyring = Keyring(
            metadata: metadata,
            configuration: .init(rotationInterval: configuration.signingKeyRotation, retention: retention), now: now)
        let partners = PartnerDirectory(metadata: metadata, now: now)
        tokens = TokenService(
            keyring: keyring, partners: partners,
            configuration: .init(
                partnerTokenTTL: configuration.partnerTokenTTL, userTokenTTL: configuration.userTokenTTL,
                leeway: leeway),
            now: now)
        links = PublicLinks(configuredBase: configuration.publicURL, prefix: configuration.apiPrefix)
        uploads = UploadService(
            metadata: metadata, blobs: blobs, signer: URLSigner(keyring: keyring, now: now), links: links,
            configuration: .init(
                chunkSize: configuration.uploadChunkSize, maxFileSize: configuration.uploadMaxFileSize,
                filetypes: configuration.uploadFiletypes, partURLTTL: configuration.uploadURLTTL,
                downloadURLTTL: configuration.downloadURLTTL, maxAge: configuration.uploadMaxAge),
            now: now)
        let webhooks = Webhooks(metadata: metadata, retryPeriod: configuration.webhookRetryPeriod)
        self.webhooks = webhooks
        // A task's webhook delivery, and a record task's result, are recorded in the transaction that makes it final.
        queue = JobQueue(
            metadata: metadata,
            onFinal: { db, job in
                try webhooks.enqueue(db, for: job)
                try RecordTasks.applyFinal(db, job)
            })
        transcriptions = TranscriptionService(
            queue: queue, metadata: metadata, links: links, signer: uploads.signer, running: running,
            maxAttempts: configuration.taskMaxAttempts)
        admission = DecodeAdmission(
            configuration: .init(
                slots: configuration.openAIConcurrency, maxWaiting: configuration.openAIConcurrency,
                maxWait: configuration.openAIMaxWait))
        records = RecordsService(
            metadata: metadata, blobs: blobs, transcriptions: transcriptions,
            tasks: RecordTasks(
                queue: queue, metadata: metadata, running: running, maxAttempts: configuration.taskMaxAttempts))
        let models = ModelHome.resolve(configuration.modelHome)
        speakers = SpeakerModels(home: models)
        engines = FileTranscriber(
            configuration: .init(
                models: ModelStore(home: models),
                concurrentDecodes: configuration.workers, allowTruncatedAudio: true))
    }

    /// The transcription workers and lease reaper (run by `Application.run`).
    var workers: TranscriptionWorkers {
        TranscriptionWorkers(
            queue: queue, metadata: metadata, blobs: blobs, engines: engines, speakers: speakers, running: running,
            metrics: taskMetrics,
            configuration: .init(
                count: configuration.workers, lease: configuration.taskLease, retryDelay: configuration.taskRetryDelay,
                pollInterval: configuration.taskPollInterval))
    }

    /// The runner of record summaries and transcript translations (run by `Application.run`).
    var recordNotes: RecordNotesRunner {
        RecordNotesRunner(
            queue: queue, metadata: metadata,
            processor: notes,
            configuration: .init(
                lease: configuration.taskLease, retryDelay: configuration.taskRetryDelay,
                pollInterval: configuration.taskPollInterval))
    }

    /// The webhook sender (run by `Application.run`).
    var deliverer: WebhookDeliverer {
        WebhookDeliverer(
            metadata: metadata, webhooks: webhooks, metrics: taskMetrics,
            configuration: .init(
                timeout: configuration.webhookTimeout, retryDelay: configuration.webhookRetryDelay,
                pollInterval: configuration.taskPollInterval))
    }

    /// Mounts the platform API under `api-prefix` and the OpenAPI document at `/openapi.json`.
    func register(on router: Router) {
        let api = configuration.apiPrefix.isEmpty ? router.group("/") : router.group(configuration.apiPrefix)
        AuthRoutes(tokens: tokens).register(on: api)
        UploadRoutes(
            uploads: uploads, tokens: tokens,
            spoolDirectory: (configuration.resolvedBlobDirectory as NSString).appendingPathComponent(".tmp")
        ).register(on: api)
        TranscriptionRoutes(transcriptions: transcriptions, tokens: tokens).register(on: api)
        RecordsRoutes(records: records, tokens: tokens).register(on: api)
        WebhookRoutes(transcriptions: transcriptions, webhooks: webhooks, tokens: tokens).register(on: api)
        VoiceprintRoutes(
            voiceprints: VoiceprintService(
                metadata: metadata, blobs: blobs, engines: engines, speakers: speakers, transcriptions: transcriptions),
            tokens: tokens
        ).register(on: api)
        // OpenAI clients append /audio/… to a base URL ending in /v1: these stay at the root, outside api-prefix.
        OpenAIRoutes(
            tokens: tokens, engines: engines, admission: admission, maxFileSize: configuration.openAIMaxFileSize,
            spoolDirectory: (configuration.resolvedBlobDirectory as NSString).appendingPathComponent(".tmp")
        ).register(on: router)
        OpenAPIRoutes(links: links).register(on: router)
    }

    /// Collects abandoned uploads and rotates/expires signing keys every `interval`, until cancelled. A failed
    /// round is logged and retried at the next one.
    func maintain(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await uploads.sweep()
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
