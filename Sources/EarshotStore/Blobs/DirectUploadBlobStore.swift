public import Foundation

/// A blob store that clients upload to directly, in parts, with presigned URLs: the bytes go from the client to
/// the store and never through the server (S3's multipart upload).
///
/// The server starts an upload for a key, hands out ``presignedPartURL(_:uploadID:partNumber:expires:)``s, reads
/// back what arrived (``listParts(_:uploadID:)``), and completes it with the part ETags the client collected; the
/// object appears under the key only then, in one piece. Every method is safe to call from any task.
public protocol DirectUploadBlobStore: BlobStore {
    /// The smallest size of every part but the last (S3: 5 MiB).
    var minimumPartSize: Int { get }

    /// Starts a multipart upload into `key` and returns the store's upload id. `metadata` (names without the
    /// `x-amz-meta-` prefix) is kept on the finished object.
    func startDirectUpload(_ key: BlobKey, metadata: [String: String]) async throws -> String

    /// A URL anyone may `PUT` part `partNumber` (1…10000) of the upload to until `expires` from now; the store
    /// answers with the part's ETag (its quoted MD5) and refuses a changed or expired URL with 403.
    func presignedPartURL(_ key: BlobKey, uploadID: String, partNumber: Int, expires: Duration) -> URL

    /// The parts the store holds for the upload, by part number. A part number sent more than once may be listed
    /// once per version (newest first) by stores that keep them until completion, which uses the one whose ETag
    /// it is given.
    ///
    /// - Throws: ``StoreError`` `.notFound` when the store knows no such upload (completed or aborted).
    func listParts(_ key: BlobKey, uploadID: String) async throws -> [DirectUploadPart]

    /// Completes the upload with `parts` (every part, in order, with the ETags their `PUT`s returned): the object
    /// appears under `key`.
    ///
    /// - Throws: ``StoreError`` `.notFound` (no such upload), `.invalidArgument` (a part the store does not hold
    ///   with that ETag, or too small), `.unavailable`/`.io` (the store).
    func completeDirectUpload(_ key: BlobKey, uploadID: String, parts: [DirectUploadPart]) async throws
        -> DirectUploadObject

    /// Discards the upload and the parts the store holds for it; an unknown upload is not an error.
    func abortDirectUpload(_ key: BlobKey, uploadID: String) async throws

    /// The multipart uploads in progress under keys starting with `prefix`.
    func listDirectUploads(prefix: String) async throws -> [DirectUploadListing]

    /// The size and ETag of the object `key` (it need not have been written by ``BlobStore/put(_:from:options:)``).
    ///
    /// - Throws: ``StoreError`` `.notFound` when there is no such object.
    func objectSummary(_ key: BlobKey) async throws -> DirectUploadObject
}

/// A part of a direct upload: its number (1-based), size in bytes, ETag (as the store gives it, quoted) and when it
/// arrived (from ``DirectUploadBlobStore/listParts(_:uploadID:)``).
public struct DirectUploadPart: Sendable, Hashable {
    public var number: Int
    public var size: Int64
    public var etag: String
    public var lastModified: Date?

    public init(number: Int, size: Int64, etag: String, lastModified: Date? = nil) {
        self.number = number
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// An object as the store describes it: size in bytes and ETag (for a multipart object, the MD5 of the parts' MD5s
/// followed by `-<part count>`).
public struct DirectUploadObject: Sendable, Hashable {
    public var size: Int64
    public var etag: String

    public init(size: Int64, etag: String) {
        self.size = size
        self.etag = etag
    }
}

/// A multipart upload in progress in the store.
public struct DirectUploadListing: Sendable, Hashable {
    public var key: String
    public var uploadID: String
    /// When the store started it.
    public var initiated: Date

    public init(key: String, uploadID: String, initiated: Date) {
        self.key = key
        self.uploadID = uploadID
        self.initiated = initiated
    }
}
