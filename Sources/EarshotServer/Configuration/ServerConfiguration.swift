public import EarshotCore
public import Foundation

/// Everything `earshot serve` can be told, with embedded defaults (SQLite file + `./data` blobs on 127.0.0.1:8080).
///
/// Values come from four layers, highest first: command-line flags, `EARSHOT_*` environment variables, an
/// optional JSON config file (`--config FILE` or `EARSHOT_CONFIG`), and the defaults below. Every setting has one
/// name used by all layers: flag `--max-json-body`, variable `EARSHOT_MAX_JSON_BODY`, file key `"max-json-body"`.
/// ``load(arguments:environment:readFile:)`` reports every invalid value at once, naming where it came from.
public struct ServerConfiguration: Sendable, Equatable {
    /// Address to bind. Loopback by default; `0.0.0.0` or `::` exposes the server to the network.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (printed at start).
    public var port = 8080
    /// Base directory for the embedded defaults of ``database`` and ``blobDirectory``.
    public var dataDirectory = "./data"
    /// Metadata store location: a SQLite file path (`sqlite:` prefix optional). Nil means `<data-dir>/earshot.sqlite`.
    public var database: String?
    /// Blob store location: a directory. Nil means `<data-dir>/blobs`.
    public var blobDirectory: String?
    /// The S3 bucket audio lives in instead of the blob directory (`blob-store`); nil for the directory.
    public var blobStore: ObjectStoreLocation?
    /// The S3 access key id and secret from `blob-store-credentials-file`; nil: `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY` from the environment.
    public var blobStoreCredentials: ObjectStoreCredentials?
    /// HTTP worker threads.
    public var threads = 4
    /// An idle connection is closed after this long.
    public var connectionTimeout: Duration = .seconds(30)
    /// On SIGTERM/SIGINT, in-flight requests get this long to finish.
    public var shutdownGrace: Duration = .seconds(10)
    /// `/readyz` answers 503 when the blob or database file system has less free space than this (writes answer
    /// 507 `INSUFFICIENT_STORAGE` once it is full).
    public var minFreeSpace = 100 << 20
    /// Largest JSON request body accepted (413 above it).
    public var maxJSONBody = 1 << 20
    /// Largest request header block accepted.
    public var maxHeaderBytes = 32 << 10
    /// Log threshold.
    public var logLevel: Logger.Level = .info
    /// Log line format.
    public var logFormat: LogSink.Format = .logfmt
    /// Base URL clients reach this server at (scheme, host, port; no path), used in presigned and download
    /// URLs. Nil means `http://<host>:<bound port>`; set it when a proxy or load balancer is in front.
    public var publicURL: String?
    /// A path prefix in front of the platform API (`/developer/api`); empty by default.
    public var apiPrefix = ""
    /// Part size of multipart uploads (`ChunkSize`): every part but the last has exactly this many bytes.
    public var uploadChunkSize = 5 << 20
    /// Largest file the upload API accepts.
    public var uploadMaxFileSize = 2 << 30
    /// File types (lowercase extensions) the upload API accepts.
    public var uploadFiletypes = FileTypes.defaults
    /// With ``blobStore``, clients upload parts straight to the bucket with presigned S3 `UploadPart` URLs (the
    /// seed's plan/ETag/complete contract unchanged); off: parts go through the API node, which writes the object.
    /// Needs ``uploadChunkSize`` ≥ ``minimumDirectPartSize``.
    public var uploadDirect = true
    /// S3's smallest part but the last (5 MiB), the least ``uploadChunkSize`` of direct uploads.
    public static let minimumDirectPartSize = 5 << 20
    /// Lifetime of presigned part URLs (fresh ones come from the list-parts call).
    public var uploadURLTTL: Duration = .seconds(3600)
    /// Lifetime of download URLs.
    public var downloadURLTTL: Duration = .seconds(86400)
    /// Unfinished uploads with no activity for this long are deleted with their parts.
    public var uploadMaxAge: Duration = .seconds(86400)
    /// Lifetime of partner access tokens.
    public var partnerTokenTTL: Duration = .seconds(7200)
    /// Lifetime (and cap) of user access tokens.
    public var userTokenTTL: Duration = .seconds(86400)
    /// Token and URL signing keys are replaced after this long (old keys keep verifying what they signed).
    public var signingKeyRotation: Duration = .seconds(30 * 86400)

