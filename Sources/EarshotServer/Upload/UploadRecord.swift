/// A row of `uploads`.
struct UploadRecord: Sendable, Decodable {
    let id: String
    let fileID: String
    let partnerID: String
    let userID: String?
    let filesize: Int
    let filetype: String
    let chunkSize: Int
    let partCount: Int
    let state: String
    let originalName: String?
    let createdAt: Int64
    /// The object store's multipart upload id when the client uploads parts straight to the store; nil when the
    /// parts come through the server.
    let storeUploadID: String?

    static let columns =
        "id, file_id, partner_id, user_id, filesize, filetype, chunk_size, part_count, state, original_name, "
        + "created_at, store_upload_id"

    enum CodingKeys: String, CodingKey {
        case id
        case fileID = "file_id"
        case partnerID = "partner_id"
        case userID = "user_id"
        case filesize, filetype
        case chunkSize = "chunk_size"
        case partCount = "part_count"
        case state
        case originalName = "original_name"
        case createdAt = "created_at"
        case storeUploadID = "store_upload_id"
    }

    var isOpen: Bool { state == "open" }

    /// The exact size of part `number` (1-based): `chunkSize`, or the remainder for the last part.
    func expectedSize(ofPart number: Int) -> Int {
        number < partCount ? chunkSize : filesize - (partCount - 1) * chunkSize
    }

    /// Where the assembled file lives: `files/<file id>` (for a direct upload, also where the store assembles it).
    var fileKey: String { "files/\(fileID)" }

    /// `uploads/<id>/part-00001`.
    static func partKey(upload: String, part: Int) -> String {
        let digits = String(part)
        return "uploads/\(upload)/part-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }
}

/// A row of `upload_parts`.
struct PartRecord: Sendable, Decodable {
    let partNumber: Int
    let size: Int
    let md5: String

    enum CodingKeys: String, CodingKey {
        case partNumber = "part_number"
        case size, md5
    }

    var etag: String { "\"\(md5)\"" }
}

/// A row of `files`: an assembled upload, or a file a request kept.
struct FileRecord: Sendable, Decodable {
    let id: String
    let partnerID: String
    let userID: String?
    let uploadID: String
    let size: Int
    let sha256: String
    /// The declared type (lowercase extension: `wav`, `m4a`…); the pipeline decodes by it.
    let filetype: String
    /// The media type (`audio/wav`…); nil only for rows older than its column.
    let mediaType: String?
    /// What the sender called the file, when it said.
    let originalName: String?
    let blobKey: String
    let createdAt: Int64

    static let columns =
        "id, partner_id, user_id, upload_id, size, sha256, filetype, media_type, original_name, blob_key, created_at"

    enum CodingKeys: String, CodingKey {
        case id
        case partnerID = "partner_id"
        case userID = "user_id"
        case uploadID = "upload_id"
        case size, sha256, filetype
        case mediaType = "media_type"
        case originalName = "original_name"
        case blobKey = "blob_key"
        case createdAt = "created_at"
    }

    /// How messages to the file's owner name it: its original name, or `<file id>.<type>`.
    var displayName: String { originalName ?? "\(id).\(filetype)" }
}
