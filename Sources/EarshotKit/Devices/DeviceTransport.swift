public import EarshotDevice
public import Foundation

/// A recorder found by a scan, and how to reach it.
public struct DiscoveredDevice: Sendable, Hashable, Codable {
    /// The serial it advertises (BLE: in its advertisement's local name or manufacturer data).
    public var serial: String
    public var model: String
    /// Where the transport reaches it: `host:port` for the stream transport, a peripheral UUID for BLE.
    public var address: String
    /// Whether it advertised being bound (nil when it does not say).
    public var bound: Bool?
    /// The link's rate in bytes per second when advertised (the simulator's `--rate`).
    public var bytesPerSecond: Int?
    /// The largest frame the link carries.
    public var frameSize: Int

    public init(
        serial: String, model: String, address: String, bound: Bool? = nil, bytesPerSecond: Int? = nil,
        frameSize: Int = 244
    ) {
        self.serial = serial
        self.model = model
        self.address = address
        self.bound = bound
        self.bytesPerSecond = bytesPerSecond
        self.frameSize = frameSize
    }
}

/// How the SDK finds recorders and opens a protocol link to one: BLE on a phone
/// (`BluetoothDeviceTransport`, Apple platforms), the simulator's stream link elsewhere
/// (``StreamDeviceTransport``). Everything above it — binding, sync, the journal — is the same code.
public protocol DeviceTransport: Sendable {
    /// Devices in reach now; waits up to `timeoutSeconds` for advertisements where that applies.
    func scan(timeoutSeconds: Double) async throws -> [DiscoveredDevice]
    /// Opens a link to `device` (not yet greeted: ``DeviceManager`` says hello).
    ///
    /// - Throws: ``EarshotError`` `DEVICE` when it cannot be reached.
    func connect(to device: DiscoveredDevice) async throws -> DeviceConnection
}

/// The stream transport: devices on this machine found through their discovery files (what
/// `earshot device simulate` writes: `SERIAL.json` in `$EARSHOT_DEVICE_DIR`, else `$EARSHOT_HOME/devices`), reached
/// over TCP on loopback. The link has the BLE limits the simulator enforces (frame size, rate).
public struct StreamDeviceTransport: DeviceTransport {
    /// The discovery directory.
    public var directory: URL
    /// The frame size the app offers in `hello` (the device answers the smaller of both).
    public var maximumFrameSize: Int

    public init(directory: URL, maximumFrameSize: Int = 244) {
        self.directory = directory
        self.maximumFrameSize = maximumFrameSize
    }

    /// The directory the simulator uses for `environment`: `$EARSHOT_DEVICE_DIR`, else `$EARSHOT_HOME/devices`, else
    /// `~/.cache/earshot/devices` (`HOME` from the environment).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["EARSHOT_DEVICE_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        if let home = environment["EARSHOT_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent("devices")
        }
        let user = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: user).appendingPathComponent(".cache/earshot/devices")
    }

    private struct Advertisement: Decodable {
        var serial: String
        var model: String
        var host: String
        var port: Int
        var pid: Int32?
        var bound: Bool?
        var bytesPerSecond: Int?
        var frameSize: Int?

        enum CodingKeys: String, CodingKey {
            case serial, model, host, port, pid, bound
            case bytesPerSecond = "bytes_per_second"
            case frameSize = "frame_size"
        }
    }

    /// The advertised devices whose process is alive, by serial.
    public func scan(timeoutSeconds: Double = 0) async throws -> [DiscoveredDevice] {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        var found: [DiscoveredDevice] = []
        for file in files where file.pathExtension == "json" {
            guard let data = try? Data(contentsOf: file),
                let advertised = try? JSONDecoder().decode(Advertisement.self, from: data)
            else { continue }
            if let pid = advertised.pid, !ProcessLiveness.isAlive(pid) { continue }  // stale: the device is gone
            found.append(
                DiscoveredDevice(
                    serial: advertised.serial, model: advertised.model, address: "\(advertised.host):\(advertised.port)",
                    bound: advertised.bound, bytesPerSecond: advertised.bytesPerSecond,
                    frameSize: advertised.frameSize ?? maximumFrameSize))
        }
        return found.sorted { $0.serial < $1.serial }
    }

    public func connect(to device: DiscoveredDevice) async throws -> DeviceConnection {
        guard let colon = device.address.lastIndex(of: ":"), let port = Int(device.address[colon...].dropFirst())
        else {
            throw EarshotError(.invalidArgument, "\(device.address) is not a host:port address")
        }
        do {
            return try DeviceConnection(host: String(device.address[..<colon]), port: port)
        } catch {
            throw EarshotError(
                .device, "cannot reach device \(device.serial) at \(device.address): \(error.message)",
                underlying: error)
        }
    }
}
