// swift-tools-version:6.0
// Earshot — self-hosted AI voice notes. Targets are listed in layer order, lowest first: each depends only on those
// above it. docs/architecture.md draws the same graph (scripts/check-docs keeps them equal).
import PackageDescription

var targets: [Target] = []
var products: [Product] = []

// MARK: - Native libraries (one systemLibrary per C library, each imported by exactly one Swift module)
targets += [
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    .systemLibrary(
        name: "CFFmpeg", pkgConfig: "libavformat",
        providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]),
    // whisper.cpp, built by scripts/setup into $EARSHOT_HOME/whisper (PKG_CONFIG_PATH and rpath set by the Makefile).
    .systemLibrary(name: "CWhisper", pkgConfig: "whisper"),
    .systemLibrary(name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
    .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
    // Linux system calls Swift's Glibc module hides (copy_file_range, closefrom for posix_spawn); libc itself, no
    // package.
    .systemLibrary(name: "CSystem"),
]

// MARK: - Foundations: logging, ids, arguments, files; crypto; the wire types
targets += [
    .target(name: "EarshotCore", dependencies: ["CSystem"]),
    .target(name: "EarshotCrypto", dependencies: ["CCrypto", "CZlib"]),
    // Wire types shared by server, SDK and CLI; Foundation only, compiles for iOS.
    .target(name: "EarshotAPI"),
    // The recorder device protocol (frames, CRC-32, messages) spoken by devices, the simulator and the SDK; no
    // dependencies, compiles for iOS.
    .target(name: "EarshotDevice"),
]

// MARK: - Infrastructure: HTTP server, metadata/blob stores and the job queue
targets += [
    .target(name: "EarshotHTTP", dependencies: ["EarshotCore", "EarshotCrypto", "CMicroHTTPD"]),
    .target(name: "EarshotStore", dependencies: ["EarshotCore", "EarshotCrypto", "CSQLite", "CSystem"]),
    // The scale-out metadata backend: PostgreSQL (pooled connections, serialisable writes, LISTEN/NOTIFY).
    .target(name: "EarshotPostgres", dependencies: ["EarshotCore", "EarshotStore", "CLibPQ"]),
    // The scale-out blob store: S3-compatible object stores, requests signed with Signature V4 (written here).
    .target(name: "EarshotS3", dependencies: ["EarshotCore", "EarshotStore", "EarshotCrypto"]),
    // Accounts: Argon2id passwords, addresses and the country table, verification codes and their outbox (SMTP
    // through libcurl, SMS through an HTTP gateway), sessions.
    .target(
        name: "EarshotAccounts", dependencies: ["EarshotCore", "EarshotCrypto", "EarshotStore", "CArgon2", "CCurl"],
        resources: [.embedInCode("Addresses/countries.tsv")]),
]

// MARK: - Speech: audio decoding, models, the whisper.cpp engine, speakers, notes, evaluation
targets += [
    .target(name: "EarshotAudio", dependencies: ["EarshotCore", "CFFmpeg", "COpus"]),
    .target(name: "EarshotModels", dependencies: ["EarshotCore", "EarshotCrypto"]),
    .target(
        name: "EarshotSpeech", dependencies: ["EarshotCore", "EarshotAudio", "EarshotModels", "CWhisper", "CZlib"]),
    .target(name: "EarshotDiarization", dependencies: ["EarshotCore", "EarshotAudio", "EarshotSpeech", "COpenBLAS"]),
    // Summaries and translations of transcripts through a chat-completions language model.
    .target(name: "EarshotNotes", dependencies: ["EarshotCore"]),
    // A recorder device that really runs (storage, Opus recording, binding, the device protocol): the simulator.
    .target(
        name: "EarshotRecorder", dependencies: ["EarshotCore", "EarshotCrypto", "EarshotDevice", "EarshotAudio"]),
    .target(
        name: "EarshotEval", dependencies: ["EarshotCore"],
        resources: [.embedInCode("Normalization/american-spellings.txt")]),
    // Speech synthesis: espeak-ng as a child process (GPL, never linked) or any OpenAI-compatible /v1/audio/speech.
    .target(name: "EarshotVoice", dependencies: ["EarshotCore"]),
    // Live audio: OpenAI-Realtime-compatible transcription sessions (turn detection, partial/final text policy).
    .target(name: "EarshotLive", dependencies: ["EarshotCore", "EarshotAudio", "EarshotSpeech"]),
]

