import EarshotAudio
import Foundation
import Testing

@Suite("Amplitude envelope")
struct EnvelopeTests {
    /// `seconds` of a sine of `amplitude` at `frequency` Hz, sampled at `rate`.
    static func sine(seconds: Double, amplitude: Float, frequency: Double = 440, rate: Int = 16_000) -> [Float] {
        let step = 2 * Double.pi * frequency / Double(rate)
        return (0..<Int(seconds * Double(rate))).map { amplitude * Float(sin(step * Double($0))) }
    }

    static func sineRMS(_ amplitude: Float) -> Float { amplitude / Float(2).squareRoot() }

    @Test("a 0.5 sine gives min −0.5, max 0.5, RMS 0.5/√2 in every bucket")
    func sineLevels() {
        let envelope = AmplitudeEnvelope(samples: Self.sine(seconds: 2, amplitude: 0.5, frequency: 400))
        #expect(envelope.count == 100)
        #expect(envelope.pointsPerSecond == 50)
        for index in 0..<envelope.count {
            #expect(abs(envelope.maximum[index] - 0.5) < 0.002)
            #expect(abs(envelope.minimum[index] + 0.5) < 0.002)
            #expect(abs(envelope.rms[index] - Self.sineRMS(0.5)) < 0.002)
        }
    }

    @Test("silence then a tone: the envelope shows where the sound starts, to the bucket")
    func onset() {
        let samples = [Float](repeating: 0, count: 16_000) + Self.sine(seconds: 1, amplitude: 0.8)
        let envelope = AmplitudeEnvelope(samples: samples, pointsPerSecond: 10)
        #expect(envelope.count == 20)
        #expect(envelope.rms[..<10].allSatisfy { $0 == 0 })
        let level = Self.sineRMS(0.8)
        #expect(envelope.rms[10...].allSatisfy { abs($0 - level) < 0.01 })
    }

    @Test("streaming in uneven pieces gives the same envelope as one buffer")
    func chunkingInvariance() {
        let samples = Self.sine(seconds: 3.3, amplitude: 0.3, frequency: 97)
        let whole = AmplitudeEnvelope(samples: samples)
        var builder = EnvelopeBuilder()
        var start = 0
        var size = 1
        while start < samples.count {
            let end = min(samples.count, start + size)
            builder.append(samples[start..<end])
            start = end
            size = size * 3 % 1_777 + 1
        }
        #expect(builder.finish() == whole)
        #expect(whole.count == 165)
    }

    @Test("a trailing partial bucket is kept; buckets do not drift when the rate is not a multiple")
    func bucketBoundaries() {
        // 8000 Hz at 30 points/s: buckets of 266 or 267 samples, exactly 30 per second.
        let samples = [Float](repeating: 0.25, count: 8_000 * 2 + 10)
        let envelope = AmplitudeEnvelope(samples: samples, pointsPerSecond: 30, sampleRate: 8_000)
        #expect(envelope.count == 61)
        #expect(envelope.rms.allSatisfy { abs($0 - 0.25) < 1e-6 })
        #expect(AmplitudeEnvelope(samples: []).count == 0)
    }

    @Test("the compact encoding is 3 bytes per bucket and decodes to within one quantisation step")
    func encodingRoundTrip() throws {
        let samples = Self.sine(seconds: 1, amplitude: 0.9, frequency: 3) + Self.sine(seconds: 1, amplitude: 0.1)
        let envelope = AmplitudeEnvelope(samples: samples)
        let bytes = envelope.encoded()
        #expect(bytes.count == 16 + 3 * envelope.count)
        #expect(Array(bytes.prefix(4)) == Array("EENV".utf8))
        let decoded = try AmplitudeEnvelope(encoded: bytes)
        #expect(decoded.count == envelope.count)
        #expect(decoded.pointsPerSecond == 50)
        #expect(decoded.sampleRate == 16_000)
        for index in 0..<envelope.count {
            #expect(abs(decoded.minimum[index] - envelope.minimum[index]) <= 0.5 / 127 + 1e-6)
            #expect(abs(decoded.maximum[index] - envelope.maximum[index]) <= 0.5 / 127 + 1e-6)
            #expect(abs(decoded.rms[index] - envelope.rms[index]) <= 0.5 / 255 + 1e-6)
        }
    }

    @Test("damaged encodings are refused with a clear error")
    func damagedEncoding() {
        let bytes = AmplitudeEnvelope(samples: Self.sine(seconds: 1, amplitude: 0.5)).encoded()
        #expect { try AmplitudeEnvelope(encoded: Array(bytes.dropLast())) } throws: {
            ($0 as? AudioError)?.code == .corrupted
        }
        #expect { try AmplitudeEnvelope(encoded: Array("not an envelope at all".utf8)) } throws: {
            ($0 as? AudioError)?.code == .corrupted
        }
    }

    @Test("the envelope of a decoded stream, built chunk by chunk, matches the whole-buffer envelope")
    func fromDecoderChunks() async throws {
        let decoder = try await AudioDecoder.open(contentsOf: try TestAudio.jfk())
        var builder = EnvelopeBuilder()
        var all: [Float] = []
        for try await chunk in decoder.chunks(maxSamples: 12_345) {
            builder.append(chunk)
            all += chunk
        }
        let envelope = builder.finish()
        #expect(envelope == AmplitudeEnvelope(samples: all))
        #expect(envelope.count == 550)
        #expect(envelope.maximum.max()! > 0.3)
    }
}
