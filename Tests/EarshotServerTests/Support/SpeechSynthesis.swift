import Foundation

/// Speech synthesised with espeak-ng at test time (known voices and turns) for the diarization and voiceprint tests.
enum SpeechSynthesis {
    /// Three clearly different espeak-ng voices (as Benchmarks/diarization uses).
    static let voices = ["en-us+m3", "en+f3", "en+klatt"]

    static var available: Bool {
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/espeak-ng") } ?? false
    }

    /// One 16-bit mono WAV of `turns` (voice, text) spoken in order with `gap` seconds of silence between them, and
    /// the (start, end) seconds of each turn.
    static func dialogue(_ turns: [(voice: String, text: String)], gap: Double = 0.5) throws -> (
        wav: Data, spans: [(start: Double, end: Double)]
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-espeak-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var pcm = Data()
        var format = Data()
        var sampleRate = 22_050
        var spans: [(Double, Double)] = []
        for (index, turn) in turns.enumerated() {
            let url = directory.appendingPathComponent("turn\(index).wav")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["espeak-ng", "-v", turn.voice, "-s", "165", "-w", url.path, turn.text]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
            let (fmt, data) = chunks(of: try Data(contentsOf: url))
            format = fmt
            sampleRate = Int(fmt[4]) | Int(fmt[5]) << 8 | Int(fmt[6]) << 16 | Int(fmt[7]) << 24
            let silence = Data(count: Int(gap * Double(sampleRate)) * 2)
            if index == 0 { pcm += silence }
            let start = Double(pcm.count / 2) / Double(sampleRate)
            pcm += data
            spans.append((start, Double(pcm.count / 2) / Double(sampleRate)))
            pcm += silence
        }
        func le32(_ value: Int) -> Data { withUnsafeBytes(of: UInt32(value).littleEndian) { Data($0) } }
        var wav = Data("RIFF".utf8) + le32(4 + 8 + format.count + 8 + pcm.count) + Data("WAVE".utf8)
        wav += Data("fmt ".utf8) + le32(format.count) + format
        wav += Data("data".utf8) + le32(pcm.count) + pcm
        return (wav, spans)
    }

    /// The `fmt ` and `data` chunk bodies of a WAV file.
    private static func chunks(of wav: Data) -> (format: Data, data: Data) {
        var offset = 12
        var format = Data(), data = Data()
        while offset + 8 <= wav.count {
            let id = String(decoding: wav[offset..<offset + 4], as: UTF8.self)
            var size =
                Int(wav[offset + 4]) | Int(wav[offset + 5]) << 8 | Int(wav[offset + 6]) << 16
                | Int(wav[offset + 7]) << 24
            // espeak-ng writing to a file leaves the data size at its streaming placeholder: take what is there.
            if id == "data" { size = min(size, wav.count - offset - 8) }
            let body = wav[(offset + 8)..<min(offset + 8 + size, wav.count)]
            if id == "fmt " { format = Data(body) }
            if id == "data" { data = Data(body) }
            offset += 8 + size + (size & 1)
        }
        return (format, data)
    }

    /// Lines for enrolment samples (not used in the dialogues).
    static let enrolmentLines = [
        "The quick brown fox jumps over the lazy dog near the river bank.",
        "Please remember to bring your umbrella, the forecast says it will rain all afternoon.",
        "Our meeting has been moved to Thursday at half past two in the small conference room.",
    ]

    /// Dialogue lines.
    static let dialogueLines = [
        "Good morning, thanks for calling the support line. How can I help you today?",
        "Hi, I ordered a pair of headphones last week and they still have not arrived.",
        "I am sorry to hear that. Could you give me the order number, please?",
        "Sure, it is four seven two nine one, placed on Monday afternoon.",
        "Thank you. I can see the parcel left our warehouse on Wednesday morning.",
        "That is strange, the tracking page has not changed for three days now.",
    ]
}
