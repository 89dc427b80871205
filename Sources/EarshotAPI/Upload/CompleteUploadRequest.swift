/// `POST /open/partner/files/upload/complete-upload`: every part's ETag, to verify and assemble the file.
public struct CompleteUploadRequest: Codable, Sendable, Hashable {
    /// One uploaded part, as the `PUT` answered it.
    public struct Part: Codable, Sendable, Hashable {
        /// 1-based part number.
        public var partNumber: Int
        /// The `ETag` header of the part's `PUT` response (quoted MD5 hex; quotes optional here).
        public var etag: String

        public init(partNumber: Int, etag: String) {
            self.partNumber = partNumber
            self.etag = etag
        }

        enum CodingKeys: String, CodingKey {
            case partNumber = "part_number"
            case etag
        }
    }

    /// `FileId` from the plan.
    public var fileID: String
    /// `UploadId` from the plan.
    public var uploadID: String
    /// Every part, 1…N, each once (any order).
    public var partList: [Part]
    /// The file type given when the plan was made (checked when present).
    public var filetype: String?

    public init(fileID: String, uploadID: String, partList: [Part], filetype: String? = nil) {
        self.fileID = fileID
        self.uploadID = uploadID
        self.partList = partList
        self.filetype = filetype
    }

    enum CodingKeys: String, CodingKey {
        case fileID = "file_id"
        case uploadID = "upload_id"
        case partList = "part_list"
        case filetype
    }
}
