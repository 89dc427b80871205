import EarshotCore
import EarshotCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a model file through EarshotCore's ``TemporaryFile`` (a sibling `.NAME.PID.tmp`, published by fsync and
/// rename), buffering the many small writes of a conversion into 1 MB ones and hashing every byte with SHA-256, so
/// readers never see a half-written model.
///
/// Call ``commit()`` to publish the file; a writer that is dropped without committing removes its temporary
/// file. A full disk is reported as ``ModelError/Code/diskFull`` naming the destination.
final class AtomicFileWriter {
    let destination: String
    private let file: TemporaryFile
    private let digests: StreamingDigests
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 20

    /// Bytes written so far (including buffered ones).
    var bytesWritten: Int { Int(file.byteCount) + buffer.count }

    init(destination: String) throws(ModelError) {
        self.destination = destination
        do { digests = try StreamingDigests([.sha256]) } catch {
            throw ModelError(.ioFailure, "cannot start SHA-256", underlying: error)
        }
        let digests = self.digests
        do {
            file = try TemporaryFile(
                path: temporaryPath(for: destination), mode: 0o644, replacing: true, observer: { digests.update($0) })
        } catch {
            if error.isNotFound {
                throw ModelError(
                    .notFound,
                    "cannot write \(destination): directory \(FileSystem.directory(of: destination)) "
                        + "does not exist", underlying: error)
            }
            throw ModelError(.ioFailure, "cannot create \(error.path): \(error.reason)", underlying: error)
        }
        buffer.reserveCapacity(Self.bufferSize)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ModelError) {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize {
            try writeOut(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    func write(_ bytes: [UInt8]) throws(ModelError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    func write(int32 value: Int32) throws(ModelError) {
        try withUnsafeBytes(of: value.littleEndian) { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    func write(floats: [Float]) throws(ModelError) {
        try floats.withUnsafeBytes { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    /// Writes float16 bit patterns.
    func write(halves: [UInt16]) throws(ModelError) {
        try halves.withUnsafeBytes { raw in Result { () throws(ModelError) in try write(raw) } }.get()
    }

    private func flush() throws(ModelError) {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { raw in Result { () throws(ModelError) in try writeOut(raw) } }.get()
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws(ModelError) {
        do { try file.write(bytes) } catch {
            throw Self.error(for: error, destination: destination, written: bytesWritten)
        }
    }

    /// The error for a failed system call: a full disk (or quota) is ``ModelError/Code/diskFull``.
    static func error(for failure: SystemCallError, destination: String, written: Int) -> ModelError {
        if failure.isOutOfSpace {
            return ModelError(
                .diskFull,
                "no space left on the device holding \(destination) after \(written) bytes; "
                    + "free some space and run the command again", underlying: failure)
        }
        return ModelError(.ioFailure, "cannot \(failure.call) \(failure.path): \(failure.reason)", underlying: failure)
    }

    /// Flushes, fsyncs and renames the temporary file over the destination; returns the SHA-256 of the content.
    func commit() throws(ModelError) -> Digest {
        try flush()
        do { try file.publish(to: destination) } catch {
            throw Self.error(for: error, destination: destination, written: bytesWritten)
        }
        return digests.finalize()[.sha256]!
    }
}
