/// SHA-256 and/or MD5 (and optionally a CRC-32) of one byte stream, fed together, held by reference.
///
/// The reference is what a file writer's byte observer captures (EarshotCore's `TemporaryFile` calls
/// `{ digests.update($0) }` after each write), so the digests always describe exactly the bytes that reached the
/// file. One owner at a time; not thread-safe.
public final class StreamingDigests {
    private var sha256: StreamingHasher?
    private var md5: StreamingHasher?
    private var crc: CRC32?
    /// Bytes fed so far.
    public private(set) var byteCount: Int64 = 0

    /// Starts a digest for each of `algorithms`, and a CRC-32 when `crc32` is set. Throws only if libcrypto cannot
    /// allocate a context.
    public init(_ algorithms: Set<DigestAlgorithm>, crc32: Bool = false) throws(CryptoError) {
        if algorithms.contains(.sha256) { sha256 = try StreamingHasher(.sha256) }
        if algorithms.contains(.md5) { md5 = try StreamingHasher(.md5) }
        if crc32 { crc = CRC32() }
    }

    /// The CRC-32 of the bytes fed so far, when it was asked for.
    public var crc32: UInt32? { crc?.value }

    /// Adds bytes to every digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        sha256?.update(buffer)
        md5?.update(buffer)
        crc?.update(buffer)
        byteCount += Int64(buffer.count)
    }

    /// Finishes the digests; an algorithm that was not started (or a second call) has none.
    public func finalize() -> [DigestAlgorithm: Digest] {
        var digests: [DigestAlgorithm: Digest] = [:]
        if let hasher = sha256.take() { digests[.sha256] = hasher.finalize() }
        if let hasher = md5.take() { digests[.md5] = hasher.finalize() }
        return digests
    }
}
