/// How far an upload is: bytes the server holds out of the file's size.
///
/// Counted per finished part, so values grow in steps of the server's `ChunkSize`. A resumed upload starts at
/// the bytes already on the server. The sequence of progress values is non-decreasing and its last element
/// equals ``totalBytes`` when the upload succeeds.
public struct UploadProgress: Sendable, Hashable {
    /// Bytes of finished parts (already on the server).
    public var completedBytes: Int64
    /// The file's size in bytes.
    public var totalBytes: Int64
    /// Finished parts.
    public var completedParts: Int
    /// Parts in the plan.
    public var totalParts: Int

    public init(completedBytes: Int64, totalBytes: Int64, completedParts: Int, totalParts: Int) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.completedParts = completedParts
        self.totalParts = totalParts
    }

    /// `completedBytes / totalBytes`, 0…1.
    public var fractionCompleted: Double {
        totalBytes == 0 ? 1 : Double(completedBytes) / Double(totalBytes)
    }
}

/// What a finished upload produced.
public struct UploadResult: Sendable, Hashable {
    /// The file's id (give it, or ``downloadURL``, to whoever submits the transcription).
    public var fileID: String
    /// A signed, expiring URL serving the file.
    public var downloadURL: String
    /// The upload's id.
    public var uploadID: String
    /// The file's size in bytes.
    public var size: Int64
    /// Parts sent by this run (fewer than the plan's parts when it resumed an earlier run).
    public var partsSent: Int
    /// True when this run continued an upload a previous run (or process) had started.
    public var resumed: Bool

    public init(fileID: String, downloadURL: String, uploadID: String, size: Int64, partsSent: Int, resumed: Bool) {
        self.fileID = fileID
        self.downloadURL = downloadURL
        self.uploadID = uploadID
        self.size = size
        self.partsSent = partsSent
        self.resumed = resumed
    }
}
