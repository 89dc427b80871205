import EarshotCore

extension ReadOnlyFile {
    /// Opens a WAV file for inspection; a directory or device is refused with a message saying what to pass.
    static func wav(at path: String) throws(AudioError) -> ReadOnlyFile {
        let file = try fileSystem { () throws(SystemCallError) in try ReadOnlyFile(path: path) }
        guard file.isRegularFile else {
            throw AudioError(.notFound, "\(path) is not a regular file (a directory or a device); pass a WAV file")
        }
        return file
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int) throws(AudioError) -> [UInt8] {
        try fileSystem { () throws(SystemCallError) in try read(upTo: count, at: offset) }
    }
}
