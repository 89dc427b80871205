/// An Ogg Opus stream (RFC 7845) → mono 16-bit samples, fed in pieces of any size as they arrive: live Opus input.
///
/// ```swift
/// let decoder = try OggOpusDecoder(sampleRate: 16_000)
/// samples += try decoder.decode(chunk)   // the samples of every packet completed so far; a partial page waits
/// decoder.ended                          // the end-of-stream page came
/// ```
///
/// It checks every page's checksum, reads the identification header (one or two channels, mapping family 0),
/// skips the comment header, drops the encoder's pre-skip at the start and, from the last page's granule position,
/// the padding at the end, so it returns exactly the samples that were encoded (what ``OggOpusStream`` writes
/// comes back sample for sample, at the encoder's rate). Once it threw, the stream is unusable. Not thread-safe.
public final class OggOpusDecoder {
    /// The output sample rate: 8, 12, 16, 24 or 48 kHz.
    public var sampleRate: Int { decoder.sampleRate }
    /// Whether the stream's last page was read; more bytes after it are refused.
    public private(set) var ended = false

    private let decoder: OpusDecoder
    private var pending: [UInt8] = []
    private var serial: UInt32?
    private var nextSequence: UInt32 = 0
    private var headerPackets = 0
    /// Output samples still to drop at the start (the pre-skip, at the output rate).
    private var skip = 0
    private var preSkip48k = 0
    /// Samples returned so far.
    private var delivered = 0
    /// A packet cut across pages: its first pieces.
    private var partialPacket: [UInt8] = []
    private var failure: AudioError?

    /// - Throws: ``AudioError`` `.invalidArgument` for a rate Opus does not decode to.
    public init(sampleRate: Int = 16_000) throws(AudioError) {
        decoder = try OpusDecoder(sampleRate: sampleRate)
    }

    /// Takes the next bytes of the stream and returns the samples of the packets they complete.
    ///
    /// - Throws: ``AudioError`` `.unsupportedFormat` when the bytes are not an Ogg Opus stream (another container or
    ///   codec, more than two channels), `.corrupted` for a damaged page or packet, a page out of order or bytes
    ///   after the end of the stream. After an error every call throws it again.
    public func decode(_ bytes: [UInt8]) throws(AudioError) -> [Int16] {
        if let failure { throw failure }
        do {
            return try decodeChecked(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    private func decodeChecked(_ bytes: [UInt8]) throws(AudioError) -> [Int16] {
        guard !ended || bytes.isEmpty else {
            throw AudioError(.corrupted, "bytes came after the Ogg Opus stream's last page")
        }
        pending += bytes
        var samples: [Int16] = []
        var offset = 0
        reading: while !ended {
            switch OggPage.read(pending[offset...]) {
            case .incomplete:
                break reading
            case .invalid(let reason):
                if serial == nil && offset == 0 { throw Self.notOggOpus(pending) }
                throw AudioError(.corrupted, "the Ogg Opus stream is damaged: \(reason)")
            case .page(let page):
                offset += page.length
                samples += try take(page)
            }
        }
        pending.removeFirst(offset)
        return samples
    }

    private func take(_ page: OggPage) throws(AudioError) -> [Int16] {
        if serial == nil {
            guard page.begins else {
                throw AudioError(.corrupted, "the Ogg Opus stream does not start with its first page")
            }
            serial = page.serial
        }
        guard page.serial == serial else {
            throw AudioError(
                .unsupportedFormat, "the Ogg stream multiplexes several logical streams; send one Opus stream")
        }
        guard page.sequence == nextSequence else {
            throw AudioError(
                .corrupted, "Ogg page \(page.sequence) came where page \(nextSequence) was expected (lost or reordered)"
            )
        }
        nextSequence &+= 1
        var samples: [Int16] = []
        for (piece, finished) in page.pieces {
            partialPacket += piece
            guard finished else { continue }
            let packet = partialPacket
            partialPacket.removeAll(keepingCapacity: true)
            samples += try packetDecoded(packet)
        }
        if page.ends {
            ended = true
            // The last page's granule position says where the real audio ends; what the packets decode beyond it is
            // the encoder's padding.
            if page.granule != UInt64.max {
                let total = (Int(truncatingIfNeeded: page.granule) - preSkip48k) * sampleRate / 48_000
                let beyond = delivered + samples.count - max(total, 0)
                if beyond > 0 { samples.removeLast(min(beyond, samples.count)) }
            }
        }
        delivered += samples.count
        return samples
    }

    private func packetDecoded(_ packet: [UInt8]) throws(AudioError) -> [Int16] {
        switch headerPackets {
        case 0:
            headerPackets = 1
            try readIdentification(packet)
            return []
        case 1:
            headerPackets = 2
            guard packet.starts(with: Array("OpusTags".utf8)) else {
                throw AudioError(.corrupted, "the Ogg Opus stream's second packet is not its OpusTags header")
            }
            return []
        default:
            var samples = try decoder.decode(packet[...])
            if skip > 0 {
                let dropped = min(skip, samples.count)
                samples.removeFirst(dropped)
                skip -= dropped
            }
            return samples
        }
    }

    private func readIdentification(_ packet: [UInt8]) throws(AudioError) {
        guard packet.count >= 19, packet.starts(with: Array("OpusHead".utf8)) else {
            throw AudioError(
                .unsupportedFormat, "the Ogg stream is not Opus (its first packet is not an OpusHead header)")
        }
        guard packet[8] >> 4 == 0 else {
            throw AudioError(.unsupportedFormat, "Ogg Opus version \(packet[8]) is not supported (0.x only)")
        }
        let channels = Int(packet[9])
        guard (1...2).contains(channels), packet[18] == 0 else {
            throw AudioError(
                .unsupportedFormat,
                "Ogg Opus with \(channels) channels (mapping family \(packet[18])) is not supported; send mono or stereo"
            )
        }
        preSkip48k = Int(packet[10]) | Int(packet[11]) << 8
        skip = preSkip48k * sampleRate / 48_000
    }

    private static func notOggOpus(_ bytes: [UInt8]) -> AudioError {
        let found =
            switch AudioContainer(sniffing: bytes) {
            case .wav: "a WAV file"
            case let container?: container.rawValue
            case nil: "bytes that are not an Ogg page"
            }
        return AudioError(
            .unsupportedFormat,
            "expected an Ogg Opus stream (RFC 7845, pages starting with OggS), got \(found); "
                + "encode with: ffmpeg -i IN -ac 1 -c:a libopus -f ogg OUT")
    }
}
