internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// A running libmicrohttpd daemon: poll(2), an internal worker pool, suspend/resume.
///
/// poll, not epoll: in libmicrohttpd 0.9.75's epoll mode, `MHD_quiesce_daemon` removes the listening socket from each
/// worker's epoll set while that worker may be removing it too, and the loser aborts the process ("Failed to remove
/// listen FD from epoll set"; `ShutdownRaceTests` hit it about once in 500 stops). In poll mode a worker rebuilds its
/// set on every turn and leaves the socket out once quiesced. It also spares the two `epoll_ctl` calls that every
/// suspend and resume cost.
final class Daemon: @unchecked Sendable {
    // SAFETY: the MHD_Daemon handle is only used by HTTPServer.run(), sequentially (quiesce, then stop, once each);
    // libmicrohttpd's own worker threads synchronise internally.
    private let pointer: OpaquePointer
    private let core: Unmanaged<ServerCore>
    /// The bound TCP port.
    let port: Int
    private var quiesced = false
    private var stopped = false
    /// The listening socket once quiesced: shut down at once, closed only after the workers have stopped (a worker
    /// may still be polling it, and a closed descriptor's number can be reused by the process meanwhile).
    private var listener: Int32 = -1

    private init(pointer: OpaquePointer, core: Unmanaged<ServerCore>, port: Int) {
        self.pointer = pointer
        self.core = core
        self.port = port
    }

    /// Binds `configuration.host:port` and starts the workers.
    static func start(core: ServerCore) throws(HTTPServerError) -> Daemon {
        let configuration = core.configuration
        try configuration.validate()
        var storage = sockaddr_storage()
        var isIPv6: Int32 = 0
        guard earshot_make_address(configuration.host, UInt16(configuration.port), &storage, &isIPv6) > 0 else {
            throw HTTPServerError(
                .invalidConfiguration,
                "host must be a numeric IPv4 or IPv6 address such as 127.0.0.1 or ::1, got `\(configuration.host)`")
        }
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_ALLOW_UPGRADE.rawValue
        if isIPv6 != 0 { flags |= MHD_USE_IPv6.rawValue }
        let retained = Unmanaged.passRetained(core)
        let completion = unsafeBitCast(ServerCore.completionHandler, to: Int.self)
        let logSink = unsafeBitCast(ServerCore.logSink, to: UnsafeMutableRawPointer.self)
        let daemon = withUnsafeMutablePointer(to: &storage) { address in
            var options: [MHD_OptionItem] = [
                // First, so that every libmicrohttpd message goes through the Earshot logger.
                MHD_OptionItem(
                    option: .EXTERNAL_LOGGER, value: earshot_mhd_external_logger_address(), ptr_value: logSink),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.timeoutSeconds, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.maxHeaderBytes, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
                MHD_OptionItem(option: .NOTIFY_COMPLETED, value: completion, ptr_value: retained.toOpaque()),
                MHD_OptionItem(
                    option: .URI_LOG_CALLBACK, value: earshot_mhd_uri_guard_address(),
                    ptr_value: UnsafeMutableRawPointer(bitPattern: configuration.queryParameterLimit)),
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(address)),
            ]
            if configuration.threadPoolSize > 1 {
                options.append(
                    MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil))
            }
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return earshot_mhd_start_daemon(
                flags, UInt16(configuration.port), ServerCore.accessHandler, retained.toOpaque(), &options)
        }
        do {
            let pointer = try check(
                daemon, "MHD_start_daemon",
                "cannot listen on \(configuration.host):\(configuration.port) (address in use or not local?)")
            let port = Int(earshot_mhd_bound_port(pointer))
            return Daemon(pointer: pointer, core: retained, port: port > 0 ? port : configuration.port)
        } catch {
            retained.release()
            throw error
        }
    }

    /// Stops accepting connections: new ones are refused; established connections continue.
    func quiesce() {
        guard !quiesced else { return }
        quiesced = true
        listener = MHD_quiesce_daemon(pointer)
        // Stops listening (connecting clients get ECONNREFUSED) without freeing the descriptor yet.
        if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    /// Stops the workers and closes every connection. No connection may be suspended (see ServerCore.abandonAll).
    func stop() {
        guard !stopped else { return }
        stopped = true
        MHD_stop_daemon(pointer)
        if listener >= 0 { close(listener) }
        core.release()
    }
}