    /// In-process transcription workers (0 runs none: tasks wait for a worker elsewhere). One decode already uses
    /// every core, so more than one only helps on big machines.
    public var workers = 1
    /// Attempts a task gets (a failed decode or a lost worker counts) before it is `FAILURE`.
    public var taskMaxAttempts = 3
    /// A worker's claim on a task lasts this long unless its heartbeat (every third of it) extends it; a task whose
    /// worker died is re-queued once it expires.
    public var taskLease: Duration = .seconds(30)
    /// Delay before the first retry of a failed task; doubles with each further attempt.
    public var taskRetryDelay: Duration = .seconds(5)
    /// Audio longer than this is transcribed in consecutive windows of this length, decoded as needed, so a
    /// worker's memory follows the window, not the recording (a 30 min window holds 115 MB of samples).
    public var transcriptionWindow: Duration = .seconds(1800)
    /// Longer recordings are refused with a message naming this setting.
    public var maxAudioDuration: Duration = .seconds(8 * 3600)
    /// A recorder device is online while its last status report (relayed by an app) is at most this old.
    public var deviceOnlineWindow: Duration = .seconds(120)
    /// How often an idle worker looks for queued tasks.
    public var taskPollInterval: Duration = .milliseconds(250)
    /// Where speech models are installed (`<home>/models`); nil means `$EARSHOT_HOME` or `~/.cache/earshot`.
    public var modelHome: String?
    /// One webhook POST may take this long before it counts as failed.
    public var webhookTimeout: Duration = .seconds(10)
    /// Delay before the first webhook retry; doubles after each failed attempt (capped at 1 h).
    public var webhookRetryDelay: Duration = .seconds(5)
    /// A webhook is retried until this long after the event, then marked failed (it can still be redelivered).
    public var webhookRetryPeriod: Duration = .seconds(86400)
    /// Networks (CIDR) webhooks may reach although they are not public (loopback, private, link-local…); empty by
    /// default: callbacks go to public addresses only.
    public var webhookAllowNetworks: [String] = []
    /// Webhook POSTs in flight at once in this process; one tenant may use at most half of them.
    public var webhookConcurrency = 8
    /// Webhook POSTs in flight at once to one callback host (`host:port`) from this process.
    public var webhookHostConcurrency = 2
    /// Largest audio file the OpenAI-compatible endpoints accept (OpenAI's own limit is 25 MB).
    public var openAIMaxFileSize = 25 << 20
    /// Synchronous `/v1/audio/*` requests decoding at once; as many more wait up to ``openAIMaxWait``, the rest
    /// are answered 429 `RATE_LIMITED` with `Retry-After`. They share the engine with the queue workers.
    public var openAIConcurrency = 2
    /// The longest a synchronous `/v1/audio/*` request waits for a slot before a 429 (not a setting: 30 s is
    /// well under OpenAI clients' default 10-minute request timeout).
    public var openAIMaxWait: Duration = .seconds(30)
    /// Live transcription sessions (`GET /v1/realtime` WebSockets) at once; one more is told `RATE_LIMITED` and
    /// closed with 1013. Their decodes share the `/v1/audio/*` slots (``openAIConcurrency``).
    public var liveMaxSessions = 4
    /// Lifetime of a client secret for `/v1/realtime` (`POST /v1/realtime/client_secrets`) when its request names
    /// none: about a minute, enough for a browser to connect.
    public var liveSecretTTL: Duration = .seconds(60)
    /// The longest lifetime a client secret may ask for (`expires_after.seconds`).
    public var liveSecretMaxTTL: Duration = .seconds(600)

    /// Who speaks for `POST /v1/audio/speech` (and later the dialogue): `espeak` (espeak-ng run as a child process)
    /// or the base URL, ending in `/v1`, of an OpenAI-compatible speech server.
    public var speechProvider = "espeak"
    /// API key sent as a bearer token to a ``speechProvider`` URL (`speech-api-key` or `speech-api-key-file`).
    public var speechAPIKey: String?
    /// The `model` asked of a ``speechProvider`` URL.
    public var speechModel = "tts-1"
    /// The espeak-ng binary; nil looks it up on `PATH`.
    public var speechEspeakPath: String?
    /// Syntheses at once for `POST /v1/audio/speech`; as many more wait (up to ``openAIMaxWait``), the rest are
    /// answered 429 `RATE_LIMITED`.
    public var speechConcurrency = 2
    /// The longest speech espeak-ng may make for one request; a longer one is refused (400) as soon as espeak-ng
    /// passes it.
    public var speechMaxDuration: Duration = .seconds(600)

    /// Base URL (ending in `/v1`) of an OpenAI-compatible chat-completions server for summaries and translations;
    /// nil uses the managed `llama-server` (``llmManaged``).
    public var llmBaseURL: String?
    /// API key sent as a bearer token to ``llmBaseURL``.
    public var llmAPIKey: String?
    /// Model name sent to ``llmBaseURL`` (required with it).
    public var llmModel: String?
    /// One language-model request may take this long.
    public var llmTimeout: Duration = .seconds(300)
    /// Without ``llmBaseURL``: run the built-in `llama-server` as a child process (started on first use). Off:
    /// extractive summaries only, translation unavailable.
    public var llmManaged = true
    /// The managed `llama-server` binary; nil means `<model-home>/llama/bin/llama-server` (built by make setup).
    public var llmServerPath: String?
    /// The managed server's GGUF model; nil means `<model-home>/models/SmolLM2-135M-Instruct.Q4_1.gguf`.
    public var llmModelPath: String?
    /// Context window of the language model, in tokens (prompts are chunked to fit).
    public var llmContext = 4096
    /// CPU threads of the managed `llama-server`.
    public var llmThreads = 2
    /// Which summary leads: `auto` (the language model, except the built-in SmolLM2-135M, whose summaries
    /// measured worse than the extractive ones: docs/notes.md), `llm` or `extractive`.
    public var summaryMethod = "auto"
    /// Accounts: codes, sessions, password hashing, delivery channels, rate limits (`ServerConfiguration+Accounts`).
    public var accounts = AccountSettings()
    /// The PostgreSQL password, read from `database-password-file` (never printed).
    public var databasePassword: String?
    /// What this process does: serve the API, run jobs, or both.
    public var role: Role = .all
    /// At shutdown, how long running jobs may go on before they are handed back to the queue.
    public var workerDrainTimeout: Duration = .zero

