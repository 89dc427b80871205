/// A service tier from the seed API (`asr-fast`, `asr-pro`) mapped to a concrete model and decoding settings.
///
/// This is the one place the mapping lives. The model side is chosen from the measurements in
/// `notes/models.md` (base q8_0 greedy: 13.7× realtime, WER 0.100; base f16 beam 5: 6.3×, WER 0.074 on this
/// machine). The decoding fields are owned by the speech engine: change them here, next to the model they
/// were measured with.
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
        name: String, modelName: String, beamSize: Int, bestOf: Int = 5, temperature: Float = 0,
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
    /// High accuracy: Whisper base, float16, beam search of width 5.
    public static let pro = ModelTier(name: "asr-pro", modelName: "base", beamSize: 5)

    /// Every tier, fastest first.
    public static let all: [ModelTier] = [.fast, .pro]

    /// The tier called `name` (`asr-fast`, `asr-pro`), if any.
    public static func named(_ name: String) -> ModelTier? { all.first { $0.name == name } }
}
