public import Foundation

/// Speech synthesised with espeak-ng (a child process) at test time: known voices saying known lines, for the
/// diarization, voiceprint and speaker-attribution tests. Files are 16-bit mono WAV at espeak-ng's 22,050 Hz.
extension SpeechSynthesis {
    /// True when `espeak-ng` is on `PATH` (Debian package `espeak-ng`).
    public static var available: Bool { TestEnvironment.executable(named: "espeak-ng") != nil }

    /// Writes `text` spoken by espeak-ng `voice` to the WAV file `url`.
    ///
    /// - Parameters:
    ///   - speed: words per minute.
    ///   - pitch: 0…99 (espeak-ng's `-p`); nil for the voice's own.
    /// - Throws: ``ChildProcessError`` with espeak-ng's stderr when it is missing or fails.
    public static func speak(
        _ text: String, voice: String, speed: Int = defaultSpeed, pitch: Int? = nil, to url: URL
    ) throws {
        guard let espeak = Program.tool("espeak-ng") else {
            throw ChildProcessError(
                message: "espeak-ng is not installed (apt-get install espeak-ng)", command: "espeak-ng",
                stderrTail: "")
        }
        let options = ["-v", voice, "-s", "\(speed)"] + (pitch.map { ["-p", "\($0)"] } ?? [])
        let result = try espeak.runBlocking(options + ["-w", url.path, text])
        guard result.status == 0 else {
            throw ChildProcessError("espeak-ng could not speak '\(text)'", result)
        }
    }

    /// One WAV of `turns` (voice, text) spoken in order, each followed by `gap` seconds of silence and the first
    /// preceded by `leadingSilence` (default `gap`), with the (start, end) seconds of each turn.
    public static func dialogue(
        _ turns: [(voice: String, text: String)], gap: Double = 0.5, leadingSilence: Double? = nil,
        speed: Int = defaultSpeed, pitch: Int? = nil
    ) throws -> (wav: Data, spans: [(start: Double, end: Double)]) {
        let directory = try TestEnvironment.makeTemporaryDirectory("espeak")
        defer { try? FileManager.default.removeItem(at: directory) }
        var pcm = Data()
        var format = Data()
        var spans: [(Double, Double)] = []
        for (index, turn) in turns.enumerated() {
            let url = directory.appendingPathComponent("turn\(index).wav")
            try speak(turn.text, voice: turn.voice, speed: speed, pitch: pitch, to: url)
            let (fmt, data) = TestWAV.chunks(of: try Data(contentsOf: url))
            format = fmt
            let sampleRate = Double(TestWAV.sampleRate(of: fmt))
            func silence(_ seconds: Double) -> Data { Data(count: Int(seconds * sampleRate) * 2) }
            if index == 0 { pcm += silence(leadingSilence ?? gap) }
            let start = Double(pcm.count / 2) / sampleRate
            pcm += data
            spans.append((start, Double(pcm.count / 2) / sampleRate))
            pcm += silence(gap)
        }
        return (TestWAV.file(format: format, data: pcm), spans)
    }
}
