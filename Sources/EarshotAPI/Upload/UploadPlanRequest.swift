/// `POST /open/partner/files/upload/generate-presigned-urls`: the size and type of a file about to be uploaded.
public struct UploadPlanRequest: Codable, Sendable, Hashable {
    /// Total size in bytes (at least 1, at most the server's `upload-max-file-size`).
    public var filesize: Int
    /// File extension without the dot, lowercase: `m4a`, `mp3`, `wav`… (the server's `upload-filetypes`).
    public var filetype: String

    public init(filesize: Int, filetype: String) {
        self.filesize = filesize
        self.filetype = filetype
    }
}
