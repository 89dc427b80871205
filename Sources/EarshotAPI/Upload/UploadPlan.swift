/// The answer to `generate-presigned-urls`: where to `PUT` each part of the file.
///
/// Field names are PascalCase on the wire (`FileId`, `UploadId`, `ChunkSize`, `Parts`), as the seed clients
/// expect. Part `n` (1-based) holds bytes `(n-1)*ChunkSize ..< min(n*ChunkSize, filesize)`: every part but the
/// last is exactly `ChunkSize` bytes.
public struct UploadPlan: Codable, Sendable, Hashable {
    /// One part's upload address.
    public struct Part: Codable, Sendable, Hashable {
        /// 1-based part number.
        public var partNumber: Int
        /// Absolute URL to `PUT` the part's bytes to; signed and expiring, needs no bearer token.
        public var presignedURL: String

        public init(partNumber: Int, presignedURL: String) {
            self.partNumber = partNumber
            self.presignedURL = presignedURL
        }

        enum CodingKeys: String, CodingKey {
            case partNumber = "PartNumber"
            case presignedURL = "PresignedUrl"
        }
    }

    /// The file's id once the upload completes.
    public var fileID: String
    /// The upload's id (for complete, list parts and abort).
    public var uploadID: String
    /// Size of every part but the last, in bytes.
    public var chunkSize: Int
    /// One entry per part, in order.
    public var parts: [Part]

    public init(fileID: String, uploadID: String, chunkSize: Int, parts: [Part]) {
        self.fileID = fileID
        self.uploadID = uploadID
        self.chunkSize = chunkSize
        self.parts = parts
    }

    enum CodingKeys: String, CodingKey {
        case fileID = "FileId"
        case uploadID = "UploadId"
        case chunkSize = "ChunkSize"
        case parts = "Parts"
    }
}
