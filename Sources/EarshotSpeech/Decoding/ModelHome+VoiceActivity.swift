public import EarshotCore

extension ModelHome {
    /// File name of whisper.cpp's ggml Silero VAD model (installed by `make setup`).
    public static let voiceActivityModelFile = "silero-v6.2.0-ggml.bin"

    /// `HOME/models/silero-v6.2.0-ggml.bin`, the Silero VAD model every decode with VAD uses by default.
    public var voiceActivityModel: String { model(Self.voiceActivityModelFile) }
}
