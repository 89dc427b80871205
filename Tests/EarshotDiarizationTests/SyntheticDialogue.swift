import EarshotAudio
import Foundation

/// A dialogue synthesised with espeak-ng voices at test (or bench) time, with exact reference turns.
///
/// Each turn is synthesised to a WAV in a temp dir, decoded to 16 kHz, trimmed of leading/trailing silence and
/// concatenated with `gap` seconds of silence; the reference turns are the sample spans of the trimmed speech.
struct SyntheticDialogue {
    struct Turn {
        var speaker: String
        var start: Double
        var end: Double
    }
    var samples: [Float]
    var turns: [Turn]

    static let voices = ["en-us+m3", "en+f3", "en+klatt"]
    static let lines = [
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

    /// Builds a dialogue of `turnCount` turns over the first `speakers` voices (round robin, then a couple of
    /// out-of-order turns so that speaker order is not trivially periodic). Needs `espeak-ng` on PATH.
    static func make(speakers: Int, turnCount: Int, gap: Double = 0.5, directory: URL) throws -> SyntheticDialogue {
        var order = (0..<turnCount).map { $0 % speakers }
        if turnCount > 4 { order.swapAt(turnCount - 2, turnCount - 3) }
        var samples = [Float](repeating: 0, count: Int(gap * 16_000))
        var turns: [Turn] = []
        for (n, speaker) in order.enumerated() {
            let wav = directory.appendingPathComponent("turn\(n).wav")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "espeak-ng", "-v", voices[speaker], "-s", "165", "-w", wav.path, lines[n % lines.count],
            ]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "espeak-ng failed"])
            }
            var speech = try AudioDecoder(contentsOf: wav).decodeAll()
            let first = speech.firstIndex { abs($0) > 1e-3 } ?? 0
            let last = speech.lastIndex { abs($0) > 1e-3 } ?? (speech.count - 1)
            speech = Array(speech[first...last])
            let start = Double(samples.count) / 16_000
            samples += speech
            turns.append(Turn(speaker: "S\(speaker + 1)", start: start, end: Double(samples.count) / 16_000))
            samples += [Float](repeating: 0, count: Int(gap * 16_000))
        }
        return SyntheticDialogue(samples: samples, turns: turns)
    }

    static var espeakAvailable: Bool {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/espeak-ng") } ?? false
    }
}
