import Dispatch
import EarshotModels
import EarshotSpeech

/// One ``SpeechEngine`` per model file, loaded on first use and kept for the life of the process; shared by every
/// worker and the OpenAI-compatible endpoints.
actor SpeechEngines {
    private let store: ModelStore
    private let concurrentDecodes: Int
    private var engines: [String: SpeechEngine] = [:]
    private var loading: [String: Task<SpeechEngine, any Error>] = [:]

    init(modelHome: String, concurrentDecodes: Int) {
        self.store = ModelStore(home: modelHome)
        self.concurrentDecodes = max(1, concurrentDecodes)
    }

    /// The engine and decoding tier for a model tier name (`asr-fast`, `asr-pro`).
    ///
    /// - Throws: `ModelError` when the tier's model is not installed (run `make models`), `SpeechError` when the
    ///   file cannot be loaded.
    func engine(for tierName: String) async throws -> (SpeechEngine, ModelTier) {
        let tier = ModelTier.named(tierName) ?? .fast
        let path = try store.resolve(tier.name).path  // throws ModelError when not installed
        if let engine = engines[path] { return (engine, tier) }
        if let pending = loading[path] { return (try await pending.value, tier) }
        let decodes = concurrentDecodes
        // Loading reads ~80 MB and takes about a second: keep it off the cooperative pool.
        let load = Task<SpeechEngine, any Error> {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    do {
                        let model = try SpeechModel(path: path)
                        continuation.resume(
                            returning: SpeechEngine(model: model, configuration: .init(concurrentDecodes: decodes)))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        loading[path] = load
        defer { loading[path] = nil }
        let engine = try await load.value
        engines[path] = engine
        return (engine, tier)
    }
}
