import EarshotCrypto

/// SHA-256 of a whole file, read in 4 MB chunks (a 150 MB model hashes in well under a second).
func sha256(ofFile path: String) throws(ModelError) -> Digest {
    let reader = try FileReader(path: path)
    var hasher: StreamingHasher
    do { hasher = try StreamingHasher(.sha256) } catch {
        throw ModelError(.ioFailure, "cannot start SHA-256", underlying: error)
    }
    let chunk = 4 << 20
    var buffer = [UInt8](repeating: 0, count: chunk)
    var offset = 0
    while offset < reader.size {
        let count = min(chunk, reader.size - offset)
        try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(ModelError) in
                try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: offset)
            }
        }.get()
        buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        offset += count
    }
    return hasher.finalize()
}
