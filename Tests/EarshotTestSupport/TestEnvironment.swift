public import Foundation

/// Where a test finds what it needs: the setup cache (`$EARSHOT_HOME`: models, test audio), this checkout (committed
/// fixtures, scripts), the built products, tools on `PATH`, and fresh temporary directories. The one place tests read
/// `EARSHOT_HOME`.
public enum TestEnvironment {
    /// `$EARSHOT_HOME`, or `~/.cache/earshot` when unset or empty: the cache `make setup` fills with whisper.cpp,
    /// models, test audio and the LLM server (docs/setup.md).
    public static let home: URL = {
        let value = ProcessInfo.processInfo.environment["EARSHOT_HOME"] ?? ""
        return URL(fileURLWithPath: value.isEmpty ? NSHomeDirectory() + "/.cache/earshot" : value)
    }()

    /// A file of the setup's test audio: `home/testdata/<path>`.
    public static func testdata(_ path: String) -> URL { home.appendingPathComponent("testdata/" + path) }

    /// A model file: `home/models/<name>`.
    public static func model(_ name: String) -> URL { home.appendingPathComponent("models/" + name) }

    /// JFK's inaugural excerpt (11 s, 16 kHz mono 16-bit WAV).
    public static var jfk: URL { testdata("jfk.wav") }

    /// The model behind the `asr-fast` tier (base, q8_0), which `make models` installs.
    public static var asrFastModel: URL { model("ggml-base-q8_0.bin") }

    /// Resemblyzer's speaker-embedding weights, converted by `scripts/setup-diarization`.
    public static var speakerWeights: URL { model("resemblyzer-0.1.4.eswt") }

    /// True when every file exists (for `.enabled(if:)` traits).
    public static func exist(_ files: URL...) -> Bool {
        files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The checkout the tests were built from.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A committed fixture: `Tests/Fixtures/<path>`.
    public static func fixture(_ path: String) -> URL {
        repository.appendingPathComponent("Tests/Fixtures/" + path)
    }

    /// The directory of the built products (`.build/<configuration>/`), where the test bundle is.
    public static var products: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent() }

    /// An executable product of this package (`earshot`, `partner-backend`, `app-flow`).
    public static func product(_ name: String) -> URL { products.appendingPathComponent(name) }

    /// The executable `name` on `PATH`; nil when it is not installed.
    public static func executable(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Creates an empty directory `earshot-<label>-<uuid>` under the system temporary directory; the caller removes
    /// it.
    public static func makeTemporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
