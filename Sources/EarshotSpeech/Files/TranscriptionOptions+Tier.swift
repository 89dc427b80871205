public import EarshotModels

extension TranscriptionOptions {
    /// These options with the decoding settings of `tier` (beam width, best-of, temperature and its fallback
    /// step); language, task, prompt, timestamps and VAD are left as they are.
    public func applying(_ tier: ModelTier) -> TranscriptionOptions {
        var options = self
        options.beamSize = tier.beamSize
        options.bestOf = tier.bestOf
        options.temperature = tier.temperature
        options.temperatureIncrement = tier.temperatureIncrement
        return options
    }
}
