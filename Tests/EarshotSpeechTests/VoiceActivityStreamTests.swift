import EarshotSpeech
import Foundation
import Testing

/// Silero over audio as it arrives: the same probabilities whatever the pieces, speech where JFK speaks and silence
/// where there is none, and bad input refused without losing the stream.
@Suite struct VoiceActivityStreamTests {
    static var ready: Bool {
        FileManager.default.fileExists(atPath: Fixtures.silero)
            && FileManager.default.fileExists(atPath: Fixtures.testdata("jfk.wav"))
    }

    @Test(.enabled(if: ready, "needs the Silero model and jfk.wav: run `make setup`"))
    func piecesOfAnySizeGiveTheSameProbabilities() throws {
        let jfk = try Fixtures.samples(Fixtures.testdata("jfk.wav"))
        let audio = [Float](repeating: 0, count: 16_000) + jfk
        let stream = try VoiceActivityStream(modelPath: Fixtures.silero)

        let whole = try stream.append(audio[...])
        #expect(whole.count == audio.count / VoiceActivityStream.frameLength)
        // The second of silence before JFK is silence; most of his frames are speech.
        #expect(whole.prefix(31).allSatisfy { $0 < 0.2 }, "\(whole.prefix(31))")
        #expect(whole.dropFirst(31).filter { $0 >= 0.5 }.count * 2 > whole.count - 31)

        for piece in [1, 100, 511, 1_600, 7_777] {
            stream.reset()
            var pieces: [Float] = []
            for start in stride(from: 0, to: audio.count, by: piece) {
                pieces += try stream.append(audio[start..<min(audio.count, start + piece)])
            }
            #expect(pieces.count == whole.count, "pieces of \(piece)")
            #expect(zip(pieces, whole).allSatisfy { abs($0 - $1) < 1e-5 }, "pieces of \(piece)")
        }
    }

    @Test(.enabled(if: ready, "needs the Silero model and jfk.wav: run `make setup`"))
    func nonFiniteSamplesAreRefusedAndTheStreamGoesOn() throws {
        let jfk = try Fixtures.samples(Fixtures.testdata("jfk.wav"))
        let stream = try VoiceActivityStream(modelPath: Fixtures.silero)
        let reference = try stream.append(jfk[...])
        stream.reset()

        let first = try stream.append(jfk[..<1_000])
        #expect(throws: SpeechError.self) { try stream.append([0, .nan, 0][...]) }
        let rest = try stream.append(jfk[1_000...])
        #expect(first + rest == reference)
    }

    @Test func aMissingModelIsAClearError() {
        do {
            _ = try VoiceActivityStream(modelPath: "/nonexistent/silero.bin")
            Issue.record("loaded a model that does not exist")
        } catch {
            #expect(error.code == .voiceActivityFailed)
            #expect(error.message.contains("/nonexistent/silero.bin"))
        }
    }
}
