/// The voice names of OpenAI's speech API, which every ``SpeechSynthesizer`` accepts: a remote provider gets the
/// name as it is; espeak-ng speaks each with a distinct variant of its own (``EspeakSynthesizer``).
public enum StandardVoice: String, Sendable, CaseIterable {
    case alloy, ash, ballad, coral, echo, fable, onyx, nova, sage, shimmer, verse

    /// The voice of a request that names none.
    public static let `default` = StandardVoice.alloy

    /// The voice called `name` (case-insensitive), nil for another name.
    public static func named(_ name: String) -> StandardVoice? { StandardVoice(rawValue: name.lowercased()) }

    /// Every name, comma-separated, for error messages.
    public static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
