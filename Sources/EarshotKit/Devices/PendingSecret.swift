import Foundation

/// A device's binding secret between the device's `bind` answer and the platform's `PUT …/secret`: the only window in
/// which the secret is on the phone, in a file readable by the app alone, removed once the platform has it.
struct PendingSecret {
    let url: URL

    init(directory: URL, serial: String, owner: String) {
        let key = MD5.hex(Array("\(serial)\n\(owner)".utf8)).prefix(16)
        url = directory.appendingPathComponent("bind-\(key).secret")
    }

    func save(_ secret: [UInt8]) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(secret).write(to: url, options: [.atomic])
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw EarshotError(.fileSystem, "cannot keep the device's secret until the platform has it", underlying: error)
        }
    }

    func load() -> [UInt8]? {
        guard let data = try? Data(contentsOf: url), data.count == 32 else { return nil }
        return [UInt8](data)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
