public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a mono 16-bit integer-PCM WAV file (16 kHz by default — the fully compliant tier) from `Float` samples,
/// streaming: samples go to disk as they are written, and ``close()`` patches the RIFF and data sizes.
///
/// Samples are clamped to [-1, 1) and scaled by 32768, the inverse of the decoder's scaling, so decoding a
/// 16-bit file and writing it again reproduces it bit for bit. The writer is not atomic: write to a temporary
/// name and rename if readers may see the file early. Not thread-safe; one owner writes.
public final class WAVWriter {
    /// The file being written.
    public let url: URL
    /// The sample rate written into the header.
    public let sampleRate: Int
    /// Samples written so far.
    public private(set) var samplesWritten = 0

    private var descriptor: Int32
    private var scratch: [UInt8] = []
    private static let headerSize = 44
    /// The data chunk size field is 32-bit; stop before it would overflow (about 37 hours at 16 kHz).
    private static let maxDataBytes = Int(UInt32.max) - headerSize

    /// Creates (or truncates) the file and writes a header with placeholder sizes.
    /// - Throws: ``AudioError`` `.invalidArgument` for a rate outside 1 Hz…768 kHz, `.io`/`.notFound` when the
    ///   file cannot be created.
    public init(url: URL, sampleRate: Int = 16_000) throws(AudioError) {
        guard (1...768_000).contains(sampleRate) else {
            throw AudioError(.invalidArgument, "WAV sample rate \(sampleRate) Hz is out of range (1…768000)")
        }
        self.url = url
        self.sampleRate = sampleRate
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw posixError(errno, "open", url.path) }
        do {
            try writeAll(header(dataBytes: 0), at: nil)
        } catch {
            systemClose(descriptor)
            descriptor = -1
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { try? close() }
    }

    /// Appends samples (16 kHz mono `Float`, nominally in [-1, 1]; out-of-range values are clipped).
    /// - Throws: ``AudioError`` `.io` on a write error, `.tooLong` past the 4 GiB limit of a RIFF file, and
    ///   `.invalidArgument` after ``close()``.
    public func write(_ samples: some Collection<Float>) throws(AudioError) {
        guard descriptor >= 0 else { throw AudioError(.invalidArgument, "\(url.path): the WAV writer is closed") }
        guard (samplesWritten + samples.count) * 2 <= Self.maxDataBytes else {
            throw AudioError(.tooLong, "\(url.path): a WAV file cannot hold more than 4 GiB of samples")
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(samples.count * 2)
        for sample in samples {
            let scaled = (sample * 32_768).rounded()
            let value = scaled.isNaN ? 0 : Int16(max(-32_768, min(32_767, scaled)))
            let bits = UInt16(bitPattern: value)
            scratch.append(UInt8(truncatingIfNeeded: bits))
            scratch.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        try writeAll(scratch, at: nil)
        samplesWritten += samples.count
    }

    /// Patches the header sizes, flushes to disk (`fsync`) and closes the file. Further calls do nothing.
    /// - Throws: ``AudioError`` `.io` when the header cannot be written or the data not flushed.
    public func close() throws(AudioError) {
        guard descriptor >= 0 else { return }
        defer {
            systemClose(descriptor)
            descriptor = -1
        }
        let dataBytes = samplesWritten * 2
        try writeAll(header(dataBytes: dataBytes), at: 0)
        guard fsync(descriptor) == 0 else { throw posixError(errno, "fsync", url.path) }
    }

    private func header(dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append(contentsOf: "RIFF".utf8)
        append(UInt32(36 + dataBytes))
        bytes.append(contentsOf: "WAVEfmt ".utf8)
        append(UInt32(16))
        append(UInt16(1))  // integer PCM
        append(UInt16(1))  // mono
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * 2))  // byte rate
        append(UInt16(2))  // block align
        append(UInt16(16))  // bits per sample
        bytes.append(contentsOf: "data".utf8)
        append(UInt32(dataBytes))
        return bytes
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int?) throws(AudioError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                let start = buffer.baseAddress! + done
                if let offset { return pwrite(descriptor, start, bytes.count - done, off_t(offset + done)) }
                return systemWrite(descriptor, start, bytes.count - done)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw posixError(errno, "write", url.path)
            }
            done += result
        }
    }
}

// File-scope forwarders: inside `WAVWriter`, `close` and `write` name its own methods.
private func systemClose(_ descriptor: Int32) { _ = close(descriptor) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
