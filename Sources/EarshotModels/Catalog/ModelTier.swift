/// A service tier from the seed API (`asr-fast`, `asr-pro`) mapped to a concrete model and decoding settings.
///
/// This is the one place the mapping lives; EarshotSpeech applies the decoding fields
/// (`TranscriptionOptions.applying(_:)`). Chosen from `make bench-asr` on this project's long-form file
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

    /// The tier called `name` (`asr-fast`, `asr-pro`), if any.
    public static func named(_ name: String) -> ModelTier? { all.first { $0.name == name } }
}
