public import Foundation

/// Uploads files to the platform's storage: presigned plan → parallel part `PUT`s → complete.
///
/// ```swift
/// let uploader = FileUploader(client: client)
/// let upload = try uploader.prepare(fileAt: recordingURL)        // filetype from the extension
/// async let result = upload.run()
/// for await progress in upload.progress { bar.value = progress.fractionCompleted }
/// let file = try await result                                     // file.fileID, file.downloadURL
/// ```
///
/// - Parts are read from the file with `FileHandle`, at most ``Configuration/maxConcurrentParts`` at a time, so
///   memory stays at about that many parts whatever the file's size.
/// - Each part is sent with its CRC-32 (`x-amz-checksum-crc32`), which the platform checks before storing it (a
///   store that ignores the header has its `ETag` compared with the part's MD5 instead); damaged bytes, a network
///   error, 408, 429 or 5xx are retried with exponential backoff (``Configuration/retry``); an expired part URL is re-signed once.
/// - The plan and the finished parts are kept in a small JSON file in ``Configuration/stateDirectory``. When the
///   same file (path, size, modification time) is uploaded again to the same server after a crash, a cancel or a
///   failure, the uploader asks the server which parts it holds and sends only the others.
/// - Cancel the task running ``Upload/run()`` to stop: in-flight `PUT`s are cancelled and the resume state kept.
public struct FileUploader: Sendable {
    /// Upload options.
    public struct Configuration: Sendable {
        /// Parts in flight at once (default 4).
        public var maxConcurrentParts: Int
        /// Retries of one part on a transient failure or damaged bytes (a checksum or `ETag` mismatch).
        public var retry: RetryPolicy
        /// Where resume state is kept; nil for the default (see ``FileUploader/defaultStateDirectory``).
        public var stateDirectory: URL?

        public init(maxConcurrentParts: Int = 4, retry: RetryPolicy = RetryPolicy(), stateDirectory: URL? = nil) {
            self.maxConcurrentParts = max(1, maxConcurrentParts)
            self.retry = retry
            self.stateDirectory = stateDirectory
        }
    }

    public let client: EarshotClient
    public let configuration: Configuration

    public init(client: EarshotClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
    }

    /// The default resume-state directory: `Caches/EarshotKit/uploads` on Apple platforms,
    /// `$XDG_CACHE_HOME/earshot-kit/uploads` (or `~/.cache/earshot-kit/uploads`) elsewhere.
    public static var defaultStateDirectory: URL { UploadJournal.defaultDirectory }

    /// An upload of the file at `fileURL`, ready to ``Upload/run()``.
    ///
    /// - Parameter filetype: `m4a`, `mp3`, `wav`…; nil takes the file's extension.
    /// - Throws: ``EarshotError/Code/invalidArgument`` when `fileURL` is not a local file or has no type.
    public func prepare(fileAt fileURL: URL, filetype: String? = nil) throws -> Upload {
        guard fileURL.isFileURL else {
            throw EarshotError(.invalidArgument, "\(fileURL) is not a local file URL")
        }
        let type = (filetype ?? fileURL.pathExtension).lowercased()
        guard !type.isEmpty else {
            throw EarshotError(.invalidArgument, "\(fileURL.lastPathComponent) has no extension: pass filetype")
        }
        return Upload(
            uploader: self, fileURL: fileURL.standardizedFileURL, filetype: type,
            stateDirectory: configuration.stateDirectory ?? Self.defaultStateDirectory)
    }

    /// Uploads the file at `fileURL` and returns where it is (no progress reporting; see ``prepare(fileAt:filetype:)``).
    public func upload(fileAt fileURL: URL, filetype: String? = nil) async throws -> UploadResult {
        try await prepare(fileAt: fileURL, filetype: filetype).run()
    }
}
