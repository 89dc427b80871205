/// A waveform overview: per bucket of `1 / pointsPerSecond` seconds, the minimum and maximum sample and the RMS
/// level. 50 points per second draws a smooth waveform at any zoom a player needs and costs 150 bytes per second
/// once quantised (``encoded()``).
///
/// Build it while streaming with ``EnvelopeBuilder``, or from a whole buffer with ``init(samples:pointsPerSecond:sampleRate:)``.
public struct AmplitudeEnvelope: Sendable, Hashable {
    /// Buckets per second.
    public let pointsPerSecond: Int
    /// The sample rate the envelope was computed at.
    public let sampleRate: Int
    /// Smallest sample of each bucket, in [-1, 1].
    public internal(set) var minimum: [Float]
    /// Largest sample of each bucket, in [-1, 1].
    public internal(set) var maximum: [Float]
    /// Root mean square of each bucket, in [0, 1].
    public internal(set) var rms: [Float]

    /// Number of buckets; the last one may cover less than a full bucket of audio.
    public var count: Int { rms.count }

    /// Computes the envelope of a whole buffer.
    public init(samples: [Float], pointsPerSecond: Int = 50, sampleRate: Int = 16_000) {
        var builder = EnvelopeBuilder(pointsPerSecond: pointsPerSecond, sampleRate: sampleRate)
        builder.append(samples)
        self = builder.finish()
    }

    init(pointsPerSecond: Int, sampleRate: Int, minimum: [Float], maximum: [Float], rms: [Float]) {
        self.pointsPerSecond = pointsPerSecond
        self.sampleRate = sampleRate
        self.minimum = minimum
        self.maximum = maximum
        self.rms = rms
    }

    // MARK: - Compact form

    /// The envelope quantised to 3 bytes per bucket, for storage and the records API (base64 it for JSON).
    ///
    /// Layout, little-endian: `"EENV"`, version `1` (UInt8), reserved `0` (UInt8), points per second (UInt16),
    /// sample rate (UInt32), bucket count (UInt32), then per bucket: minimum (Int8, value × 127), maximum (Int8,
    /// value × 127), RMS (UInt8, value × 255), all rounded to nearest and clamped.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = Array("EENV".utf8) + [1, 0]
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(UInt16(clamping: pointsPerSecond))
        append(UInt32(clamping: sampleRate))
        append(UInt32(clamping: count))
        bytes.reserveCapacity(bytes.count + 3 * count)
        for index in 0..<count {
            bytes.append(UInt8(bitPattern: Self.quantizeSigned(minimum[index])))
            bytes.append(UInt8(bitPattern: Self.quantizeSigned(maximum[index])))
            bytes.append(Self.quantizeLevel(rms[index]))
        }
        return bytes
    }

    /// Reads the output of ``encoded()``; values come back at the quantised precision (1/127, 1/255).
    /// - Throws: ``AudioError`` `.corrupted` when the bytes are not an envelope of a known version.
    public init(encoded bytes: [UInt8]) throws(AudioError) {
        guard bytes.count >= 16, bytes.starts(with: "EENV".utf8) else {
            throw AudioError(.corrupted, "not an encoded amplitude envelope (missing EENV header)")
        }
        guard bytes[4] == 1 else {
            throw AudioError(.corrupted, "amplitude envelope version \(bytes[4]) is newer than this build reads (1)")
        }
        let points = Int(bytes.littleEndian(UInt16.self, at: 6))
        let rate = Int(bytes.littleEndian(UInt32.self, at: 8))
        let count = Int(bytes.littleEndian(UInt32.self, at: 12))
        guard points > 0, bytes.count == 16 + 3 * count else {
            throw AudioError(
                .corrupted, "amplitude envelope declares \(count) buckets but carries \(bytes.count - 16) bytes")
        }
        var minimum: [Float] = []
        var maximum: [Float] = []
        var rms: [Float] = []
        minimum.reserveCapacity(count)
        maximum.reserveCapacity(count)
        rms.reserveCapacity(count)
        for index in 0..<count {
            let base = 16 + 3 * index
            minimum.append(Float(Int8(bitPattern: bytes[base])) / 127)
            maximum.append(Float(Int8(bitPattern: bytes[base + 1])) / 127)
            rms.append(Float(bytes[base + 2]) / 255)
        }
        self.init(pointsPerSecond: points, sampleRate: rate, minimum: minimum, maximum: maximum, rms: rms)
    }

    static func quantizeSigned(_ value: Float) -> Int8 {
        let scaled = (value * 127).rounded()
        return scaled.isNaN ? 0 : Int8(max(-127, min(127, scaled)))
    }

    static func quantizeLevel(_ value: Float) -> UInt8 {
        let scaled = (value * 255).rounded()
        return scaled.isNaN ? 0 : UInt8(max(0, min(255, scaled)))
    }
}

/// Computes an ``AmplitudeEnvelope`` incrementally from consecutive sample buffers (for example the chunks of
/// ``AudioDecoder/chunks(maxSamples:)``), so the envelope of a long file never needs the whole file in memory.
///
/// Bucket `i` covers samples `⌊i·rate/pps⌋ ..< ⌊(i+1)·rate/pps⌋`, so buckets never drift for rates that are not a
/// multiple of the point rate. The result does not depend on how the stream was cut into buffers.
public struct EnvelopeBuilder: Sendable {
    /// Buckets per second.
    public let pointsPerSecond: Int
    /// Sample rate of the input.
    public let sampleRate: Int

    private var envelope: AmplitudeEnvelope
    private var position = 0
    private var bucketEnd: Int
    private var low = Float.infinity
    private var high = -Float.infinity
    private var sumOfSquares: Double = 0
    private var inBucket = 0

    /// A builder for `pointsPerSecond` buckets per second (clamped to 1…`sampleRate`) of `sampleRate` audio.
    public init(pointsPerSecond: Int = 50, sampleRate: Int = 16_000) {
        let rate = max(1, sampleRate)
        self.sampleRate = rate
        self.pointsPerSecond = max(1, min(pointsPerSecond, rate))
        envelope = AmplitudeEnvelope(
            pointsPerSecond: self.pointsPerSecond, sampleRate: rate, minimum: [], maximum: [], rms: [])
        bucketEnd = rate / self.pointsPerSecond
    }

    /// Adds the next samples of the stream.
    public mutating func append(_ samples: some Collection<Float>) {
        for sample in samples {
            low = min(low, sample)
            high = max(high, sample)
            sumOfSquares += Double(sample) * Double(sample)
            inBucket += 1
            position += 1
            if position == bucketEnd { closeBucket() }
        }
    }

    /// The envelope of everything appended; a final partial bucket is included.
    public func finish() -> AmplitudeEnvelope {
        var copy = self
        if copy.inBucket > 0 { copy.closeBucket() }
        return copy.envelope
    }

    private mutating func closeBucket() {
        envelope.minimum.append(low)
        envelope.maximum.append(high)
        envelope.rms.append(Float((sumOfSquares / Double(inBucket)).squareRoot()))
        low = .infinity
        high = -.infinity
        sumOfSquares = 0
        inBucket = 0
        let next = envelope.count + 1
        bucketEnd = next * sampleRate / pointsPerSecond
    }
}
