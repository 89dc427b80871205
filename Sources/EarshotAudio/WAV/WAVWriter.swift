import EarshotCore
public import Foundation

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

    private var descriptor: FileDescriptor?
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
        let descriptor = try fileSystem { () throws(SystemCallError) in
            try FileDescriptor.open(url.path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        }
        do {
            try fileSystem { () throws(SystemCallError) in try Self.write(header(dataBytes: 0), to: descriptor) }
        } catch {
            try? descriptor.close()
            throw error
        }
        self.descriptor = descriptor
    }

    deinit {
        try? close()
    }

    /// Appends samples (16 kHz mono `Float`, nominally in [-1, 1]; out-of-range values are clipped).
    /// - Throws: ``AudioError`` `.io` on a write error, `.tooLong` past the 4 GiB limit of a RIFF file, and
    ///   `.invalidArgument` after ``close()``.
    public func write(_ samples: some Collection<Float>) throws(AudioError) {
        guard let descriptor else { throw AudioError(.invalidArgument, "\(url.path): the WAV writer is closed") }
        guard (samplesWritten + samples.count) * 2 <= Self.maxDataBytes else {
            throw AudioError(.tooLong, "\(url.path): a WAV file cannot hold more than 4 GiB of samples")
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(samples.count * 2)
        for sample in samples {
            let bits = UInt16(bitPattern: Int16(pcmSample: sample))
            scratch.append(UInt8(truncatingIfNeeded: bits))
            scratch.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        try fileSystem { () throws(SystemCallError) in try Self.write(scratch, to: descriptor) }
        samplesWritten += samples.count
    }

    /// Appends samples already in the file's encoding: 16-bit little-endian PCM, mono, at ``sampleRate`` (as a
    /// realtime client sends them). Written as they are, without conversion.
    /// - Throws: ``AudioError`` `.invalidArgument` for an odd byte count or after ``close()``, `.io` on a write
    ///   error, `.tooLong` past the 4 GiB limit of a RIFF file.
    public func write(pcm16 bytes: [UInt8]) throws(AudioError) {
        guard let descriptor else { throw AudioError(.invalidArgument, "\(url.path): the WAV writer is closed") }
        guard bytes.count % 2 == 0 else {
            throw AudioError(.invalidArgument, "PCM16 audio has an even number of bytes (got \(bytes.count))")
        }
        guard samplesWritten * 2 + bytes.count <= Self.maxDataBytes else {
            throw AudioError(.tooLong, "\(url.path): a WAV file cannot hold more than 4 GiB of samples")
        }
        try fileSystem { () throws(SystemCallError) in try Self.write(bytes, to: descriptor) }
        samplesWritten += bytes.count / 2
    }

    /// Patches the header sizes, flushes to disk (`fsync`) and closes the file. Further calls do nothing.
    /// - Throws: ``AudioError`` `.io` when the header cannot be written or the data not flushed.
    public func close() throws(AudioError) {
        guard let descriptor else { return }
        self.descriptor = nil
        defer { try? descriptor.close() }
        let header = header(dataBytes: samplesWritten * 2)
        try fileSystem { () throws(SystemCallError) in
            try Self.write(header, to: descriptor, at: 0)
            try descriptor.sync()
        }
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

    /// Writes all of `bytes` at the current position, or at `offset` when given.
    private static func write(_ bytes: [UInt8], to descriptor: FileDescriptor, at offset: Int64? = nil)
        throws(SystemCallError)
    {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in
                if let offset { try descriptor.write(buffer, at: offset) } else { try descriptor.write(buffer) }
            }
        }.get()
    }
}
