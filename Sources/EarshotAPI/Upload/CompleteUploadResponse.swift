/// The answer to `complete-upload` (PascalCase on the wire, as the seed clients expect).
public struct CompleteUploadResponse: Codable, Sendable, Hashable {
    /// A signed, expiring URL serving the assembled file (supports `Range`).
    public var downloadURL: String
    /// The file's id.
    public var fileID: String

    public init(downloadURL: String, fileID: String) {
        self.downloadURL = downloadURL
        self.fileID = fileID
    }

    enum CodingKeys: String, CodingKey {
        case downloadURL = "DownloadUrl"
        case fileID = "FileId"
    }
}
