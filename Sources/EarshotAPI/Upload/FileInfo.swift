/// `GET /open/partner/files/{file_id}`: an uploaded file, with a fresh download URL.
public struct FileInfo: Codable, Sendable, Hashable {
    public var fileID: String
    /// The user the file belongs to; nil when the partner's backend uploaded it itself.
    public var userID: String?
    /// Size in bytes.
    public var size: Int
    /// SHA-256 of the content, lowercase hex.
    public var sha256: String
    public var filetype: String
    /// The media type the file is served with (`audio/wav`…).
    public var mediaType: String?
    /// The name the sender gave the file, if any.
    public var filename: String?
    /// Creation time in milliseconds since the Unix epoch.
    public var createdAtMs: Int64
    /// A signed, expiring URL serving the file (supports `Range`).
    public var downloadURL: String

    public init(
        fileID: String, userID: String?, size: Int, sha256: String, filetype: String, mediaType: String? = nil,
        filename: String? = nil, createdAtMs: Int64, downloadURL: String
    ) {
        self.mediaType = mediaType
        self.filename = filename
        self.fileID = fileID
        self.userID = userID
        self.size = size
        self.sha256 = sha256
        self.filetype = filetype
        self.createdAtMs = createdAtMs
        self.downloadURL = downloadURL
    }

    enum CodingKeys: String, CodingKey {
        case fileID = "file_id"
        case userID = "user_id"
        case size, sha256, filetype, filename
        case mediaType = "media_type"
        case createdAtMs = "created_at_ms"
        case downloadURL = "download_url"
    }
}