    /// What one Earshot process does (`role`).
    public enum Role: String, Sendable, CaseIterable {
        /// The API and the job runner (the embedded default).
        case all
        /// The API and maintenance; jobs run on worker processes.
        case api
        /// The job runner, with `/healthz`, `/readyz` and `/metrics` only; speech models load on the first job.
        case worker

        /// Whether this process serves the platform API.
        public var servesAPI: Bool { self != .worker }
        /// Whether this process runs jobs.
        public var runsJobs: Bool { self != .api }
    }

    /// The metadata backend `database` names.
    public enum MetadataBackend: Sendable, Equatable {
        case sqlite(path: String)
        case postgresql(url: String)
    }

    public init() {}

    /// The metadata backend: a PostgreSQL URL, else the SQLite file.
    public var metadataBackend: MetadataBackend {
        if let database, database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            return .postgresql(url: database)
        }
        return .sqlite(path: resolvedDatabasePath)
    }

    /// Where the metadata lives, for logs (a URL without its password).
    public var databaseDescription: String {
        switch metadataBackend {
        case .sqlite(let path): path
        case .postgresql(let url): ConfigurationRedaction.url(url)
        }
    }

    /// The SQLite file the metadata store uses.
    public var resolvedDatabasePath: String {
        guard let database else { return (dataDirectory as NSString).appendingPathComponent("earshot.sqlite") }
        return database.hasPrefix("sqlite:") ? String(database.dropFirst("sqlite:".count)) : database
    }

    /// Where blobs are, for logs.
    public var blobsDescription: String {
        blobStore.map { "\($0.endpoint.absoluteString)/\($0.bucket)" } ?? resolvedBlobDirectory
    }

    /// The directory the blob store uses.
    public var resolvedBlobDirectory: String {
        blobDirectory ?? (dataDirectory as NSString).appendingPathComponent("blobs")
    }
}

/// Hides credentials of URLs in messages and logs.
enum ConfigurationRedaction {
    /// `scheme://user:secret@host…` → `scheme://user:***@host…`.
    static func url(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url
        }
        let userInfo = url[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

/// An S3 bucket (`blob-store`): `s3://host[:port]/bucket` (HTTPS) or `s3+http://host:port/bucket`, with an optional
/// `?region=` (default us-east-1). Requests are path-style.
public struct ObjectStoreLocation: Sendable, Hashable {
    /// `https://host[:port]` or `http://host:port`.
    public var endpoint: URL
    public var bucket: String
    public var region: String

    public init(endpoint: URL, bucket: String, region: String = "us-east-1") {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
    }

    /// Parses a `blob-store` value; nil, with the reason, when it is not one.
    public static func parse(_ text: String) -> (ObjectStoreLocation?, String?) {
        let scheme: String
        let rest: Substring
        if text.hasPrefix("s3://") {
            scheme = "https"
            rest = text.dropFirst("s3://".count)
        } else if text.hasPrefix("s3+http://") {
            scheme = "http"
            rest = text.dropFirst("s3+http://".count)
        } else {
            return (nil, "'\(text)' is not s3://host[:port]/bucket or s3+http://host:port/bucket")
        }
        let (path, query) = rest.firstIndex(of: "?").map { (rest[..<$0], rest[rest.index(after: $0)...]) } ?? (rest, "")
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, !parts[0].contains("@"), let endpoint = URL(string: "\(scheme)://\(parts[0])"),
            endpoint.host != nil
        else {
            return (
                nil, "'\(text)' must name a host and one bucket (s3://host[:port]/bucket); keep credentials out of it"
            )
        }
        let bucket = String(parts[1])
        guard (3...63).contains(bucket.count),
            bucket.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else { return (nil, "bucket '\(bucket)' must be 3-63 characters of a-z, 0-9, '.' and '-'") }
        var location = ObjectStoreLocation(endpoint: endpoint, bucket: bucket)
        for pair in query.split(separator: "&") {
            let item = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard item.count == 2, item[0] == "region", !item[1].isEmpty else {
                return (nil, "unknown parameter '\(pair)' in '\(text)' (only region=…)")
            }
            location.region = item[1]
        }
        return (location, nil)
    }
}

/// An S3 access key id and its secret.
public struct ObjectStoreCredentials: Sendable, Hashable {
    public var accessKeyID: String
    public var secretAccessKey: String

    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }
}
