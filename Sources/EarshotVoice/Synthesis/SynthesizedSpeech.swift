/// Speech a ``SpeechSynthesizer`` produced: mono samples in [-1, 1] at ``sampleRate``.
public struct SynthesizedSpeech: Sendable, Hashable {
    /// Mono samples, nominally in [-1, 1].
    public var samples: [Float]
    /// Samples per second (espeak-ng: 22,050 Hz; OpenAI-compatible providers: 24,000 Hz).
    public var sampleRate: Int

    /// Creates speech from samples at a rate.
    public init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// The length of the speech.
    public var duration: Duration { .microseconds(Int64(samples.count) * 1_000_000 / Int64(max(sampleRate, 1))) }
}
