public import Foundation

extension BlobStore {
    /// Runs `body` with a local file holding the blob: the backend's own file when it has one (the file system), else a
    /// temporary copy streamed from the store into `directory` and removed when `body` returns or throws (S3: a
    /// worker decodes audio from a local file).
    ///
    /// - Throws: ``StoreError`` `.notFound` when there is no such blob, `.io` when the copy cannot be written; what
    ///   `body` throws.
    public func withLocalFile<T>(
        for key: BlobKey, in directory: URL = URL(fileURLWithPath: NSTemporaryDirectory()),
        _ body: (URL) async throws -> T
    ) async throws -> T {
        if let local = try await localFile(for: key) { return try await body(local) }
        let copy = directory.appendingPathComponent("earshot-blob-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: copy.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw StoreError(.io, "cannot create a local copy of blob \(key) in \(directory.path)") }
        defer { try? FileManager.default.removeItem(at: copy) }
        do {
            let handle = try FileHandle(forWritingTo: copy)
            defer { try? handle.close() }
            for try await chunk in try await get(key).chunks { try handle.write(contentsOf: chunk) }
        } catch let error as StoreError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw StoreError(.io, "cannot write a local copy of blob \(key) to \(copy.path)", underlying: error)
        }
        return try await body(copy)
    }

    /// A URL that lets its holder read the blob straight from the store for `expires` (S3 presigned GET), answered
    /// with `contentType` and `contentDisposition` when given; nil when the backend serves its files itself (the
    /// file system).
    public func presignedReadURL(
        for key: BlobKey, expires: Duration, contentType: String? = nil, contentDisposition: String? = nil
    ) async throws -> URL? {
        guard let store = self as? any PresigningBlobStore else { return nil }
        return try await store.presignedGet(
            key, expires: expires, contentType: contentType, contentDisposition: contentDisposition)
    }
}

/// A blob store whose blobs a client may read straight from the service with a presigned URL (S3).
public protocol PresigningBlobStore: BlobStore {
    /// A URL anyone may `GET` the blob with (Range requests included) until `expires` from now; the answer carries
    /// `contentType` and `contentDisposition` when given.
    func presignedGet(
        _ key: BlobKey, expires: Duration, contentType: String?, contentDisposition: String?
    ) async throws -> URL
}
