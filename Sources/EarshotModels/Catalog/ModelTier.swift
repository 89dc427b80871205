/// A service tier from the seed API (`asr-fast`, `asr-pro`) mapped to a concrete model and decoding settings.
///
/// This is the one place the mapping lives, with the other names clients use for a tier (``aliases``);
/// EarshotSpeech applies the decoding fields (`TranscriptionOptions.applying(_:)`). Chosen from `make bench-asr` on this project's long-form file
/// (docs/speech.md): base q8_0 greedy was the best WER for its time (12.2× realtime, WER 0.104); base f16 did
/// not beat q8_0 and costs more memory, so both tiers run q8_0 and asr-pro adds beam search of width 5. No
/// larger multilingual Whisper is installable from PyPI; a stronger model file can be passed by path.
public struct ModelTier: Sendable, Hashable {
    /// Tier name as it appears on the wire (`model` field of a transcription task).
    public let name: String
    /// Catalog name of the model the tier runs (see ``ModelCatalog``).
    public let modelName: String
    /// Beam width; 1 means greedy decoding.
    public var beamSize: Int
    /// Candidates sampled per temperature when falling back from beam search (whisper.cpp `best_of`).
    public var bestOf: Int
    /// Temperature of the first decoding pass (0 = deterministic).
    public var temperature: Float
    /// Added to the temperature after a failed pass (0 disables fallback).
    public var temperatureIncrement: Float

    public init(
        name: String, modelName: String, beamSize: Int, bestOf: Int = 2, temperature: Float = 0,
        temperatureIncrement: Float = 0.2
    ) {
        self.name = name
        self.modelName = modelName
        self.beamSize = beamSize
        self.bestOf = bestOf
        self.temperature = temperature
        self.temperatureIncrement = temperatureIncrement
    }

    /// Low latency: Whisper base, 8-bit, greedy.
    public static let fast = ModelTier(name: "asr-fast", modelName: "base-q8_0", beamSize: 1)
    /// Higher accuracy: Whisper base, 8-bit, beam search of width 5.
    public static let pro = ModelTier(name: "asr-pro", modelName: "base-q8_0", beamSize: 5)

    /// Every tier, fastest first.
    public static let all: [ModelTier] = [.fast, .pro]

    /// Other names clients bring for a tier, each with the tier name it stands for: `whisper-1` (the model OpenAI
    /// clients send by default) and the seed platform's `ikho-asr-fast` / `ikho-asr-pro`.
    public static let aliases: [(alias: String, tier: String)] = [
        ("whisper-1", "asr-fast"),
        ("ikho-asr-fast", "asr-fast"),
        ("ikho-asr-pro", "asr-pro"),
    ]

    /// Every name that selects a tier: the tier names, then the aliases.
    public static var acceptedNames: [String] { all.map(\.name) + aliases.map(\.alias) }

    /// The sentence a refused model name gets: the tiers and every alias, so the client sees what it may send.
    public static func notOfferedMessage(_ name: String) -> String {
        let aliases = Self.aliases.map { "\($0.alias) (= \($0.tier))" }.joined(separator: ", ")
        return "model \"\(name.prefix(32))\" is not offered; use asr-fast (low latency) or asr-pro (high accuracy), "
            + "or an alias: \(aliases)"
    }

    /// The tier a model name selects: a tier name (`asr-fast`, `asr-pro`) or an alias of one (`whisper-1`,
    /// `ikho-asr-fast`, `ikho-asr-pro`); nil for any other name. The one place names become tiers: the server's
    /// task and OpenAI endpoints, the CLI's `--model` and ``ModelStore/resolve(_:)`` all call it.
    public static func named(_ name: String) -> ModelTier? {
        let canonical = aliases.first { $0.alias == name }?.tier ?? name
        return all.first { $0.name == canonical }
    }
}
