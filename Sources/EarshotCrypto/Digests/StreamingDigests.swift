/// SHA-256 and/or MD5 of one byte stream, fed together, held by reference.
///
/// The reference is what a file writer's byte observer captures (EarshotCore's `TemporaryFile` calls
/// `{ digests.update($0) }` after each write), so the digests always describe exactly the bytes that reached the
/// file. One owner at a time; not thread-safe.
public final class StreamingDigests {
    private var sha256: StreamingHasher?
    private var md5: StreamingHasher?
    /// Bytes fed so far.
    public private(set) var byteCount: Int64 = 0

    /// Starts a digest for each of `algorithms`. Throws only if libcrypto cannot allocate a context.
    public init(_ algorithms: Set<DigestAlgorithm>) throws(CryptoError) {
        if algorithms.contains(.sha256) { sha256 = try StreamingHasher(.sha256) }
        if algorithms.contains(.md5) { md5 = try StreamingHasher(.md5) }
    }

    /// Adds bytes to every digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        sha256?.update(buffer)
        md5?.update(buffer)
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
