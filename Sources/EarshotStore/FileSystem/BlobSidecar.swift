internal import EarshotCore
internal import EarshotCrypto
internal import Foundation

/// The digests of a blob, kept next to it in `.<name>.meta` (names starting with `.` are never keys).
///
/// A sidecar describes one exact file: it records the inode, size and modification time of the blob it was
/// written for, and is trusted only when all three still match. A crash between renaming the blob and its
/// sidecar into place therefore cannot attach wrong digests to a blob: the digests are recomputed instead.
struct BlobSidecar: Codable, Equatable {
    var version = 1
    var size: Int64
    var sha256: String
    /// Nil for a blob assembled in the kernel from digested parts (its MD5 was never computed).
    var md5: String?
    var inode: UInt64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    init(size: Int64, sha256: Digest, md5: Digest?, inode: UInt64, modified: timespec) {
        self.size = size
        self.sha256 = sha256.hex
        self.md5 = md5?.hex
        self.inode = inode
        self.modifiedSeconds = Int64(modified.tv_sec)
        self.modifiedNanoseconds = Int64(modified.tv_nsec)
    }

    /// True when this sidecar was written for the file described by `info`.
    func describes(_ info: stat) -> Bool {
        inode == UInt64(info.st_ino) && size == Int64(info.st_size) && modifiedSeconds == Int64(info.st_mtim.tv_sec)
            && modifiedNanoseconds == Int64(info.st_mtim.tv_nsec)
    }

    func encoded() throws -> Data {
        try JSONEncoder().encode(self)
    }

    static func read(_ path: String) -> BlobSidecar? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(BlobSidecar.self, from: data)
    }

    /// Writes `self` to `path` atomically (temporary file in `temporaryDirectory`, fsync, rename). The caller
    /// fsyncs the directory.
    func write(to path: String, temporaryDirectory: String, mode: mode_t) throws {
        let data = try encoded()
        try fileSystem { () throws(SystemCallError) in
            let file = try TemporaryFile(
                path: temporaryDirectory + "/" + UUID().uuidString.lowercased() + ".meta", mode: mode)
            try file.write(data)
            try file.publish(to: path, syncingDirectory: false)
        }
    }
}
