internal import Dispatch
internal import EarshotCore
internal import Foundation

/// Reads a range of an open blob file in chunks, one `pread` per chunk on its own queue.
///
/// Owned by one ``BlobContent`` stream; the file is closed at the end of the range or when the stream is dropped.
final class BlobFileReader: @unchecked Sendable {
    // SAFETY: `limit(to:size:key:)` runs once before the reader is shared; afterwards `next()` is only called by
    // the single consumer of an AsyncThrowingStream (which never calls its producer concurrently), and each call
    // is awaited before the next. `queue` serialises the blocking reads.
    private var file: ReadOnlyFile?
    private let chunkSize: Int
    private let queue = FileSystemBlobStore.queue()
    private(set) var size: Int64 = 0
    private(set) var range: Range<Int64> = 0..<0
    private var offset: Int64 = 0

    init(file: ReadOnlyFile, chunkSize: Int) {
        self.file = file
        self.chunkSize = chunkSize
    }

    /// Restricts reading to `requested` (clamped to the end), or the whole file when nil.
    func limit(to requested: Range<Int64>?, size: Int64, key: BlobKey) throws(StoreError) {
        self.size = size
        guard let requested else {
            range = 0..<size
            offset = 0
            return
        }
        guard requested.lowerBound >= 0,
            requested.lowerBound < size || (requested.isEmpty && requested.lowerBound <= size)
        else {
            throw StoreError(
                .invalidRange,
                "byte range \(requested.lowerBound)..<\(requested.upperBound) starts outside blob \(key) "
                    + "of \(size) bytes")
        }
        range = requested.lowerBound..<min(requested.upperBound, size)
        offset = range.lowerBound
    }

    /// The next chunk, or nil at the end of the range.
    func next() async throws -> [UInt8]? {
        guard offset < range.upperBound, let file else {
            file = nil
            return nil
        }
        let count = Int(min(Int64(chunkSize), range.upperBound - offset))
        let offset = self.offset
        let chunk = try await blocking(on: queue) {
            try fileSystem { () throws(SystemCallError) in try file.read(upTo: count, at: offset) }
        }
        guard !chunk.isEmpty else {
            self.file = nil
            throw StoreError(.corrupted, "blob file \(file.path) ended at byte \(offset), before its recorded end")
        }
        self.offset += Int64(chunk.count)
        return chunk
    }
}
