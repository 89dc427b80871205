public import EarshotCore
public import Foundation

/// One problem found while loading configuration, naming the setting and where its value came from.
public struct ConfigurationIssue: Sendable, Equatable, CustomStringConvertible {
    public let setting: String
    public let source: String
    public let message: String

    public var description: String { "\(setting) (from \(source)): \(message)" }
}

/// Configuration that cannot be used; lists every problem, one per line.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let issues: [ConfigurationIssue]

    public var description: String {
        "invalid configuration:\n" + issues.map { "  - \($0)" }.joined(separator: "\n")
    }
}

extension ServerConfiguration {
    /// A setting: one name shared by the flag, the environment variable and the config-file key.
    struct Setting: Sendable {
        let name: String
        let valueName: String
        let help: String
        let apply: @Sendable (inout ServerConfiguration, String) -> String?

        var environmentVariable: String {
            "EARSHOT_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    /// The one table of settings: the server's, then the accounts' (`ServerConfiguration+Accounts.swift`). `apply`
    /// returns a problem description or nil.
    static let settings: [Setting] = serverSettings + accountSettings

    private static let serverSettings: [Setting] = [
        Setting(name: "host", valueName: "ADDRESS", help: "Address to bind (default 127.0.0.1).") { config, value in
            guard isIPAddress(value) else { return "'\(value)' is not an IPv4 or IPv6 address" }
            config.host = value
            return nil
        },
        Setting(name: "port", valueName: "PORT", help: "TCP port, 0 for any free one (default 8080).") {
            config, value in
            guard let port = Int(value), (0...65535).contains(port) else {
                return "'\(value)' is not a port number (0-65535)"
            }
            config.port = port
            return nil
        },
        Setting(name: "data-dir", valueName: "DIR", help: "Base directory for the embedded stores (default ./data).") {
            config, value in
            guard !value.isEmpty else { return "must not be empty" }
            config.dataDirectory = value
            return nil
        },
        Setting(
            name: "database", valueName: "URL",
            help: "SQLite file (default <data-dir>/earshot.sqlite) or postgresql://user@host:port/db URL (scale-out)."
        ) {
            config, value in
            if value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") {
                guard URL(string: value)?.host != nil else {
                    return "'\(ConfigurationRedaction.url(value))' is not a PostgreSQL URL "
                        + "(example: postgresql://earshot@db.internal:5432/earshot)"
                }
                config.database = value
                return nil
            }
            guard !value.isEmpty, value != "sqlite:" else { return "must name a SQLite file or a PostgreSQL URL" }
            config.database = value
            return nil
        },
        Setting(
            name: "database-password-file", valueName: "FILE",
            help: "File holding the PostgreSQL password (else the URL's, or PGPASSWORD)."
        ) {
            config, value in
            guard let text = try? String(contentsOfFile: value, encoding: .utf8) else {
                return "cannot read \(value)"
            }
            let password = text.trimmingCharacters(in: .newlines)
            guard !password.isEmpty else { return "\(value) is empty" }
            config.databasePassword = password
            return nil
        },
        Setting(
            name: "role", valueName: "ROLE",
            help: "all (API and jobs), api (API only) or worker (jobs, health and metrics only) (default all)."
        ) {
            config, value in
            guard let role = ServerConfiguration.Role(rawValue: value) else {
                return "'\(value)' is not one of all, api, worker"
            }
            config.role = role
            return nil
        },
        durationSetting(
            "worker-drain-timeout", "At shutdown, time running jobs get to finish before going back (default 0s).",
            \.workerDrainTimeout),
        Setting(name: "blob-dir", valueName: "DIR", help: "Blob directory (default <data-dir>/blobs).") {
            config, value in
            if value.hasPrefix("s3://") { return "an S3 bucket goes in blob-store, not blob-dir" }
            guard !value.isEmpty else { return "must not be empty" }
            config.blobDirectory = value
            return nil
        },
        Setting(
            name: "blob-store", valueName: "URL",
            help: "S3 bucket for audio: s3://host[:port]/bucket, or s3+http://… without TLS (default: blob-dir)."
        ) {
            config, value in
            let (location, problem) = ObjectStoreLocation.parse(value)
            config.blobStore = location
            return problem
        },
        Setting(
            name: "blob-store-credentials-file", valueName: "FILE",
            help: "File with the S3 access key id, then the secret, one per line (else AWS_ACCESS_KEY_ID/…)."
        ) {
            config, value in
            guard let text = try? String(contentsOfFile: value, encoding: .utf8) else { return "cannot read \(value)" }
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            guard lines.count == 2, !lines[0].isEmpty, !lines[1].isEmpty else {
                return "\(value) must hold two lines: the access key id, then the secret"
            }
            config.blobStoreCredentials = ObjectStoreCredentials(accessKeyID: lines[0], secretAccessKey: lines[1])
            return nil
        },
        countSetting("threads", "HTTP worker threads (default 4).", 1...256, noun: "thread count", \.threads),
        durationSetting("connection-timeout", "Idle connection timeout (default 30s).", \.connectionTimeout),
        Setting(
            name: "shutdown-grace", valueName: "DURATION",
            help: "Time in-flight requests get at shutdown (default 10s)."
        ) {
            config, value in
            guard let duration = parseDuration(value) else {
                return "'\(value)' is not a duration (examples: 10s, 500ms, 1m)"
            }
            config.shutdownGrace = duration
            return nil
        },
        sizeSetting("max-json-body", "Largest JSON request body (default 1MiB).", 1024..., \.maxJSONBody),
        sizeSetting(
            "max-header-bytes", "Largest request header block (default 32KiB).", 4096...(1 << 20), \.maxHeaderBytes),
        Setting(
            name: "log-level", valueName: "LEVEL", help: "trace, debug, info, notice, warning or error (default info)."
        ) {
            config, value in
            guard let level = Logger.Level(name: value) else {
                return "'\(value)' is not one of trace, debug, info, notice, warning, error"
            }
            config.logLevel = level
            return nil
        },
        Setting(name: "log-format", valueName: "FORMAT", help: "logfmt or json (default logfmt).") { config, value in
            guard let format = LogSink.Format(rawValue: value) else { return "'\(value)' is not logfmt or json" }
            config.logFormat = format
            return nil
        },
        Setting(
            name: "public-url", valueName: "URL",
            help: "Base URL clients use, for presigned and download links (default http://<host>:<port>)."
        ) {
            config, value in
            guard let url = URL(string: value), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil, url.path.isEmpty || url.path == "/", url.query == nil
            else { return "'\(value)' is not an http(s) URL without a path (example: https://earshot.example.com)" }
            config.publicURL = value.hasSuffix("/") ? String(value.dropLast()) : value
            return nil
        },
        Setting(name: "api-prefix", valueName: "PATH", help: "Path prefix in front of the platform API (default none).")
        {
            config, value in
            let trimmed = value.hasSuffix("/") ? String(value.dropLast()) : value
            guard trimmed.isEmpty || (trimmed.hasPrefix("/") && !trimmed.contains("//") && !trimmed.contains("?"))
            else {
                return "'\(value)' is not a path prefix (example: /developer/api)"
            }
            config.apiPrefix = trimmed
            return nil
        },
        sizeSetting(
            "min-free-space", "Below this much free disk, /readyz answers 503 (default 100MiB).", 0...,
            \.minFreeSpace),
        sizeSetting(
            "upload-chunk-size", "Part size of multipart uploads (default 5MiB).", 1024...(1 << 30), \.uploadChunkSize),
        sizeSetting("upload-max-file-size", "Largest uploaded file (default 2GiB).", 1..., \.uploadMaxFileSize),
        Setting(
            name: "upload-filetypes", valueName: "LIST",
            help: "Accepted file types, comma-separated (default: every type the decoder reads, "
                + FileTypes.defaults.joined(separator: ",") + ")."
        ) {
            config, value in
            let types = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard !types.isEmpty, types.allSatisfy({ FileTypes.isWellFormed($0) }) else {
                return "'\(value)' is not a comma-separated list of extensions (example: m4a,mp3,wav)"
            }
            config.uploadFiletypes = types
            return nil
        },
        Setting(
            name: "upload-direct", valueName: "on|off",
            help: "With blob-store, clients PUT upload parts straight to the bucket (presigned S3 URLs) (default on)."
        ) {
            config, value in
            switch value.lowercased() {
            case "on", "true", "yes", "1": config.uploadDirect = true
            case "off", "false", "no", "0": config.uploadDirect = false
            default: return "'\(value)' is not on or off"
            }
            return nil
        },
        durationSetting("upload-url-ttl", "Lifetime of presigned part URLs (default 1h).", \.uploadURLTTL),
        durationSetting("download-url-ttl", "Lifetime of download URLs (default 24h).", \.downloadURLTTL),
        durationSetting(
            "upload-max-age", "Unfinished uploads idle this long are deleted (default 24h).", \.uploadMaxAge),
        durationSetting("partner-token-ttl", "Lifetime of partner tokens (default 2h).", \.partnerTokenTTL),
        durationSetting("user-token-ttl", "Lifetime and cap of user tokens (default 24h).", \.userTokenTTL),
        durationSetting(
            "signing-key-rotation", "Age at which signing keys are replaced (default 30d).", \.signingKeyRotation),
        countSetting(
            "workers", "In-process transcription workers, 0-64 (default 1).", 0...64, noun: "worker count", \.workers),
        countSetting(
            "task-max-attempts", "Attempts per task before FAILURE (default 3).", 1...100, noun: "number of attempts",
            \.taskMaxAttempts),
        durationSetting("task-lease", "A worker's lease on a task, renewed by heartbeats (default 30s).", \.taskLease),
        durationSetting(
            "task-retry-delay", "First retry delay of a failed task, doubling (default 5s).", \.taskRetryDelay),
        durationSetting(
            "transcription-window", "Longer audio is transcribed in windows this long, memory bounded (default 30m).",
            \.transcriptionWindow),
        durationSetting(
            "max-audio-duration", "Longest recording a task transcribes (default 8h).", \.maxAudioDuration),
        durationSetting(
            "device-online-window",
            "A recorder is online while its last status report is at most this old (default 120s).",
            \.deviceOnlineWindow),
        Setting(name: "model-home", valueName: "DIR", help: "Directory holding models/ (default $EARSHOT_HOME).") {
            config, value in
            guard !value.isEmpty else { return "model-home must not be empty" }
            config.modelHome = value
            return nil
        },
        durationSetting("webhook-timeout", "Time limit of one webhook POST (default 10s).", \.webhookTimeout),
        durationSetting(
            "webhook-retry-delay", "First webhook retry delay, doubling up to 1h (default 5s).", \.webhookRetryDelay),
        durationSetting(
            "webhook-retry-period", "Webhooks are retried for this long (default 24h).", \.webhookRetryPeriod),
        Setting(
            name: "webhook-allow-networks", valueName: "LIST",
            help: "Non-public networks webhooks may reach, CIDR, comma-separated (default none: public only)."
        ) {
            config, value in
            let networks = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            guard networks.allSatisfy({ NetworkRange($0) != nil }) else {
                return "'\(value)' is not a comma-separated list of networks (example: 10.0.0.0/8,127.0.0.1,::1)"
            }
            config.webhookAllowNetworks = networks
            return nil
        },
        countSetting(
            "webhook-concurrency", "Webhook POSTs in flight at once, half at most per tenant (default 8).", 1...256,
            noun: "request count", \.webhookConcurrency),
        countSetting(
            "webhook-host-concurrency", "Webhook POSTs in flight at once to one host (default 2).", 1...256,
            noun: "request count", \.webhookHostConcurrency),
        sizeSetting(
            "openai-max-file-size", "Largest file for /v1/audio/* (default 25MiB).", 1024..., \.openAIMaxFileSize),
        countSetting(
            "openai-concurrency", "Synchronous /v1/audio/* decodes at once; more wait, then 429 (default 2).", 1...64,
            noun: "request count", \.openAIConcurrency),
        countSetting(
            "live-max-sessions", "Live transcription WebSockets (/v1/realtime) at once; more get RATE_LIMITED (default 4).",
            1...256, noun: "session count", \.liveMaxSessions),
        // Speech synthesis (EarshotVoice).
        Setting(
            name: "speech-provider", valueName: "PROVIDER",
            help: "espeak (espeak-ng as a child process) or an OpenAI-compatible speech API URL ending in /v1 "
                + "(default espeak)."
        ) {
            config, value in
            if value == "espeak" {
                config.speechProvider = value
                return nil
            }
            guard let url = URL(string: value), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else { return "'\(value)' is neither espeak nor an http(s) URL (example: https://api.openai.com/v1)" }
            config.speechProvider = value.hasSuffix("/") ? String(value.dropLast()) : value
            return nil
        },
        Setting(name: "speech-api-key", valueName: "KEY", help: "API key for a speech-provider URL (default none).") {
            config, value in
            config.speechAPIKey = value.isEmpty ? nil : value
            return nil
        },
        Setting(
            name: "speech-api-key-file", valueName: "FILE", help: "File holding the API key for a speech-provider URL."
        ) {
            config, value in
            guard let text = try? String(contentsOfFile: value, encoding: .utf8) else { return "cannot read \(value)" }
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty else { return "\(value) is empty" }
            config.speechAPIKey = key
            return nil
        },
        Setting(
            name: "speech-model", valueName: "NAME", help: "Model asked of a speech-provider URL (default tts-1)."
        ) {
            config, value in
            guard !value.isEmpty else { return "must not be empty" }
            config.speechModel = value
            return nil
        },
        textSetting(
            "speech-espeak-path", "FILE", "The espeak-ng binary (default: espeak-ng on PATH).", \.speechEspeakPath),
        countSetting(
            "speech-concurrency", "Syntheses of /v1/audio/speech at once; more wait, then 429 (default 2).", 1...64,
            noun: "request count", \.speechConcurrency),
        durationSetting(
            "speech-max-duration", "Longest speech espeak-ng makes for one request; longer is a 400 (default 10m).",
            \.speechMaxDuration),
        durationSetting(
            "live-secret-ttl", "Lifetime of client secrets for /v1/realtime when none is asked (default 60s).",
            \.liveSecretTTL),
        durationSetting(
            "live-secret-max-ttl", "Longest lifetime a client secret may ask for (default 10m).", \.liveSecretMaxTTL),
        // Summaries and translations (EarshotNotes).
        Setting(
            name: "llm-base-url", valueName: "URL",
            help: "OpenAI-compatible chat API for summaries/translation, ending in /v1 (default: managed llama-server)."
        ) {
            config, value in
            guard let url = URL(string: value), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else { return "'\(value)' is not an http(s) URL (example: https://api.openai.com/v1)" }
            config.llmBaseURL = value.hasSuffix("/") ? String(value.dropLast()) : value
            return nil
        },
        Setting(name: "llm-api-key", valueName: "KEY", help: "API key for llm-base-url (default none).") {
            config, value in
            config.llmAPIKey = value.isEmpty ? nil : value
            return nil
        },
        textSetting("llm-model", "NAME", "Model name at llm-base-url (required with it).", \.llmModel),
        durationSetting("llm-timeout", "Time limit of one language-model request (default 5m).", \.llmTimeout),
        Setting(
            name: "llm-managed", valueName: "on|off",
            help: "Without llm-base-url, run the built-in llama-server + SmolLM2 on first use (default on)."
        ) {
            config, value in
            switch value.lowercased() {
            case "on", "true", "yes", "1": config.llmManaged = true
            case "off", "false", "no", "0": config.llmManaged = false
            default: return "'\(value)' is not on or off"
            }
            return nil
        },
        textSetting(
            "llm-server-path", "FILE", "The managed llama-server binary (default <model-home>/llama/bin/llama-server).",
            \.llmServerPath),
        textSetting(
            "llm-model-path", "FILE",
            "GGUF model of the managed llama-server (default <model-home>/models/SmolLM2-135M-Instruct.Q4_1.gguf).",
            \.llmModelPath),
        countSetting(
            "llm-context", "Language-model context window in tokens (default 4096).", 512...1_048_576,
            noun: "token count", \.llmContext),
        countSetting(
            "llm-threads", "CPU threads of the managed llama-server (default 2).", 1...256, noun: "thread count",
            \.llmThreads),
        Setting(
            name: "summary-method", valueName: "METHOD",
            help: "auto, llm or extractive: which summary leads (default auto, see docs/notes.md)."
        ) {
            config, value in
            guard ["auto", "llm", "extractive"].contains(value) else {
                return "'\(value)' is not auto, llm or extractive"
            }
            config.summaryMethod = value
            return nil
        },
    ]

