import Foundation

/// A small JSON file that lets an interrupted transfer resume (``UploadJournal``, ``DeviceSyncJournal``): read back
/// leniently (a missing or unreadable file means "start over") and written atomically, so a kill mid-write leaves
/// the previous state.
protocol ResumeJournal: Codable {
    /// What the journal resumes, for the error message ("upload", "sync").
    static var resumes: String { get }
}

extension ResumeJournal {
    static func load(from url: URL) -> Self? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Self.self, from: data)
    }

    func save(to url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw EarshotError(
                .fileSystem, "cannot write the \(Self.resumes)'s resume state to \(url.path)", underlying: error)
        }
    }
}
