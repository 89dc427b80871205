/// The dimensions of a Whisper model, in the order whisper.cpp's ggml header stores them.
public struct WhisperHyperparameters: Hashable, Sendable, Codable {
    /// Vocabulary size including special tokens (51864 English-only, 51865 multilingual, 51866 large-v3).
    public var vocabularySize: Int
    /// Encoder positions (1500 = 30 s of audio).
    public var audioContext: Int
    /// Encoder width (384 tiny, 512 base, 768 small).
    public var audioState: Int
    /// Encoder attention heads.
    public var audioHeads: Int
    /// Encoder blocks (4 tiny, 6 base, 12 small).
    public var audioLayers: Int
    /// Decoder positions (448).
    public var textContext: Int
    /// Decoder width (equal to the encoder's).
    public var textState: Int
    /// Decoder attention heads.
    public var textHeads: Int
    /// Decoder blocks.
    public var textLayers: Int
    /// Mel bands of the input (80, or 128 for large-v3).
    public var melCount: Int

    /// Creates a set of dimensions (in header order).
    public init(
        vocabularySize: Int, audioContext: Int, audioState: Int, audioHeads: Int, audioLayers: Int,
        textContext: Int, textState: Int, textHeads: Int, textLayers: Int, melCount: Int
    ) {
        self.vocabularySize = vocabularySize
        self.audioContext = audioContext
        self.audioState = audioState
        self.audioHeads = audioHeads
        self.audioLayers = audioLayers
        self.textContext = textContext
        self.textState = textState
        self.textHeads = textHeads
        self.textLayers = textLayers
        self.melCount = melCount
    }

    /// True for multilingual vocabularies (the English-only models have 51864 tokens).
    public var isMultilingual: Bool { vocabularySize >= 51865 }

    /// whisper.cpp's size name, derived like its loader does from the encoder depth.
    public var sizeName: String {
        switch audioLayers {
        case 4: "tiny"
        case 6: "base"
        case 12: "small"
        case 24: "medium"
        case 32: vocabularySize == 51866 ? "large-v3" : "large"
        default: "\(audioLayers)-layer"
        }
    }

    /// The ten values in header order.
    var headerValues: [Int] {
        [
            vocabularySize, audioContext, audioState, audioHeads, audioLayers,
            textContext, textState, textHeads, textLayers, melCount,
        ]
    }
}
