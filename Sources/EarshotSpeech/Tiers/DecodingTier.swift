/// The decoding side of the two service tiers the API names, `asr-fast` and `asr-pro`: which model file each
/// prefers and how it decodes. (Which files exist and how they are installed is EarshotModels' business.)
///
/// Chosen from measurements on this project's bench (docs/speech.md, `make bench-asr`).
public struct DecodingTier: Sendable, Hashable {
    /// The tier's API name.
    public let name: String
    /// Model file names to try in `$EARSHOT_HOME/models`, best first.
    public let modelFiles: [String]
    /// Beam width (1 = greedy).
    public let beamSize: Int

    /// Low latency: greedy decoding.
    public static let fast = DecodingTier(
        name: "asr-fast", modelFiles: ["ggml-base-q8_0.bin", "ggml-base.bin"], beamSize: 1)
    /// Higher accuracy: beam search over 5.
    public static let pro = DecodingTier(
        name: "asr-pro", modelFiles: ["ggml-base-q8_0.bin", "ggml-base.bin"], beamSize: 5)
    /// Both tiers.
    public static let all: [DecodingTier] = [.fast, .pro]

    /// The tier called `name` (`asr-fast`, `asr-pro`), if any.
    public static func named(_ name: String) -> DecodingTier? { all.first { $0.name == name } }

    /// `options` with this tier's decoding settings applied.
    public func applied(to options: TranscriptionOptions) -> TranscriptionOptions {
        var options = options
        options.beamSize = beamSize
        return options
    }
}
