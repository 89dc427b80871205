/// Mono samples → an Ogg Opus file (RFC 7845), produced page by page so a recording is a valid, decodable file at
/// every page boundary: a recorder that loses power keeps everything up to its last page.
///
/// ``start()`` returns the two header pages; ``append(_:)`` returns the audio pages completed so far (one page per
/// ``Configuration/packetsPerPage`` packets, a second of audio by default); ``finish()`` flushes the rest, marks
/// the end of the stream and trims the padding of the last frame through the final granule position, so a decoder
/// returns exactly the samples appended. Not thread-safe.
public final class OggOpusStream {
    /// Settings of the stream.
    public struct Configuration: Sendable {
        /// The encoder's settings.
        public var encoder = OpusEncoder.Configuration()
        /// Packets per page: more means less overhead, fewer means less lost on power loss.
        public var packetsPerPage = 50
        /// The Ogg stream serial number.
        public var serial: UInt32 = 0x4541_5253

        public init() {}
    }

    private let encoder: OpusEncoder
    private let configuration: Configuration
    private var pending: [Float] = []
    private var packets: [[UInt8]] = []
    private var pageSequence: UInt32 = 0
    /// Samples appended (input rate).
    public private(set) var sampleCount = 0
    /// Samples encoded so far, padding included (input rate).
    private var encodedSamples = 0
    private var started = false
    private var finished = false

    /// A stream with `configuration`.
    ///
    /// - Throws: ``AudioError`` from ``OpusEncoder/init(configuration:)``.
    public init(configuration: Configuration = Configuration()) throws(AudioError) {
        self.configuration = configuration
        self.encoder = try OpusEncoder(configuration: configuration.encoder)
    }

    /// The length of the audio appended, in milliseconds.
    public var durationMs: Int { sampleCount * 1_000 / configuration.encoder.sampleRate }

    /// Granule positions count 48 kHz samples whatever the input rate.
    private var granuleScale: Int { 48_000 / configuration.encoder.sampleRate }
    private var preSkip: Int { encoder.lookahead * granuleScale }

    /// The identification and comment header pages; call once, first.
    public func start() -> [UInt8] {
        precondition(!started, "OggOpusStream.start() called twice")
        started = true
        var head: [UInt8] = Array("OpusHead".utf8)
        head.append(1)  // version
        head.append(1)  // channels
        head.appendLittleEndian(UInt16(preSkip))
        head.appendLittleEndian(UInt32(configuration.encoder.sampleRate))
        head.appendLittleEndian(UInt16(0))  // output gain
        head.append(0)  // channel mapping family 0: mono or stereo
        var tags: [UInt8] = Array("OpusTags".utf8)
        let vendor = Array("earshot (libopus)".utf8)
        tags.appendLittleEndian(UInt32(vendor.count))
        tags += vendor
        tags.appendLittleEndian(UInt32(0))  // no user comments
        return page([head], granule: 0, flags: 0x02) + page([tags], granule: 0, flags: 0)
    }

    /// Encodes `samples` (mono, [-1, 1], at the encoder's rate) and returns the pages completed, if any.
    ///
    /// - Throws: ``AudioError`` if libopus fails.
    public func append(_ samples: [Float]) throws(AudioError) -> [UInt8] {
        precondition(started && !finished, "append between start() and finish()")
        sampleCount += samples.count
        pending += samples
        var output: [UInt8] = []
        let frame = encoder.frameSize
        var consumed = 0
        while pending.count - consumed >= frame {
            packets.append(try encoder.encode(Array(pending[consumed..<consumed + frame])))
            consumed += frame
            encodedSamples += frame
            if packets.count == configuration.packetsPerPage {
                // A page's granule position counts every sample its packets decode to, the pre-skip included.
                output += page(packets, granule: encodedSamples * granuleScale, flags: 0)
                packets.removeAll(keepingCapacity: true)
            }
        }
        pending.removeFirst(consumed)
        return output
    }

    /// Encodes what is left (the last frame padded with silence) and returns the last page, flagged end of stream.
    ///
    /// - Throws: ``AudioError`` if libopus fails.
    public func finish() throws(AudioError) -> [UInt8] {
        precondition(started && !finished, "finish() once, after start()")
        finished = true
        // Pad so the decoder's look-ahead delay is flushed too: the last real sample must come out of a packet.
        let padded = pending.count + encoder.lookahead
        let frames = max((padded + encoder.frameSize - 1) / encoder.frameSize, packets.isEmpty ? 1 : 0)
        pending += [Float](repeating: 0, count: frames * encoder.frameSize - pending.count)
        for index in 0..<frames {
            let start = index * encoder.frameSize
            packets.append(try encoder.encode(Array(pending[start..<start + encoder.frameSize])))
        }
        pending.removeAll()
        // The final granule position says where the real audio ends (pre-skip + the samples appended, which is less
        // than what the packets decode to); the decoder drops the padding after it.
        return page(packets, granule: preSkip + sampleCount * granuleScale, flags: 0x04)
    }

    /// One Ogg page holding whole `packets` (each ≤ 255 × 255 − 1 bytes, which Opus packets always are).
    private func page(_ packets: [[UInt8]], granule: Int, flags: UInt8) -> [UInt8] {
        var lacing: [UInt8] = []
        for packet in packets {
            lacing += [UInt8](repeating: 255, count: packet.count / 255)
            lacing.append(UInt8(packet.count % 255))
        }
        precondition(lacing.count <= 255, "an Ogg page holds at most 255 lacing values")
        var bytes: [UInt8] = Array("OggS".utf8)
        bytes.append(0)  // stream structure version
        bytes.append(flags)
        bytes.appendLittleEndian(UInt64(granule))
        bytes.appendLittleEndian(configuration.serial)
        bytes.appendLittleEndian(pageSequence)
        bytes.appendLittleEndian(UInt32(0))  // CRC, filled in below
        bytes.append(UInt8(lacing.count))
        bytes += lacing
        for packet in packets { bytes += packet }
        let crc = OggCRC.checksum(bytes)
        for shift in 0..<4 { bytes[22 + shift] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * shift)) }
        pageSequence += 1
        return bytes
    }
}

/// Ogg's page checksum: CRC-32 with polynomial 0x04C11DB7, not reflected, initial value and final XOR 0.
/// `OggCRC.checksum(Array("123456789".utf8)) == 0x89A1_897F`.
enum OggCRC {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { self += $0 }
    }
}
