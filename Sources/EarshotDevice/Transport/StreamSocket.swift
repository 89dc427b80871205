import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP connection: the stream transport of the device protocol (the simulator's BLE-like link, a device on the
/// local network). Blocking calls: use it from a thread of its own, not from Swift's cooperative pool.
///
/// ``close()`` may be called from any thread; it wakes a thread blocked in ``receive(maximum:)``.
public final class StreamSocket: @unchecked Sendable {
    // SAFETY: `descriptor` never changes; the socket calls are thread-safe, and `closed` is only read and written
    // under `lock`.
    private let descriptor: Int32
    private let lock = SocketLock()
    private var closed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit {
        close()
        _ = systemClose(descriptor)
    }

    /// Connects to `host` (an IPv4 address; loopback by default) on `port`.
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` when nothing listens there.
    public static func connect(host: String = "127.0.0.1", port: Int) throws(DeviceProtocolError) -> StreamSocket {
        let descriptor = try makeSocket()
        var address = try socketAddress(host: host, port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = systemClose(descriptor)
            throw failure("connect to \(host):\(port)", code)
        }
        return StreamSocket(descriptor: descriptor)
    }

    /// What arrived, at most `maximum` bytes, waiting until something does; empty when the peer closed.
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` on a reset or a closed socket.
    public func receive(maximum: Int = 4_096) throws(DeviceProtocolError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, maximum, 0) }
            if count >= 0 {
                buffer.removeSubrange(count...)
                return buffer
            }
            if errno == EINTR { continue }
            throw Self.failure("receive", errno)
        }
    }

    /// Sends all of `bytes`, waiting while the peer's window is full.
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` when the peer is gone (never SIGPIPE).
    public func send(_ bytes: [UInt8]) throws(DeviceProtocolError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                systemSend(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("send", errno)
            }
            sent += count
        }
    }

    /// Shuts the connection down; harmless when already closed.
    ///
    /// The descriptor itself is released when the socket is deallocated, once no thread can hold it: released here,
    /// its number could be reused by a new connection of this process while a reader thread is between two
    /// `receive`s, and that thread would then read the new connection's bytes as its own.
    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    // MARK: Shared with StreamListener

    static func makeSocket() throws(DeviceProtocolError) -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw failure("socket", errno) }
        return descriptor
    }

    static func socketAddress(host: String, port: Int) throws(DeviceProtocolError) -> sockaddr_in {
        guard (0...65_535).contains(port) else {
            throw DeviceProtocolError(.disconnected, "port \(port) is not a TCP port")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw DeviceProtocolError(.disconnected, "\(host) is not an IPv4 address")
        }
        return address
    }

    static func failure(_ what: String, _ code: Int32) -> DeviceProtocolError {
        DeviceProtocolError(.disconnected, "\(what) failed: \(String(cString: strerror(code)))")
    }
}

/// A listening TCP socket for the stream transport (bound to loopback by default).
public final class StreamListener: @unchecked Sendable {
    // SAFETY: as StreamSocket: an immutable descriptor, `closed` under `lock`.
    private let descriptor: Int32
    private let lock = SocketLock()
    private var closed = false
    /// The port it listens on (the one the system chose for port 0).
    public let port: Int

    /// Listens on `host`:`port` (0: any free port).
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` when the address cannot be used.
    public init(host: String = "127.0.0.1", port: Int = 0) throws(DeviceProtocolError) {
        let descriptor = try StreamSocket.makeSocket()
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = try StreamSocket.socketAddress(host: host, port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            _ = systemClose(descriptor)
            throw StreamSocket.failure("listen on \(host):\(port)", code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit { close() }

    /// The next connection, waiting for one.
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` once the listener is closed.
    public func accept() throws(DeviceProtocolError) -> StreamSocket {
        while true {
            let connection = systemAccept(descriptor, nil, nil)
            if connection >= 0 { return StreamSocket(descriptor: connection) }
            if errno == EINTR || errno == ECONNABORTED { continue }
            throw StreamSocket.failure("accept", errno)
        }
    }

    /// Stops listening and wakes a thread blocked in ``accept()``.
    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        _ = systemClose(descriptor)
    }
}

/// An `NSLock` with a typed-throws `withLock` (`NSLocking.withLock` needs iOS 16, `Mutex` iOS 18).
final class SocketLock: @unchecked Sendable {
    // SAFETY: NSLock is thread-safe; the lock is taken and released around `body` only.
    private let lock = NSLock()

    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

#if canImport(Glibc)
    private let systemConnect = Glibc.connect
    private let systemClose = Glibc.close
    private let systemSend = Glibc.send
    private let systemAccept = Glibc.accept
#elseif canImport(Darwin)
    private let systemConnect = Darwin.connect
    private let systemClose = Darwin.close
    private let systemSend = Darwin.send
    private let systemAccept = Darwin.accept
    private let MSG_NOSIGNAL: Int32 = 0  // Darwin has SO_NOSIGPIPE instead, set on every connection
#endif
