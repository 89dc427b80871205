import EarshotCore
public import Foundation

/// Classifies a WAV file into the three compliance tiers by parsing its RIFF/WAVE header directly (no FFmpeg):
/// the `fmt ` chunk (plain, or WAVE_FORMAT_EXTENSIBLE with its sub-format), the `data` chunk, odd-sized chunks with
/// their pad byte, `LIST`/`fact`/other chunks skipped, RF64 sizes from `ds64`.
///
/// - Fully compliant: 16 kHz, 16-bit, mono, integer PCM.
/// - Compliant but mismatched (warned, converted on decode): integer PCM at another rate, bit depth or channel
///   count, and IEEE-float WAVs.
/// - Refused, with the exact conversion command: not RIFF/WAVE, compressed WAV (ADPCM, µ-law, A-law, GSM, MP3 in
///   WAV…), a header cut short, no `fmt `/`data` chunk, a data chunk larger than the file, impossible fields.
public enum WAVInspector {
    /// The required format: 16 kHz, 16-bit, mono integer PCM.
    public static let requiredSampleRate = 16_000
    /// The required bit depth.
    public static let requiredBitsPerSample = 16

    /// Whether the file at `url` starts like a WAV (`RIFF`/`RF64` … `WAVE`), whatever its name; false when it
    /// cannot be read.
    public static func looksLikeWAV(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 12), head.count == 12 else { return false }
        let bytes = [UInt8](head)
        let riff = bytes[0..<4].elementsEqual("RIFF".utf8) || bytes[0..<4].elementsEqual("RF64".utf8)
        return riff && bytes[8..<12].elementsEqual("WAVE".utf8)
    }

    /// Inspects the file at `url`; reads only the header chunks, however long the file is.
    /// - Throws: ``AudioError`` `.notFound` or `.io` when the file cannot be opened or read. Every problem with
    ///   the content is a ``WAVInspection/Tier/refused(reason:conversionCommand:)`` result, not an error.
    public static func inspect(_ url: URL) throws(AudioError) -> WAVInspection {
        let path = url.path
        let file = try ReadOnlyFile.wav(at: path)
        let command = ConversionCommand.toCompliantWAV(input: path)
        func refuse(_ reason: String, _ format: WAVFormat? = nil) -> WAVInspection {
            WAVInspection(tier: .refused(reason: reason, conversionCommand: command), format: format)
        }
        let header: HeaderParse
        do {
            header = try parse(file)
        } catch let problem as HeaderProblem {
            return refuse(problem.reason)
        } catch {
            throw error as? AudioError ?? AudioError(.io, "cannot read \(path)", underlying: error)
        }
        let format = header.format

        guard format.channels > 0 else { return refuse("the fmt chunk declares 0 channels", format) }
        guard format.sampleRate > 0 else { return refuse("the fmt chunk declares a sample rate of 0 Hz", format) }
        guard format.isIntegerPCM || format.isFloat else {
            return refuse(
                "compressed WAV (\(format.encodingName), format tag 0x\(String(format.encodingTag, radix: 16, uppercase: true))) "
                    + "is not PCM", format)
        }
        let validBits = format.isFloat ? [32, 64] : [8, 16, 24, 32]
        guard validBits.contains(format.bitsPerSample) else {
            return refuse("\(format.bitsPerSample)-bit \(format.encodingName) samples are not supported", format)
        }
        guard format.blockAlign == format.channels * format.bitsPerSample / 8 else {
            return refuse(
                "the fmt chunk is inconsistent: block align \(format.blockAlign) bytes for \(format.channels) "
                    + "channel(s) of \(format.bitsPerSample) bits", format)
        }
        if header.unsetDataSize {
            return refuse(
                "the data chunk size is not set (the recording was not finalised); \(header.available) bytes of "
                    + "samples follow the header", format)
        }
        guard format.dataSize <= header.available else {
            return refuse(
                "the data chunk declares \(format.dataSize) bytes but only \(header.available) follow: the file is "
                    + "truncated", format)
        }
        guard format.frameCount > 0 else { return refuse("the data chunk holds no samples", format) }

        var warnings: [String] = []
        if format.sampleRate != requiredSampleRate {
            warnings.append("sample rate is \(format.sampleRate) Hz, not 16000 Hz: it will be resampled")
        }
        if format.isFloat {
            warnings.append(
                "samples are \(format.bitsPerSample)-bit IEEE float (format 3), not 16-bit integer PCM: they will be "
                    + "converted")
        } else if format.bitsPerSample != requiredBitsPerSample {
            warnings.append("samples are \(format.bitsPerSample)-bit, not 16-bit: they will be converted")
        }
        if format.channels != 1 {
            warnings.append("\(format.channels) channels, not mono: they will be averaged into one")
        }
        return WAVInspection(tier: warnings.isEmpty ? .compliant : .convertible(warnings: warnings), format: format)
    }

    // MARK: - Parsing

    struct HeaderProblem: Error {
        let reason: String
    }

    struct HeaderParse {
        var format: WAVFormat
        /// Bytes from the data offset to the end of the file.
        var available: Int64
        /// The data size field is 0 or 0xFFFFFFFF while samples follow (a writer that never patched it).
        var unsetDataSize: Bool
    }

    private static func parse(_ file: ReadOnlyFile) throws -> HeaderParse {
        let size = file.size
        guard size > 0 else { throw HeaderProblem(reason: "the file is empty (0 bytes)") }
        let riff = try file.read(at: 0, count: 12)
        let magic = String(decoding: riff.prefix(4), as: UTF8.self)
        guard riff.count == 12, magic == "RIFF" || magic == "RF64", riff[8..<12].elementsEqual("WAVE".utf8) else {
            let hint = guessFormat(riff).map { " (it looks like \($0))" } ?? ""
            if riff.count < 12, magic == "RIFF" || magic == "RF64" {
                throw HeaderProblem(reason: "truncated header: the file ends inside the RIFF header")
            }
            throw HeaderProblem(reason: "not a WAV file: it does not start with a RIFF/WAVE header\(hint)")
        }
        var offset: Int64 = 12
        var format: WAVFormat?
        var ds64DataSize: Int64?
        while true {
            guard offset + 8 <= size else {
                if format == nil { throw HeaderProblem(reason: "no fmt chunk: the header ends before one") }
                throw HeaderProblem(reason: "no data chunk: the file ends after the header chunks")
            }
            let chunk = try file.read(at: offset, count: 8)
            let id = String(decoding: chunk.prefix(4), as: UTF8.self)
            let declared = Int64(chunk.littleEndian(UInt32.self, at: 4))
            let body = offset + 8
            switch id {
            case "ds64":
                let fields = try file.read(at: body, count: 28)
                guard fields.count >= 16 else { throw HeaderProblem(reason: "truncated header: the ds64 chunk is cut") }
                ds64DataSize = Int64(bitPattern: fields.littleEndian(UInt64.self, at: 8))
            case "fmt ":
                guard declared >= 16 else {
                    throw HeaderProblem(reason: "the fmt chunk is \(declared) bytes, shorter than the 16 required")
                }
                let fields = try file.read(at: body, count: Int(min(declared, 40)))
                guard fields.count >= 16 else {
                    throw HeaderProblem(reason: "truncated header: the file ends inside the fmt chunk")
                }
                let tag = fields.littleEndian(UInt16.self, at: 0)
                var encoding = tag
                if tag == 0xFFFE {
                    guard fields.count >= 26 else {
                        throw HeaderProblem(reason: "truncated header: the extensible fmt chunk has no sub-format")
                    }
                    encoding = fields.littleEndian(UInt16.self, at: 24)
                }
                format = WAVFormat(
                    formatTag: tag, encodingTag: encoding,
                    channels: Int(fields.littleEndian(UInt16.self, at: 2)),
                    sampleRate: Int(fields.littleEndian(UInt32.self, at: 4)),
                    bitsPerSample: Int(fields.littleEndian(UInt16.self, at: 14)),
                    blockAlign: Int(fields.littleEndian(UInt16.self, at: 12)),
                    dataOffset: 0, dataSize: 0)
            case "data":
                guard var format else { throw HeaderProblem(reason: "the data chunk comes before any fmt chunk") }
                let available = size - body
                var dataSize = declared
                if declared == 0xFFFF_FFFF, let ds64DataSize { dataSize = ds64DataSize }
                let unset = (declared == 0 || declared == 0xFFFF_FFFF) && ds64DataSize == nil && available > 0
                format.dataOffset = body
                format.dataSize = unset ? available : dataSize
                return HeaderParse(format: format, available: available, unsetDataSize: unset)
            default:
                break
            }
            guard body + declared <= size else {
                throw HeaderProblem(reason: "truncated header: the file ends inside the \"\(id)\" chunk")
            }
            offset = body + declared + (declared & 1)  // chunks are padded to an even size
        }
    }

    /// Names common non-WAV formats by their magic bytes, for the refusal message.
    private static func guessFormat(_ bytes: [UInt8]) -> String? {
        func starts(_ prefix: String) -> Bool { bytes.starts(with: prefix.utf8) }
        if starts("ID3") || (bytes.count > 1 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0) { return "MP3 audio" }
        if starts("fLaC") { return "FLAC audio" }
        if starts("OggS") { return "Ogg audio" }
        if bytes.count >= 8, bytes[4..<8].elementsEqual("ftyp".utf8) { return "MP4/M4A audio" }
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "WebM/Matroska" }
        if starts("FORM") { return "AIFF audio" }
        return nil
    }
}

extension [UInt8] {
    /// Reads a little-endian integer at a byte offset (the caller checked the bounds).
    func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(self[offset + index]) << (8 * index) }
        return value
    }
}
