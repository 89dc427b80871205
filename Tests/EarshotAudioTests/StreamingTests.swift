import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

/// Long generated files: memory stays flat while streaming, and cancellation stops decoding promptly.
@Suite("Streaming a long file", .serialized)
struct StreamingTests {
    /// `seconds` of 16 kHz mono MP3 (a beeping tone plus pink noise), generated with the ffmpeg CLI (~4 ms per
    /// second of audio).
    static func generateMP3(seconds: Int, in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("long.mp3")
        try FFmpeg.run([
            "-f", "lavfi", "-i", "sine=frequency=300:beep_factor=4:sample_rate=16000:duration=\(seconds)",
            "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.05:sample_rate=16000:duration=\(seconds)",
            "-filter_complex", "amix=inputs=2:duration=shortest", "-ac", "1", "-c:a", "libmp3lame", "-b:a", "32k",
            url.path,
        ])
        return url
    }

    @Test("20 minutes of MP3 stream through with flat memory (76.8 MB of samples, RSS grows < 25 MB)")
    func flatMemory() async throws {
        guard try await IsolatedProcess.runsIsolated() else { return }  // RSS must not count other suites
        let directory = try TemporaryDirectory()
        let url = try Self.generateMP3(seconds: 1_200, in: directory)
        let decoder = try await AudioDecoder.open(contentsOf: url)
        #expect(abs((decoder.info.durationMilliseconds ?? 0) - 1_200_000) < 500)
        var total = 0
        var baseline = 0
        var peak = 0
        for try await chunk in decoder.chunks() {
            total += chunk.count
            let resident = IsolatedProcess.residentBytes()
            if total <= 2 * 480_000 { baseline = max(baseline, resident) }
            peak = max(peak, resident)
        }
        #expect(abs(total - 1_200 * 16_000) < 16_000)
        let growth = peak - baseline
        #expect(
            growth < 25_000_000,
            "RSS grew by \(growth / 1_000_000) MB while decoding \(total * 4 / 1_000_000) MB of samples")
    }

    @Test("cancelling the consuming task stops decoding within a chunk and throws CancellationError")
    func cancellation() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.generateMP3(seconds: 300, in: directory)
        let decoder = try await AudioDecoder.open(contentsOf: url)
        let consumer = Task {
            var chunks = 0
            for try await _ in decoder.chunks(maxSamples: 160_000) {
                chunks += 1
                if chunks == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return chunks
        }
        let result = await consumer.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(decoder.report.samplesDelivered <= 4 * 160_000)
        #expect(!decoder.report.isFinished)

        // decodeAll() honours cancellation between packets too. Cancelled at once: a 300 s file decodes in well under
        // a second, so a cancel after a sleep can arrive after the end on a loaded machine.
        let other = try await AudioDecoder.open(contentsOf: url)
        let whole = Task { try await other.decodeAll() }
        whole.cancel()
        await #expect(throws: CancellationError.self) { try await whole.value }
        #expect(!other.report.isFinished)
    }
}
