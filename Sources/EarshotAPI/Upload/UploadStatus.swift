/// `GET /open/partner/files/upload/{upload_id}/parts`: what has arrived so far, to resume an interrupted upload.
///
/// `parts` lists the parts the server holds (with their ETags, usable in `complete-upload` as they are);
/// `pending` gives fresh presigned URLs for the parts still missing.
public struct UploadStatus: Codable, Sendable, Hashable {
    /// A part the server holds.
    public struct StoredPart: Codable, Sendable, Hashable {
        public var partNumber: Int
        /// Size in bytes.
        public var size: Int
        /// Quoted MD5 hex, as the part's `PUT` answered.
        public var etag: String

        public init(partNumber: Int, size: Int, etag: String) {
            self.partNumber = partNumber
            self.size = size
            self.etag = etag
        }

        enum CodingKeys: String, CodingKey {
            case partNumber = "part_number"
            case size, etag
        }
    }

    /// A part still to upload, with a freshly signed URL.
    public struct PendingPart: Codable, Sendable, Hashable {
        public var partNumber: Int
        public var presignedURL: String

        public init(partNumber: Int, presignedURL: String) {
            self.partNumber = partNumber
            self.presignedURL = presignedURL
        }

        enum CodingKeys: String, CodingKey {
            case partNumber = "part_number"
            case presignedURL = "presigned_url"
        }
    }

    public var uploadID: String
    public var fileID: String
    public var filesize: Int
    public var filetype: String
    public var chunkSize: Int
    public var partCount: Int
    /// `open` while parts may still arrive, `completed` once assembled.
    public var state: String
    public var parts: [StoredPart]
    public var pending: [PendingPart]

    public init(
        uploadID: String, fileID: String, filesize: Int, filetype: String, chunkSize: Int, partCount: Int,
        state: String, parts: [StoredPart], pending: [PendingPart]
    ) {
        self.uploadID = uploadID
        self.fileID = fileID
        self.filesize = filesize
        self.filetype = filetype
        self.chunkSize = chunkSize
        self.partCount = partCount
        self.state = state
        self.parts = parts
        self.pending = pending
    }

    enum CodingKeys: String, CodingKey {
        case uploadID = "upload_id"
        case fileID = "file_id"
        case filesize, filetype
        case chunkSize = "chunk_size"
        case partCount = "part_count"
        case state, parts, pending
    }
}