    /// A setting holding a byte size (`512KiB`, `25MiB`…) within `range`.
    private static func sizeSetting(
        _ name: String, _ help: String, _ range: some RangeExpression<Int> & Sendable,
        _ path: any WritableKeyPath<ServerConfiguration, Int> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: "SIZE", help: help) { config, value in
            guard let size = ByteSize.parse(value), range.contains(size) else {
                return "'\(value)' is not a size \(describe(range, as: ByteSize.format)) (examples: 512KiB, 25MiB)"
            }
            config[keyPath: path] = size
            return nil
        }
    }

    /// A setting holding a whole number within `range` (`noun` names it in the error: "thread count").
    private static func countSetting(
        _ name: String, _ help: String, _ range: ClosedRange<Int>, noun: String,
        _ path: any WritableKeyPath<ServerConfiguration, Int> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: "N", help: help) { config, value in
            guard let count = Int(value), range.contains(count) else {
                return "'\(value)' is not a \(noun) (\(range.lowerBound)-\(range.upperBound))"
            }
            config[keyPath: path] = count
            return nil
        }
    }

    /// "between 4KiB and 1MiB" or "of at least 1KiB" for a closed or partial range.
    private static func describe(_ range: some RangeExpression<Int>, as format: (Int) -> String) -> String {
        switch range {
        case let closed as ClosedRange<Int>: "between \(format(closed.lowerBound)) and \(format(closed.upperBound))"
        case let from as PartialRangeFrom<Int>: "of at least \(format(from.lowerBound))"
        default: "in the allowed range"
        }
    }

    /// A setting holding a non-empty string (a name or a path).
    private static func textSetting(
        _ name: String, _ valueName: String, _ help: String,
        _ path: any WritableKeyPath<ServerConfiguration, String?> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: valueName, help: help) { config, value in
            guard !value.isEmpty else { return "must not be empty" }
            config[keyPath: path] = value
            return nil
        }
    }

    /// A setting holding a duration of at least one second.
    private static func durationSetting(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, Duration> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: "DURATION", help: help) { config, value in
            guard let duration = parseDuration(value), duration >= .seconds(1) else {
                return "'\(value)' is not a duration of at least 1s (examples: 90s, 30m, 24h, 7d)"
            }
            config[keyPath: path] = duration
            return nil
        }
    }

    /// Command-line options for every setting, plus `--config`.
    public static var commandLineOptions: [CommandSpec.Option] {
        [.init("config", valueName: "FILE", help: "JSON config file (also EARSHOT_CONFIG).")]
            + settings.map { .init($0.name, valueName: $0.valueName, help: "\($0.help) [\($0.environmentVariable)]") }
    }

    /// Loads configuration from `arguments` (parsed flags), `environment` and the optional config file.
    ///
    /// - Parameter readFile: reads the config file; injectable for tests.
    /// - Throws: ``ConfigurationError`` listing every invalid value, unknown file key or unreadable file.
    public static func load(
        arguments: ParsedArguments, environment: [String: String],
        readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws(ConfigurationError) -> ServerConfiguration {
        var issues: [ConfigurationIssue] = []
        var layers: [(source: String, values: [String: String])] = []

        let configPath = arguments.value("config") ?? environment["EARSHOT_CONFIG"]
        if let configPath {
            switch readConfigFile(configPath, readFile: readFile) {
            case .success(let values): layers.append(("config file \(configPath)", values))
            case .failure(let error): issues += error.issues
            }
        }
        var fromEnvironment: [String: String] = [:]
        for setting in settings {
            if let value = environment[setting.environmentVariable] { fromEnvironment[setting.name] = value }
        }
        layers.append(("environment", fromEnvironment))
        layers.append(("command line", arguments.optionValues.filter { $0.key != "config" }))

        var config = ServerConfiguration()
        for layer in layers {
            for setting in settings {
                guard let value = layer.values[setting.name] else { continue }
                let source = layer.source == "environment" ? setting.environmentVariable : layer.source
                if let problem = setting.apply(&config, value) {
                    issues.append(ConfigurationIssue(setting: setting.name, source: source, message: problem))
                }
            }
        }
        let parts = (config.uploadMaxFileSize + config.uploadChunkSize - 1) / config.uploadChunkSize
        if issues.isEmpty && parts > UploadService.maximumPartCount {
            issues.append(
                ConfigurationIssue(
                    setting: "upload-max-file-size", source: "with upload-chunk-size",
                    message: "\(config.uploadMaxFileSize) bytes in parts of \(config.uploadChunkSize) would need "
                        + "\(parts) parts (at most \(UploadService.maximumPartCount)); raise upload-chunk-size"))
        }
        if issues.isEmpty && config.blobStore != nil && config.uploadDirect
            && config.uploadChunkSize < ServerConfiguration.minimumDirectPartSize
        {
            issues.append(
                ConfigurationIssue(
                    setting: "upload-chunk-size", source: "with blob-store and upload-direct",
                    message: "parts of \(config.uploadChunkSize) bytes are below S3's smallest part of 5MiB "
                        + "(\(ServerConfiguration.minimumDirectPartSize) bytes): raise upload-chunk-size, or set "
                        + "upload-direct off to send parts through the server"))
        }
        if config.llmBaseURL != nil && config.llmModel == nil {
            issues.append(
                ConfigurationIssue(
                    setting: "llm-model", source: "with llm-base-url",
                    message: "name the model to ask at \(config.llmBaseURL!) (example: gpt-4o-mini)"))
        }
        issues += config.accountIssues()
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return config
    }

    private static func readConfigFile(
        _ path: String, readFile: (String) throws -> Data
    ) -> Result<[String: String], ConfigurationError> {
        let source = "config file \(path)"
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            let issue = ConfigurationIssue(setting: "config", source: source, message: "cannot read the file")
            return .failure(ConfigurationError(issues: [issue]))
        }
        guard let object = try? JSONDecoder().decode([String: FileValue].self, from: data) else {
            let issue = ConfigurationIssue(setting: "config", source: source, message: "not a JSON object of settings")
            return .failure(ConfigurationError(issues: [issue]))
        }
        var values: [String: String] = [:]
        var issues: [ConfigurationIssue] = []
        let known = settings.map(\.name)
        for (key, raw) in object.sorted(by: { $0.key < $1.key }) {
            guard known.contains(key) else {
                var message = "unknown setting"
                if let suggestion = closestMatch(to: key, among: known) { message += "; did you mean '\(suggestion)'?" }
                issues.append(ConfigurationIssue(setting: key, source: source, message: message))
                continue
            }
            guard case .text(let text) = raw else {
                issues.append(ConfigurationIssue(setting: key, source: source, message: "must be a string or a number"))
                continue
            }
            values[key] = text
        }
        return issues.isEmpty ? .success(values) : .failure(ConfigurationError(issues: issues))
    }

    /// A config-file value: strings and numbers become text for the setting's parser; anything else is refused.
    private enum FileValue: Decodable {
        case text(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if (try? container.decode(Bool.self)) != nil {
                self = .other
            } else if let string = try? container.decode(String.self) {
                self = .text(string)
            } else if let integer = try? container.decode(Int.self) {
                self = .text(String(integer))
            } else if let number = try? container.decode(Double.self) {
                self = .text(String(number))
            } else {
                self = .other
            }
        }
    }
}

extension ServerConfiguration {
    /// Parses a duration as settings write it (`30s`, `500ms`, `2m`, `1h`, `7d`, or seconds); nil if malformed.
    public static func duration(_ text: String) -> Duration? { parseDuration(text) }
}

/// `30s`, `500ms`, `2m`, `1h`, `7d`, or a plain number of seconds.
func parseDuration(_ text: String) -> Duration? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        guard let number = Double(text.dropLast(suffix.count)), number >= 0, number.isFinite else { return nil }
        return .milliseconds(Int64((number * scale * 1000).rounded()))
    }
    guard let seconds = Double(text), seconds >= 0, seconds.isFinite else { return nil }
    return .milliseconds(Int64((seconds * 1000).rounded()))
}

/// True for a literal IPv4 or IPv6 address.
func isIPAddress(_ text: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
}
