internal import EarshotCrypto
internal import EarshotStore
internal import Foundation

/// A temporary file a write is spooled to while its SHA-256 and MD5 are computed, so the upload can be signed with
/// its payload hash and `Content-MD5`. One owner; removed by ``remove()``.
final class Spool {
    let url: URL
    private let handle: FileHandle
    private let digests: StreamingDigests
    private var sealed: Sealed?
    private let adopted: Bool

    struct Sealed {
        let size: Int64
        let sha256: Digest
        let md5: Digest
    }

    /// A new, empty file in `directory`.
    init(in directory: URL) throws {
        url = directory.appendingPathComponent("earshot-s3-\(UUID().uuidString).spool")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw StoreError(.io, "cannot create the spool file \(url.path)")
        }
        handle = try Self.open(url, forWriting: true)
        digests = try Self.digests()
        adopted = false
    }

    /// An existing complete file (removed with the spool).
    init(adopting file: URL) throws {
        url = file
        handle = try Self.open(file, forWriting: false)
        digests = try Self.digests()
        adopted = true
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        digests.update(bytes)
        do { try handle.write(contentsOf: Data(bytes)) } catch {
            throw StoreError(.io, "cannot write the spool file \(url.path)", underlying: error)
        }
    }

    /// Finishes the digests (reading an adopted file through them first).
    func seal() throws -> Sealed {
        if let sealed { return sealed }
        if adopted {
            do {
                try handle.seek(toOffset: 0)
                while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
                    data.withUnsafeBytes { digests.update($0) }
                }
            } catch {
                throw StoreError(.io, "cannot read \(url.path)", underlying: error)
            }
        }
        let size = digests.byteCount
        let finished = digests.finalize()
        let result = Sealed(size: size, sha256: finished[.sha256]!, md5: finished[.md5]!)
        sealed = result
        return result
    }

    /// The bytes of `range`.
    func read(_ range: Range<Int64>) throws -> Data {
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            let data = try handle.read(upToCount: Int(range.count)) ?? Data()
            guard data.count == range.count else {
                throw StoreError(.io, "spool file \(url.path) is shorter than \(range.upperBound) bytes")
            }
            return data
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "cannot read \(url.path)", underlying: error)
        }
    }

    func remove() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }

    private static func open(_ url: URL, forWriting: Bool) throws -> FileHandle {
        do {
            return forWriting ? try FileHandle(forUpdating: url) : try FileHandle(forReadingFrom: url)
        } catch {
            throw StoreError(.io, "cannot open \(url.path)", underlying: error)
        }
    }

    private static func digests() throws -> StreamingDigests {
        do { return try StreamingDigests([.sha256, .md5]) } catch {
            throw StoreError(.io, "cannot start digests", underlying: error)
        }
    }
}
