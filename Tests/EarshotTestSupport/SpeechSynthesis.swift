/// What the tests' synthetic speakers say and with which espeak-ng voices (speaking it: `SpeechSynthesis+Speaking`).
///
/// Plain data without imports: `Benchmarks/diarization` compiles this file too (a symlink), because it shares
/// `SyntheticDialogue` with the diarization tests and cannot depend on this test-support module.
public enum SpeechSynthesis {
    /// Three clearly different espeak-ng voices.
    public static let voices = ["en-us+m3", "en+f3", "en+klatt"]

    /// The speaking rate the tests use, in words per minute (espeak-ng's `-s`).
    public static let defaultSpeed = 165

    /// Lines for enrolment samples (not used in the dialogues).
    public static let enrolmentLines = [
        "The quick brown fox jumps over the lazy dog near the river bank.",
        "Please remember to bring your umbrella, the forecast says it will rain all afternoon.",
        "Our meeting has been moved to Thursday at half past two in the small conference room.",
    ]

    /// A support call, one line per turn.
    public static let supportCallLines = [
        "Good morning, thanks for calling the support line. How can I help you today?",
        "Hi, I ordered a pair of headphones last week and they still have not arrived.",
        "I am sorry to hear that. Could you give me the order number, please?",
        "Sure, it is four seven two nine one, placed on Monday afternoon.",
        "Thank you. I can see the parcel left our warehouse on Wednesday morning.",
        "That is strange, the tracking page has not changed for three days now.",
        "Let me check with the courier. It looks like the van was delayed by the storm.",
        "Okay. Will it arrive before the weekend, or should I ask for a refund instead?",
        "It should arrive tomorrow. If it does not, we will send a replacement for free.",
        "Great, that works for me. Thank you very much for your help.",
        "You are welcome. Is there anything else I can do for you today?",
        "No, that is everything. Have a nice day and good luck with the storm.",
    ]

    /// A Spanish line for the live interpretation and dialogue tests (espeak-ng voice `es`), and what it means.
    ///
    /// Whisper base's translate task is fragile on espeak-ng's Spanish: "Buenos días. Me llamo Juan y vivo en
    /// Madrid." came out as "Good bye. See you soon in Madrid." or "Good news, we are going to the sea." depending
    /// on the speaking rate and on how ggml was built (docs/decisions/0014). This line came out as "Good morning,
    /// my {mother, brother, sister} works in a hospital in Barcelona." at 120, 130, 140 and 150 words per minute
    /// with both builds (WER 0.1 against ``spanishLineInEnglish``), so its tests check the live path, not luck.
    public static let spanishLine = "Buenos días. Mi hermana trabaja en un hospital en Barcelona."
    public static let spanishLineInEnglish = "Good morning. My sister works in a hospital in Barcelona."

    /// The first six lines of ``supportCallLines``: a short dialogue.
    public static let dialogueLines = Array(supportCallLines.prefix(6))
}
