public import EarshotAPI
public import EarshotDevice
public import Foundation

/// The app's side of recorder devices: find them, bind one to the signed-in user, list what is on it, and sync its
/// recordings to Earshot without ever losing one.
///
/// ```swift
/// let devices = DeviceManager(client: client, configuration: .init(transport: BluetoothDeviceTransport()))
/// let found = try await devices.scan()
/// try await devices.bind(found[0], code: "493027")        // the code the card shows
/// let sync = devices.sync(found[0])
/// async let summary = sync.run()
/// for await event in sync.events {
///     if case .progress(let p) = event { bar.value = p.fractionCompleted }   // also p.current, p.secondsLeft
/// }
/// print(try await summary.synced.map(\.recordID))         // records; transcripts follow on the server
/// ```
///
/// - The device's binding secret goes from the device to the platform once; later sessions get their proof from
///   the platform (`…/proof`), so no secret lives on the phone.
/// - Sync is resumable: a journal in ``Configuration/stateDirectory`` holds, per recording, the upload id, the parts
///   the server stored and the bytes of the part being read; a restarted app (or a device that came back) goes on
///   from the first missing byte. The device frees a recording only after the server confirmed its SHA-256.
/// - Thread-safe; one sync per device at a time (the device serves one app link at a time anyway).
public final class DeviceManager: Sendable {
    /// When the device uploads over Wi-Fi itself instead of the app reading it over the (slow) link.
    public enum WiFiPolicy: Sendable, Hashable {
        case never
        /// Only for a backlog of at least this many bytes.
        case automatic(minimumBacklogBytes: Int64)
        case always

        func useWiFi(backlogBytes: Int64) -> Bool {
            switch self {
            case .never: false
            case .always: backlogBytes > 0
            case .automatic(let minimum): backlogBytes >= minimum
            }
        }
    }

    /// Options of a device manager.
    public struct Configuration: Sendable {
        /// How devices are found and reached.
        public var transport: any DeviceTransport
        /// Where sync journals live; nil for the default (caches, next to ``FileUploader``'s state).
        public var stateDirectory: URL?
        /// The app's name, as the device logs it.
        public var clientName: String
        /// Bytes per `read` request (32–64 KiB, the protocol's advice).
        public var readWindow: Int
        /// When to hand a backlog to the device's Wi-Fi (default: backlogs of 8 MiB or more, about 45 minutes of
        /// Opus at 24 kb/s; the link would take over 4 minutes).
        public var wifi: WiFiPolicy
        /// Seconds to wait for one device answer.
        public var requestTimeout: Double

        public init(
            transport: any DeviceTransport, stateDirectory: URL? = nil, clientName: String = "EarshotKit",
            readWindow: Int = 32 << 10, wifi: WiFiPolicy = .automatic(minimumBacklogBytes: 8 << 20),
            requestTimeout: Double = 30
        ) {
            self.transport = transport
            self.stateDirectory = stateDirectory
            self.clientName = clientName
            self.readWindow = min(max(readWindow, 1 << 10), 1 << 20)
            self.wifi = wifi
            self.requestTimeout = requestTimeout
        }
    }

    public let client: EarshotClient
    public let configuration: Configuration
    /// The registry calls this manager makes (list, rename… directly).
    public let registry: DevicesClient

    public init(client: EarshotClient, configuration: Configuration) {
        self.client = client
        self.configuration = configuration
        self.registry = DevicesClient(client: client)
    }

    /// Where journals go when ``Configuration/stateDirectory`` is nil.
    public static var defaultStateDirectory: URL {
        UploadJournal.defaultDirectory.deletingLastPathComponent().appendingPathComponent("devices", isDirectory: true)
    }

    var stateDirectory: URL { configuration.stateDirectory ?? Self.defaultStateDirectory }

    // MARK: Find and bind

    /// Recorders in reach.
    public func scan(timeoutSeconds: Double = 5) async throws -> [DiscoveredDevice] {
        try await configuration.transport.scan(timeoutSeconds: timeoutSeconds)
    }

    /// The device with `serial` among those in reach.
    ///
    /// - Throws: ``EarshotError`` `DEVICE_NOT_FOUND` when no scan finds it.
    public func find(_ serial: String, timeoutSeconds: Double = 5) async throws -> DiscoveredDevice {
        guard let device = try await scan(timeoutSeconds: timeoutSeconds).first(where: { $0.serial == serial }) else {
            throw EarshotError(
                .deviceNotFound, "no device \(serial) in reach: is it switched on (or `earshot device simulate` running)?")
        }
        return device
    }