// MARK: - Server and SDK
targets += [
    // The web console: HTML, CSS and JavaScript modules under Assets/, embedded in the binary, served at `/`.
    .target(
        name: "EarshotConsole", dependencies: ["EarshotHTTP", "EarshotCrypto"],
        resources: [
            "index.html", "console.css", "app.js", "api.js", "dom.js", "auth.js", "library.js", "record.js", "wave.js",
            "upload.js", "quality.js", "devices.js", "admin.js", "languages.js", "live.js", "capture.js", "realtime.js",
            "conversation.js",
        ].map { .embedInCode("Assets/" + $0) }),
    .target(
        name: "EarshotServer",
        dependencies: [
            "EarshotCore", "EarshotAPI", "EarshotCrypto", "EarshotHTTP", "EarshotStore", "EarshotPostgres", "EarshotS3",
            "EarshotAudio", "EarshotModels", "EarshotSpeech", "EarshotNotes", "EarshotDiarization", "EarshotAccounts",
            "EarshotConsole", "EarshotLive", "EarshotEval", "EarshotVoice",
        ],
        resources: [.embedInCode("OpenAPI/openapi.json")]),  // a symlink to docs/openapi.json
    // The Swift SDK: Foundation + wire types only, so the same source compiles for iOS/macOS and Linux.
    .target(name: "EarshotKit", dependencies: ["EarshotAPI", "EarshotDevice"]),
]
products += [.library(name: "EarshotKit", targets: ["EarshotKit"])]

// MARK: - Executables: the CLI, the examples partners copy, benchmark helpers (not shipped)
targets += [
    .executableTarget(
        name: "earshot",
        dependencies: [
            "EarshotCore", "EarshotAPI", "EarshotServer", "EarshotEval", "EarshotLive", "EarshotModels", "EarshotSpeech",
            "EarshotKit", "EarshotAudio", "EarshotDiarization", "EarshotStore", "EarshotPostgres", "EarshotAccounts",
            "EarshotRecorder",
        ]),
    // Seed 001's "your backend": user tokens, transcription submit/relay, signed webhooks (EarshotKit + EarshotHTTP).
    .executableTarget(
        name: "partner-backend", dependencies: ["EarshotKit", "EarshotAPI", "EarshotHTTP", "EarshotCore"],
        path: "Examples/PartnerBackend"),
    // Seed 001's app side as a CLI: token from the backend → resumable upload with progress → transcript (EarshotKit).
    .executableTarget(name: "app-flow", dependencies: ["EarshotKit", "EarshotAPI"], path: "Examples/AppFlow"),
    .executableTarget(
        name: "earshot-bench-upload", dependencies: ["EarshotCore", "EarshotHTTP", "EarshotStore"],
        path: "Benchmarks/UploadTarget"),
    .executableTarget(
        name: "earshot-bench-asr", dependencies: ["EarshotSpeech", "EarshotEval"], path: "Benchmarks/asr/Runner"),
    .executableTarget(
        name: "earshot-bench-diarization",
        dependencies: ["EarshotDiarization", "EarshotAudio", "EarshotEval", "EarshotSpeech"],
        path: "Benchmarks/diarization/Target"),
    .executableTarget(name: "earshot-bench-notes", dependencies: ["EarshotNotes"], path: "Benchmarks/notes/Runner"),
    // Benchmarks/api/run's client (uploads and task latency through EarshotKit).
    .executableTarget(
        name: "earshot-bench-api", dependencies: ["EarshotKit", "EarshotAPI"], path: "Benchmarks/api/Runner"),
    .executableTarget(
        name: "earshot-bench-records", dependencies: ["EarshotServer", "EarshotStore"],
        path: "Benchmarks/records/Target"),
    // `make fuzz`'s libFuzzer targets (Tests/Fuzz/run builds them with -sanitize=fuzzer -DFUZZING); built plainly,
    // it replays a corpus: `earshot-fuzz TARGET FILE…`.
    .executableTarget(
        name: "earshot-fuzz", dependencies: ["EarshotHTTP", "EarshotAPI", "EarshotAudio", "EarshotDevice"],
        path: "Tests/Fuzz/Harness"),
]
products += [.executable(name: "earshot", targets: ["earshot"])]

