import Foundation

extension SpeechSynthesis {
    /// Writes `text` spoken by espeak-ng `voice` to the WAV file `url`. (The tests speak through
    /// Tests/EarshotTestSupport, which a benchmark cannot depend on: it links Swift Testing.)
    static func speak(_ text: String, voice: String, to url: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["espeak-ng", "-v", voice, "-s", "\(defaultSpeed)", "-w", url.path, text]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "espeak-ng failed on: \(text)"])
        }
    }
}