    /// Binds `device` to the signed-in user with the one-time code it shows.
    ///
    /// The platform registers the binding (answering `BIND_OCCUPIED` when another user holds the device), the device
    /// checks the code (answering `bind occupied` when bound to another account, `bad bind code`, `rate limited`),
    /// and its binding secret goes to the platform.
    ///
    /// - Throws: ``EarshotError`` `BIND_OCCUPIED`, `DEVICE` (the device's reason), or the server's error.
    @discardableResult
    public func bind(
        _ device: DiscoveredDevice, code: String, name: String? = nil, homeID: String? = nil
    ) async throws -> Device {
        let session = try await open(device)
        defer { session.connection.close() }
        let hello = session.hello
        let registered = try await registry.bind(
            DeviceBindRequest(
                serial: hello.serial, model: hello.model, firmware: hello.firmware, name: name, homeID: homeID))
        let pending = PendingSecret(directory: stateDirectory, serial: hello.serial, owner: registered.owner)
        if registered.state == .binding, let secret = pending.load() {
            // An earlier bind got the device's secret but died before the platform stored it: finish that bind.
            let bound = try await registry.storeSecret(secret, serial: hello.serial)
            pending.remove()
            return bound
        }
        let secret: [UInt8]
        do {
            guard case .bound(let answered) = try await session.device.call(.bind(code: code, owner: registered.owner))
            else { throw EarshotError(.device, "the device answered bind with something else") }
            secret = answered
        } catch let error as EarshotError where error.code == .bindOccupied && registered.state == .bound {
            // Already bound to this user (a repeated bind): prove it and carry on.
            try await authenticate(session)
            return try await registry.get(hello.serial)
        } catch {
            if registered.state == .binding { try? await registry.remove(hello.serial, clear: false) }
            throw error
        }
        // Kept until the platform has it: the device answers its secret once, and a bind that dies here would
        // otherwise leave a device bound to a secret nobody holds.
        try pending.save(secret)
        var bound = try await registry.storeSecret(secret, serial: hello.serial)
        pending.remove()
        if let report = try? await status(session) {
            bound = (try? await registry.report(DeviceStatusReport(report: report), serial: hello.serial)) ?? bound
        }
        return bound
    }

    // MARK: Look

    /// The signed-in user's devices in the registry (online state, last report).
    public func devices(homeID: String? = nil) async throws -> [Device] {
        try await registry.list(homeID: homeID).devices
    }

    /// What is on a bound device now: its status and recordings (oldest first). Reports the status to the platform.
    public func inspect(_ device: DiscoveredDevice) async throws -> (
        status: DeviceStatus, recordings: [EarshotDevice.DeviceRecording]
    ) {
        let session = try await open(device)
        defer { session.connection.close() }
        try await authenticate(session)
        let status = try await deviceStatus(session)
        _ = try? await registry.report(DeviceStatusReport(report: Self.report(status)), serial: session.hello.serial)
        return (status, try await session.device.recordings())
    }

    /// Renames a device in the registry.
    public func rename(_ serial: String, to name: String) async throws -> Device {
        try await registry.update(serial, DeviceUpdateRequest(name: name))
    }

    /// Unbinds: the device forgets its owner (with `clear`, it first erases every recording), then the registry
    /// forgets the device.
    ///
    /// Without `clear`, unsynced recordings stay on the device for its next owner; sync first to keep them.
    public func unbind(_ device: DiscoveredDevice, clear: Bool) async throws {
        let session = try await open(device)
        defer { session.connection.close() }
        try await authenticate(session)
        _ = try await session.device.call(.unbind(clear: clear))
        try await registry.remove(session.hello.serial, clear: clear)
    }

    // MARK: Sync

    /// A sync of `device`'s recordings, ready to ``DeviceSync/run()``.
    public func sync(_ device: DiscoveredDevice) -> DeviceSync {
        DeviceSync(manager: self, device: device)
    }

    // MARK: Sessions

    struct Session: Sendable {
        let connection: DeviceConnection
        let hello: HelloReply
        let device: LinkedDevice
    }

    /// Connects and says hello.
    func open(_ device: DiscoveredDevice) async throws -> Session {
        let connection = try await configuration.transport.connect(to: device)
        do {
            let hello = try await connection.hello(
                HelloRequest(
                    maximumVersion: ProtocolVersion.newest, maximumFrameSize: UInt16(clamping: device.frameSize),
                    clockMs: UInt64(Date().timeIntervalSince1970 * 1000), client: configuration.clientName),
                timeoutSeconds: configuration.requestTimeout)
            return Session(
                connection: connection, hello: hello,
                device: LinkedDevice(
                    connection: connection, serial: hello.serial, timeoutSeconds: configuration.requestTimeout,
                    version: hello.version))
        } catch let error as DeviceProtocolError {
            connection.close()
            throw DeviceErrors.wrap(error, "hello")
        }
    }

    /// Proves ownership with the platform's HMAC of the session's challenge.
    func authenticate(_ session: Session) async throws {
        guard session.hello.bound else {
            throw EarshotError(.device, "device \(session.hello.serial) is not bound: bind it with its code first")
        }
        let (owner, proof) = try await registry.proof(for: session.hello.challenge, serial: session.hello.serial)
        _ = try await session.device.call(.authenticate(owner: owner, proof: proof))
    }

    func deviceStatus(_ session: Session) async throws -> DeviceStatus {
        guard case .info(let status) = try await session.device.call(.info) else {
            throw EarshotError(.device, "the device answered info with something else")
        }
        return status
    }

    private func status(_ session: Session) async throws -> DeviceReport {
        Self.report(try await deviceStatus(session))
    }

    static func report(_ status: DeviceStatus) -> DeviceReport {
        DeviceReport(
            battery: Int(status.batteryPercent), charging: status.charging, storageUsed: Int64(status.storageUsed),
            storageTotal: Int64(status.storageTotal), recordingCount: Int(status.recordingCount),
            recording: status.recording)
    }
}
