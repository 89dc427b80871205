import Foundation

/// What an interrupted sync of one recording needs to continue, persisted per (server, device, recording).
///
/// Written atomically after the upload is planned, after every part the server stored, after complete-upload and
/// after the server registered the recording; removed once the device acknowledged it. The bytes of the part
/// being read from the device are appended to a spool file beside it, so a restarted app continues from the
/// first byte it does not have, not from the start of the part (BLE is slow: a 5 MiB part is minutes).
struct DeviceSyncJournal: ResumeJournal, Sendable, Equatable {
    /// Where the recording is in its sync.
    enum Stage: String, Codable, Sendable {
        /// Parts are being uploaded (by the app over BLE, or by the device over Wi-Fi).
        case uploading
        /// complete-upload answered: the file exists; it is not yet registered.
        case completed
        /// The server registered the recording (digest checked): acknowledge it to the device.
        case registered
    }

    var version = 1
    var baseURL: String
    var serial: String
    var recording: UInt32
    var sha256: String
    var size: Int64
    var filetype: String
    var uploadID: String
    var fileID: String
    var chunkSize: Int
    /// Part number → presigned URL (as planned; a status call refreshes expired ones).
    var partURLs: [Int: String]
    /// Part number → ETag of the parts the server stored.
    var etags: [Int: String] = [:]
    var stage: Stage = .uploading
    /// The part whose bytes the spool file holds (its first bytes, in order).
    var spoolPart: Int?
    /// Set by the Wi-Fi path: the device uploads the parts itself.
    var viaWiFi = false
    /// The record the server made (stage `registered`).
    var recordID: String?

    var partCount: Int { partURLs.count }

    /// Byte range of part `number` (1-based).
    func range(of number: Int) -> Range<Int64> {
        let start = Int64(number - 1) * Int64(chunkSize)
        return start..<min(start + Int64(chunkSize), size)
    }

    /// Bytes of the parts the server holds.
    var storedBytes: Int64 { etags.keys.reduce(0) { $0 + Int64(range(of: $1).count) } }

    /// The journal's file in `directory`; the spool file is beside it with `.spool`.
    static func location(in directory: URL, baseURL: String, serial: String, recording: UInt32, sha256: String)
        -> URL
    {
        let key = MD5.hex(Array("\(baseURL)\n\(serial)\n\(recording)\n\(sha256)".utf8))
        return directory.appendingPathComponent("device-\(Self.safe(serial))-\(recording)-\(key.prefix(12)).json")
    }

    static func spool(for journal: URL) -> URL {
        journal.deletingPathExtension().appendingPathExtension("spool")
    }

    static let resumes = "sync"

    /// Removes the journal and its spool.
    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: spool(for: url))
        try? FileManager.default.removeItem(at: url)
    }

    private static func safe(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
    }
}

/// The bytes of one part read so far from the device, appended window by window to a file.
///
/// A window is appended whole or (after a kill mid-write) partly; either way the file holds the part's first bytes in
/// order, so its length is where reading continues.
struct PartSpool {
    let url: URL

    /// Bytes held.
    var count: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    func reset() throws {
        try? FileManager.default.removeItem(at: url)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw EarshotError(.fileSystem, "cannot create \(url.path)")
        }
    }

    /// Truncates to `length` bytes (drops bytes past the part, never expected).
    func truncate(to length: Int64) throws {
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.truncate(atOffset: UInt64(length))
        } catch {
            throw EarshotError(.fileSystem, "cannot truncate \(url.path)", underlying: error)
        }
    }

    func append(_ bytes: [UInt8]) throws {
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw EarshotError(.fileSystem, "cannot write \(url.path)", underlying: error)
        }
    }

    func read() throws -> Data {
        do { return try Data(contentsOf: url) } catch {
            throw EarshotError(.fileSystem, "cannot read \(url.path)", underlying: error)
        }
    }
}
