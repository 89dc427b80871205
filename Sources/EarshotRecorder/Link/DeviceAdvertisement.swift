internal import EarshotCore
public import Foundation

/// How a running simulated recorder is found on this machine: a JSON file per device in a discovery directory,
/// written while it serves and removed when it stops (a stale file names a process that is gone).
///
/// ```json
/// {"serial":"ES1-4F2A9C","model":"Earshot S1 (simulated)","host":"127.0.0.1","port":41234,"pid":4242,
///  "bound":false,"bytes_per_second":32000,"frame_size":244}
/// ```
///
/// The directory is `$EARSHOT_DEVICE_DIR`, else `$EARSHOT_HOME/devices` (`~/.cache/earshot/devices`). A real
/// device is found by a BLE scan instead; the SDK's scanner reads these files on Linux.
public struct DeviceAdvertisement: Codable, Hashable, Sendable {
    public var serial: String
    public var model: String
    public var host: String
    public var port: Int
    public var pid: Int32
    public var bound: Bool
    public var bytesPerSecond: Int
    public var frameSize: Int

    enum CodingKeys: String, CodingKey {
        case serial, model, host, port, pid, bound
        case bytesPerSecond = "bytes_per_second"
        case frameSize = "frame_size"
    }

    public init(
        serial: String, model: String, host: String, port: Int, pid: Int32, bound: Bool, bytesPerSecond: Int,
        frameSize: Int
    ) {
        self.serial = serial
        self.model = model
        self.host = host
        self.port = port
        self.pid = pid
        self.bound = bound
        self.bytesPerSecond = bytesPerSecond
        self.frameSize = frameSize
    }

    /// The discovery directory for `environment` (see the type's documentation).
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["EARSHOT_DEVICE_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        return URL(fileURLWithPath: ModelHome.resolve(environment: environment).path).appendingPathComponent("devices")
    }

    /// Publishes the advertisement in `directory` (atomically); returns its file.
    @discardableResult
    public func publish(in directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(serial).json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: file, options: .atomic)
        return file
    }
}