// MARK: - Test kit and tests
targets += [
    // Child processes, the test environment, speech synthesis (shared by every test target).
    .target(name: "EarshotTestSupport", dependencies: ["EarshotCore"], path: "Tests/EarshotTestSupport"),
    // The in-process server of the server and SDK tests; apart from EarshotTestSupport so that the tests of the lower
    // layers (HTTP, Store, Audio, …) do not depend on EarshotServer.
    .target(
        name: "EarshotServerTestSupport", dependencies: ["EarshotServer", "EarshotAPI", "EarshotTestSupport"],
        path: "Tests/EarshotServerTestSupport"),
    .testTarget(name: "EarshotCoreTests", dependencies: ["EarshotCore"]),
    .testTarget(name: "EarshotCryptoTests", dependencies: ["EarshotCrypto"]),
    .testTarget(name: "EarshotAPITests", dependencies: ["EarshotAPI"]),
    .testTarget(name: "EarshotDeviceTests", dependencies: ["EarshotDevice"]),
    .testTarget(
        name: "EarshotRecorderTests",
        dependencies: ["EarshotRecorder", "EarshotDevice", "EarshotCrypto", "EarshotHTTP", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotHTTPTests", dependencies: ["EarshotHTTP", "EarshotCore", "EarshotCrypto", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotAccountsTests",
        dependencies: ["EarshotAccounts", "EarshotStore", "EarshotCore", "EarshotCrypto", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotS3Tests", dependencies: ["EarshotS3", "EarshotStore", "EarshotCrypto", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotStoreTests",
        dependencies: ["EarshotStore", "EarshotPostgres", "EarshotCrypto", "EarshotTestSupport"]),
    .testTarget(name: "EarshotAudioTests", dependencies: ["EarshotAudio", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotModelsTests",
        dependencies: ["EarshotModels", "EarshotCore", "EarshotCrypto", "earshot", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotSpeechTests", dependencies: ["EarshotSpeech", "EarshotModels", "EarshotEval", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotDiarizationTests",
        dependencies: ["EarshotDiarization", "EarshotAudio", "EarshotEval", "EarshotSpeech", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotNotesTests", dependencies: ["EarshotNotes", "EarshotHTTP", "EarshotCore", "EarshotTestSupport"]),
    .testTarget(name: "EarshotEvalTests", dependencies: ["EarshotEval", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotVoiceTests",
        dependencies: [
            "EarshotVoice", "EarshotAudio", "EarshotSpeech", "EarshotModels", "EarshotEval", "EarshotTestSupport",
        ]),
    .testTarget(
        name: "EarshotLiveTests",
        dependencies: ["EarshotLive", "EarshotSpeech", "EarshotAudio", "EarshotEval", "EarshotTestSupport"]),
    .testTarget(
        name: "EarshotServerTests",
        dependencies: [
            "EarshotServer", "EarshotCore", "EarshotAPI", "EarshotCrypto", "EarshotHTTP", "EarshotStore",
            "EarshotPostgres", "EarshotSpeech", "EarshotNotes", "EarshotConsole", "EarshotTestSupport",
            "EarshotServerTestSupport", "EarshotDevice", "EarshotRecorder", "EarshotEval", "EarshotVoice",
            "EarshotAudio",
        ],
        exclude: ["Fixtures"]),
    .testTarget(
        name: "EarshotKitTests",
        dependencies: [
            "EarshotKit", "EarshotAPI", "EarshotDevice", "EarshotRecorder", "EarshotServer", "EarshotHTTP", "EarshotCore",
            "EarshotCrypto", "EarshotEval", "EarshotTestSupport", "EarshotServerTestSupport",
        ]),
    // The web console in headless Chromium (Selenium, Browser/console_browser.py) against `earshot serve`.
    .testTarget(
        name: "EarshotConsoleTests",
        dependencies: ["earshot", "EarshotServer", "EarshotStore", "EarshotEval", "EarshotTestSupport"],
        exclude: ["Browser"]),
    // End-to-end tests of the built binary (run as a child process).
    .testTarget(
        name: "EarshotCLITests", dependencies: ["earshot", "EarshotTestSupport", "EarshotDevice", "EarshotCrypto"]),
    // The seed's whole flow across real processes: `earshot serve` + partner-backend + an app on EarshotKit.
    .testTarget(
        name: "PartnerBackendTests",
        dependencies: [
            "EarshotKit", "EarshotAPI", "EarshotEval", "earshot", "partner-backend", "app-flow", "EarshotTestSupport",
        ]),
]

// MARK: - Settings, applied once to every Swift target: Swift 6 mode (below), strict concurrency, and these.
for target in targets where target.type != .system {
    target.swiftSettings = [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
