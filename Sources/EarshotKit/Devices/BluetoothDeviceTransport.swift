#if canImport(CoreBluetooth)
    public import CoreBluetooth
    public import EarshotDevice
    public import Foundation

    /// The BLE transport (iOS, macOS): scans for the Earshot recorder service, connects, subscribes to the device's
    /// notify characteristic and writes frames without response, one frame per write (docs/device-protocol.md,
    /// "Transport").
    ///
    /// NOTE: this file is compiled only where CoreBluetooth exists; the Linux CI cannot build it. It follows
    /// Apple's documented CoreBluetooth flow (state → scan → connect → discover service → discover characteristics
    /// → subscribe) and keeps every CoreBluetooth call on one serial queue.
    ///
    /// The app needs `NSBluetoothAlwaysUsageDescription` in its Info.plist. Bluetooth off or unauthorised is
    /// ``EarshotError`` `BLE_UNAVAILABLE`.
    public final class BluetoothDeviceTransport: NSObject, DeviceTransport, @unchecked Sendable {
        // SAFETY: every mutable property and every CoreBluetooth object is touched only on `queue` (the central
        // manager's delegate queue); public entry points hop onto it with `queue.sync`/`queue.async`.

        /// The recorder's GATT service (advertised), and its two characteristics.
        public static let serviceUUID = CBUUID(string: "E5A10001-7D2C-4B8E-9F41-3A6C2B1D0E01")
        /// App → device: write without response, one frame per write.
        public static let writeUUID = CBUUID(string: "E5A10002-7D2C-4B8E-9F41-3A6C2B1D0E01")
        /// Device → app: notify, one frame per notification.
        public static let notifyUUID = CBUUID(string: "E5A10003-7D2C-4B8E-9F41-3A6C2B1D0E01")

        private let queue = DispatchQueue(label: "earshot.ble")
        private var central: CBCentralManager?
        private var stateWaiters: [CheckedContinuation<Void, any Error>] = []
        private var found: [UUID: (peripheral: CBPeripheral, device: DiscoveredDevice)] = [:]
        private var connecting: [UUID: CheckedContinuation<BluetoothLink, any Error>] = [:]
        private var writers: [UUID: CBCharacteristic] = [:]
        private var links: [UUID: BluetoothLink] = [:]

        public override init() {
            super.init()
            queue.sync { central = CBCentralManager(delegate: self, queue: queue) }
        }

        public func scan(timeoutSeconds: Double = 5) async throws -> [DiscoveredDevice] {
            try await poweredOn()
            queue.sync {
                found = found.filter { links[$0.key] != nil }
                central?.scanForPeripherals(
                    withServices: [Self.serviceUUID], options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
            }
            try? await Task.sleep(nanoseconds: UInt64(max(timeoutSeconds, 0.5) * 1_000_000_000))
            return queue.sync {
                central?.stopScan()
                return found.values.map(\.device).sorted { $0.serial < $1.serial }
            }
        }

        public func connect(to device: DiscoveredDevice) async throws -> DeviceConnection {
            try await poweredOn()
            guard let identifier = UUID(uuidString: device.address) else {
                throw EarshotError(.invalidArgument, "\(device.address) is not a Bluetooth peripheral identifier")
            }
            let link: BluetoothLink = try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    guard let central = self.central,
                        let peripheral = self.found[identifier]?.peripheral
                            ?? central.retrievePeripherals(withIdentifiers: [identifier]).first
                    else {
                        continuation.resume(
                            throwing: EarshotError(.deviceNotFound, "device \(device.serial) is not in reach: scan again"))
                        return
                    }
                    self.connecting[identifier]?.resume(throwing: CancellationError())
                    self.connecting[identifier] = continuation
                    peripheral.delegate = self
                    central.connect(peripheral, options: nil)
                }
            }
            return DeviceConnection(link: link)
        }

        // MARK: Private

        private func poweredOn() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                queue.async {
                    switch self.central?.state {
                    case .poweredOn?:
                        continuation.resume()
                    case .unknown?, .resetting?, nil:
                        self.stateWaiters.append(continuation)  // answered by centralManagerDidUpdateState
                    default:
                        continuation.resume(throwing: Self.unavailable(self.central?.state))
                    }
                }
            }
        }

        private static func unavailable(_ state: CBManagerState?) -> EarshotError {
            let why: String
            switch state {
            case .poweredOff?: why = "Bluetooth is off"
            case .unauthorized?: why = "the app may not use Bluetooth (Settings → Privacy → Bluetooth)"
            case .unsupported?: why = "this device has no Bluetooth LE"
            default: why = "Bluetooth is not available"
            }
            return EarshotError(.bleUnavailable, why)
        }

        private func failConnect(_ identifier: UUID, _ error: any Error) {
            connecting.removeValue(forKey: identifier)?.resume(throwing: error)
        }
    }

    extension BluetoothDeviceTransport: CBCentralManagerDelegate {
        public func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state != .unknown, central.state != .resetting else { return }
            let waiters = stateWaiters
            stateWaiters = []
            for waiter in waiters {
                if central.state == .poweredOn {
                    waiter.resume()
                } else {
                    waiter.resume(throwing: Self.unavailable(central.state))
                }
            }
            if central.state != .poweredOn {
                for link in links.values { link.closed(by: "Bluetooth became unavailable") }
                links.removeAll()
            }
        }

        public func centralManager(
            _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
            rssi RSSI: NSNumber
        ) {
            let name = advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? peripheral.name ?? ""
            guard !name.isEmpty else { return }
            found[peripheral.identifier] = (
                peripheral,
                DiscoveredDevice(
                    serial: name, model: "Earshot recorder", address: peripheral.identifier.uuidString,
                    frameSize: 244)
            )
        }

        public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.discoverServices([Self.serviceUUID])
        }

        public func centralManager(
            _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?
        ) {
            failConnect(
                peripheral.identifier,
                EarshotError(.device, "cannot connect to the device", underlying: error))
        }

        public func centralManager(
            _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
        ) {
            failConnect(peripheral.identifier, EarshotError(.device, "the device disconnected", underlying: error))
            links.removeValue(forKey: peripheral.identifier)?.closed(by: "the device disconnected")
            writers.removeValue(forKey: peripheral.identifier)
        }
    }

    extension BluetoothDeviceTransport: CBPeripheralDelegate {
        public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
            guard let service = peripheral.services?.first(where: { $0.uuid == Self.serviceUUID }) else {
                failConnect(
                    peripheral.identifier,
                    EarshotError(.device, "the device has no Earshot recorder service", underlying: error))
                central?.cancelPeripheralConnection(peripheral)
                return
            }
            peripheral.discoverCharacteristics([Self.writeUUID, Self.notifyUUID], for: service)
        }

        public func peripheral(
            _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
        ) {
            let characteristics = service.characteristics ?? []
            guard let write = characteristics.first(where: { $0.uuid == Self.writeUUID }),
                let notify = characteristics.first(where: { $0.uuid == Self.notifyUUID })
            else {
                failConnect(
                    peripheral.identifier,
                    EarshotError(.device, "the recorder service lacks its characteristics", underlying: error))
                central?.cancelPeripheralConnection(peripheral)
                return
            }
            writers[peripheral.identifier] = write
            peripheral.setNotifyValue(true, for: notify)
        }

        public func peripheral(
            _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
            error: (any Error)?
        ) {
            guard characteristic.uuid == Self.notifyUUID else { return }
            guard error == nil, characteristic.isNotifying, let write = writers[peripheral.identifier] else {
                failConnect(
                    peripheral.identifier,
                    EarshotError(.device, "cannot subscribe to the device's notifications", underlying: error))
                central?.cancelPeripheralConnection(peripheral)
                return
            }
            let central = self.central
            let queue = self.queue
            let link = BluetoothLink(
                queue: queue, peripheral: peripheral, characteristic: write,
                disconnect: { queue.async { central?.cancelPeripheralConnection(peripheral) } })
            links[peripheral.identifier] = link
            connecting.removeValue(forKey: peripheral.identifier)?.resume(returning: link)
        }

        public func peripheral(
            _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?
        ) {
            guard characteristic.uuid == Self.notifyUUID, let value = characteristic.value else { return }
            links[peripheral.identifier]?.deliver([UInt8](value))
        }

        public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
            links[peripheral.identifier]?.writable()
        }
    }

    /// One BLE connection as a ``DeviceLink``: notifications are buffered for the connection's reader thread, and
    /// frames are written one per write without response, waiting while the peripheral's queue is full.
    final class BluetoothLink: DeviceLink, @unchecked Sendable {
        // SAFETY: `buffer`, `isClosed` and `reason` are guarded by `condition`; the peripheral and characteristic
        // are used only on `queue` (CoreBluetooth's delegate queue).
        private let condition = NSCondition()
        private var buffer: [UInt8] = []
        private var isClosed = false
        private var reason = "the link was closed"
        private let queue: DispatchQueue
        private let peripheral: CBPeripheral
        private let characteristic: CBCharacteristic
        /// Cancels the peripheral connection (hops onto `queue` itself).
        private let disconnect: () -> Void

        init(
            queue: DispatchQueue, peripheral: CBPeripheral, characteristic: CBCharacteristic,
            disconnect: @escaping () -> Void
        ) {
            self.queue = queue
            self.peripheral = peripheral
            self.characteristic = characteristic
            self.disconnect = disconnect
        }

        func send(_ bytes: [UInt8]) throws(DeviceProtocolError) {
            for frame in Frame.split(bytes) {
                while true {
                    let sent: Bool = queue.sync {
                        guard peripheral.canSendWriteWithoutResponse else { return false }
                        peripheral.writeValue(Data(frame), for: characteristic, type: .withoutResponse)
                        return true
                    }
                    if sent { break }
                    condition.lock()
                    if isClosed {
                        condition.unlock()
                        throw DeviceProtocolError(.disconnected, reason)
                    }
                    _ = condition.wait(until: Date(timeIntervalSinceNow: 0.5))  // woken by `writable()`
                    condition.unlock()
                }
            }
        }

        func receive(maximum: Int) throws(DeviceProtocolError) -> [UInt8] {
            condition.lock()
            defer { condition.unlock() }
            while buffer.isEmpty && !isClosed { condition.wait() }
            if buffer.isEmpty { return [] }
            let count = min(maximum, buffer.count)
            let bytes = Array(buffer.prefix(count))
            buffer.removeFirst(count)
            return bytes
        }

        func close() {
            closed(by: "the link was closed")
            disconnect()
        }

        /// A notification arrived (on `queue`).
        func deliver(_ bytes: [UInt8]) {
            condition.lock()
            buffer += bytes
            condition.broadcast()
            condition.unlock()
        }

        /// The peripheral can take writes again (on `queue`).
        func writable() {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }

        /// The connection ended: wake the reader (it sees the end) and any blocked writer.
        func closed(by why: String) {
            condition.lock()
            if !isClosed {
                isClosed = true
                reason = why
            }
            condition.broadcast()
            condition.unlock()
        }
    }
#endif
