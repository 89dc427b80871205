// swift-tools-version:6.0
// Earshot — self-hosted AI voice notes. See docs/architecture.md for the module map.
import PackageDescription

/// Strict concurrency and Swift 6 mode everywhere (set once, applied to every Swift target below).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

var targets: [Target] = []
var products: [Product] = []

// MARK: - Core
targets += [
    .target(name: "EarshotCore", swiftSettings: swiftSettings),
    .testTarget(name: "EarshotCoreTests", dependencies: ["EarshotCore"], swiftSettings: swiftSettings),
]

// MARK: - Test support (shared by test targets only)
targets += [
    // Child processes, the test environment ($EARSHOT_HOME, products, fixtures), espeak-ng speech, test WAVs.
    .target(name: "EarshotTestSupport", path: "Tests/EarshotTestSupport", swiftSettings: swiftSettings)
]

// MARK: - API (wire types shared by server, SDK and CLI; Foundation only, compiles for iOS)
targets += [
    .target(name: "EarshotAPI", swiftSettings: swiftSettings),
    .testTarget(name: "EarshotAPITests", dependencies: ["EarshotAPI"], swiftSettings: swiftSettings),
]

// MARK: - Native libraries (one systemLibrary per C library)
targets += [
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])])
]

// MARK: - Crypto
targets += [
    .target(name: "EarshotCrypto", dependencies: ["CCrypto"], swiftSettings: swiftSettings),
    .testTarget(name: "EarshotCryptoTests", dependencies: ["EarshotCrypto"], swiftSettings: swiftSettings),
]

// MARK: - HTTP
targets += [
    .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    .target(
        name: "EarshotHTTP", dependencies: ["EarshotCore", "EarshotCrypto", "CMicroHTTPD"], swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "EarshotHTTPTests", dependencies: ["EarshotHTTP", "EarshotCore", "EarshotCrypto", "EarshotTestSupport"],
        swiftSettings: swiftSettings),
]

