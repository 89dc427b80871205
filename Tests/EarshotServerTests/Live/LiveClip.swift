import EarshotTestSupport
import Foundation
import Testing

/// JFK's clip as raw PCM16 for the live suites, in a temporary directory of its own: what they stream, and the
/// preconditions they share (the venv's websockets client, the models, the test audio).
struct LiveClip {
    let directory: URL
    /// 16 kHz mono, signed 16-bit little-endian.
    let pcm16: URL
    /// 24 kHz mono, signed 16-bit little-endian.
    let pcm24: URL

    /// The clip converted into a new directory named after `name`, or nil (with the issue recorded) when the
    /// machine lacks what the live suites need.
    static func make(_ name: String) throws -> LiveClip? {
        guard FileManager.default.isExecutableFile(atPath: RealtimeTranscriptionTests.python.path),
            TestEnvironment.exist(TestEnvironment.jfk), TestAudio.modelsInstalled
        else {
            Issue.record("run scripts/setup (venv with websockets, models, test audio)")
            return nil
        }
        let directory = try TestEnvironment.makeTemporaryDirectory(name)
        let clip = LiveClip(
            directory: directory, pcm16: directory.appendingPathComponent("jfk-16k.pcm"),
            pcm24: directory.appendingPathComponent("jfk-24k.pcm"))
        try FFmpeg.convert(TestEnvironment.jfk, to: clip.pcm16, ["-f", "s16le", "-ac", "1", "-ar", "16000"])
        try FFmpeg.convert(TestEnvironment.jfk, to: clip.pcm24, ["-f", "s16le", "-ac", "1", "-ar", "24000"])
        return clip
    }

    /// Removes the directory and everything the test put in it.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
