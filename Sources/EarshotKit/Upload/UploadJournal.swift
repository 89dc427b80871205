import EarshotAPI
import Foundation

/// What an interrupted upload needs to resume, persisted as a small JSON file per (server, file) pair.
///
/// Written atomically after the plan is made and after every finished part; deleted when the upload completes.
/// A file whose size or modification time changed since does not match its journal, so it starts over.
struct UploadJournal: ResumeJournal, Sendable {
    var version = 1
    var baseURL: String
    var filePath: String
    var fileSize: Int64
    var modified: Double
    var filetype: String
    var fileID: String
    var uploadID: String
    var chunkSize: Int
    var partURLs: [Int: String]
    /// Part number → ETag of the parts this client finished and verified.
    var etags: [Int: String] = [:]

    var partCount: Int { partURLs.count }

    /// Where the journal for this file lives in `directory`.
    static func location(
        in directory: URL, baseURL: String, filePath: String, size: Int64, modified: Double, filetype: String
    ) -> URL {
        let identity = "\(baseURL)\n\(filePath)\n\(size)\n\(modified)\n\(filetype)"
        return directory.appendingPathComponent("upload-\(MD5.hex(Array(identity.utf8))).json")
    }

    static let resumes = "upload"

    /// The default directory: the caches directory on Apple platforms, `$XDG_CACHE_HOME` or `~/.cache` elsewhere.
    static var defaultDirectory: URL {
        #if canImport(Darwin)
            let caches =
                FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return caches.appendingPathComponent("EarshotKit/uploads", isDirectory: true)
        #else
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
            return base.appendingPathComponent("earshot-kit/uploads", isDirectory: true)
        #endif
    }
}

/// The journal shared by the part uploads of one run; saves after every change.
actor JournalWriter {
    private(set) var journal: UploadJournal
    let url: URL

    init(journal: UploadJournal, url: URL) {
        self.journal = journal
        self.url = url
    }

    func record(part: Int, etag: String) throws {
        journal.etags[part] = etag
        try journal.save(to: url)
    }

    func replace(_ journal: UploadJournal) throws {
        self.journal = journal
        try journal.save(to: url)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
