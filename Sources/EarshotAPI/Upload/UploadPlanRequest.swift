/// `POST /open/partner/files/upload/generate-presigned-urls`: the size and type of a file about to be uploaded.
public struct UploadPlanRequest: Codable, Sendable, Hashable {
    /// Total size in bytes (at least 1, at most the server's `upload-max-file-size`).
    public var filesize: Int
    /// File extension without the dot, lowercase: `m4a`, `mp3`, `wav`… (the server's `upload-filetypes`).
    public var filetype: String
    /// The file's own name (optional, at most 255 characters): kept with the file and used as the title of the
    /// record it becomes.
    public var filename: String?

    public init(filesize: Int, filetype: String, filename: String? = nil) {
        self.filesize = filesize
        self.filetype = filetype
        self.filename = filename
    }
}