// MARK: - Store
targets += [
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .target(
        name: "EarshotStore",
        dependencies: ["EarshotCore", "EarshotCrypto", "CSQLite"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "EarshotStoreTests",
        dependencies: ["EarshotStore", "EarshotCrypto", "EarshotTestSupport"],
        swiftSettings: swiftSettings
    ),
]

// MARK: - Eval
targets += [
    .target(
        name: "EarshotEval", dependencies: ["EarshotCore"],
        resources: [.embedInCode("Normalization/american-spellings.txt")], swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotEvalTests", dependencies: ["EarshotEval", "EarshotTestSupport"], swiftSettings: swiftSettings),
]

// MARK: - Audio
targets += [
    .systemLibrary(
        name: "CFFmpeg", pkgConfig: "libavformat",
        providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]),
    .target(name: "EarshotAudio", dependencies: ["EarshotCore", "CFFmpeg"], swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotAudioTests", dependencies: ["EarshotAudio", "EarshotTestSupport"], swiftSettings: swiftSettings),
]

// MARK: - Models
targets += [
    .target(name: "EarshotModels", dependencies: ["EarshotCore", "EarshotCrypto"], swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotModelsTests",
        dependencies: ["EarshotModels", "EarshotCore", "EarshotCrypto", "earshot", "EarshotTestSupport"],
        swiftSettings: swiftSettings),
]

// MARK: - Speech
targets += [
    // whisper.cpp, built by scripts/setup into $EARSHOT_HOME/whisper (PKG_CONFIG_PATH and rpath set by the Makefile).
    .systemLibrary(name: "CWhisper", pkgConfig: "whisper"),
    .target(
        name: "EarshotSpeech", dependencies: ["EarshotCore", "EarshotAudio", "EarshotModels", "CWhisper"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotSpeechTests",
        dependencies: ["EarshotSpeech", "EarshotModels", "EarshotEval", "EarshotTestSupport"],
        swiftSettings: swiftSettings),
    // Benchmarks/asr/run's in-process runner (not shipped).
    .executableTarget(
        name: "earshot-bench-asr", dependencies: ["EarshotSpeech", "EarshotEval"], path: "Benchmarks/asr/Runner",
        swiftSettings: swiftSettings),
]

// MARK: - Server
targets += [
    .target(
        name: "EarshotServer",
        dependencies: [
            "EarshotCore", "EarshotAPI", "EarshotCrypto", "EarshotHTTP", "EarshotStore", "EarshotAudio",
            "EarshotModels", "EarshotSpeech", "EarshotNotes",
            "EarshotDiarization",
        ],
        resources: [.embedInCode("OpenAPI/openapi.json")],  // a symlink to docs/openapi.json
        swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotServerTests",
        dependencies: [
            "EarshotServer", "EarshotCore", "EarshotAPI", "EarshotCrypto", "EarshotHTTP", "EarshotStore",
            "EarshotSpeech", "EarshotNotes", "EarshotTestSupport", "EarshotServerTestSupport",
        ],
        exclude: ["Fixtures"],
        swiftSettings: swiftSettings),
    // The in-process server of the server and SDK tests. A target of its own, apart from EarshotTestSupport, so that
    // the tests of the lower layers (HTTP, Store, Audio, …) do not depend on EarshotServer.
    .target(
        name: "EarshotServerTestSupport", dependencies: ["EarshotServer", "EarshotAPI", "EarshotTestSupport"],
        path: "Tests/EarshotServerTestSupport", swiftSettings: swiftSettings),
]

// MARK: - SDK (EarshotKit: Foundation + wire types only, so the same source compiles for iOS/macOS and Linux)
targets += [
    .target(name: "EarshotKit", dependencies: ["EarshotAPI"], swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotKitTests",
        dependencies: [
            "EarshotKit", "EarshotAPI", "EarshotServer", "EarshotHTTP", "EarshotCore", "EarshotCrypto",
            "EarshotTestSupport", "EarshotServerTestSupport",
        ],
        swiftSettings: swiftSettings),
]
products += [.library(name: "EarshotKit", targets: ["EarshotKit"])]

// MARK: - Executable
targets += [
    .executableTarget(
        name: "earshot",
        dependencies: [
            "EarshotCore", "EarshotAPI", "EarshotServer", "EarshotEval", "EarshotModels", "EarshotSpeech", "EarshotKit",
            "EarshotDiarization",
        ],
        swiftSettings: swiftSettings
    )
]
products += [.executable(name: "earshot", targets: ["earshot"])]
targets += [
    // End-to-end tests of the built binary (run as a child process).
    .testTarget(name: "EarshotCLITests", dependencies: ["earshot", "EarshotTestSupport"], swiftSettings: swiftSettings)
]

// MARK: - Benchmarks (helpers for Benchmarks/*/run; not shipped)
targets += [
    .executableTarget(
        name: "earshot-bench-upload", dependencies: ["EarshotCore", "EarshotHTTP", "EarshotStore"],
        path: "Benchmarks/UploadTarget", swiftSettings: swiftSettings),
    // Benchmarks/api/run's client (uploads and task latency through EarshotKit).
    .executableTarget(
        name: "earshot-bench-api", dependencies: ["EarshotKit", "EarshotAPI"], path: "Benchmarks/api/Runner",
        swiftSettings: swiftSettings),
    .executableTarget(
        name: "earshot-bench-records", dependencies: ["EarshotServer", "EarshotStore"],
        path: "Benchmarks/records/Target", swiftSettings: swiftSettings),
]

// MARK: - Examples (what partners copy; built and tested end to end, not shipped)
targets += [
    // Seed 001's "your backend": user tokens, transcription submit/relay, signed webhooks (EarshotKit + EarshotHTTP).
    .executableTarget(
        name: "partner-backend", dependencies: ["EarshotKit", "EarshotAPI", "EarshotHTTP", "EarshotCore"],
        path: "Examples/PartnerBackend", swiftSettings: swiftSettings),
    // Seed 001's app side as a CLI: token from the backend → resumable upload with progress → transcript (EarshotKit).
    .executableTarget(
        name: "app-flow", dependencies: ["EarshotKit", "EarshotAPI"], path: "Examples/AppFlow",
        swiftSettings: swiftSettings),
    // The seed's whole flow across real processes: `earshot serve` + partner-backend + an app on EarshotKit.
    .testTarget(
        name: "PartnerBackendTests",
        dependencies: [
            "EarshotKit", "EarshotAPI", "EarshotEval", "earshot", "partner-backend", "app-flow", "EarshotTestSupport",
        ],
        swiftSettings: swiftSettings),
]

// MARK: - Diarization
targets += [
    .systemLibrary(name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
    .target(
        name: "EarshotDiarization", dependencies: ["EarshotCore", "EarshotAudio", "EarshotSpeech", "COpenBLAS"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotDiarizationTests",
        dependencies: ["EarshotDiarization", "EarshotAudio", "EarshotEval", "EarshotSpeech", "EarshotTestSupport"],
        swiftSettings: swiftSettings),
    .executableTarget(
        name: "earshot-bench-diarization",
        dependencies: ["EarshotDiarization", "EarshotAudio", "EarshotEval", "EarshotSpeech"],
        path: "Benchmarks/diarization/Target", swiftSettings: swiftSettings),
]

// MARK: - Notes (summaries and translations of transcripts through a chat-completions language model)
targets += [
    .target(name: "EarshotNotes", dependencies: ["EarshotCore"], swiftSettings: swiftSettings),
    .testTarget(
        name: "EarshotNotesTests", dependencies: ["EarshotNotes", "EarshotHTTP", "EarshotCore", "EarshotTestSupport"],
        swiftSettings: swiftSettings),
    // Benchmarks/notes/run's runner (not shipped).
    .executableTarget(
        name: "earshot-bench-notes", dependencies: ["EarshotNotes"], path: "Benchmarks/notes/Runner",
        swiftSettings: swiftSettings),
]

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
