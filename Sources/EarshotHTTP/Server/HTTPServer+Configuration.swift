import Foundation

extension HTTPServer {
    /// Server options. The defaults suit a service behind a reverse proxy on the same host.
    public struct Configuration: Sendable {
        /// Numeric IPv4 or IPv6 address to bind. Default `127.0.0.1`: the server never listens on every interface
        /// unless told to (`0.0.0.0` or `::`).
        public var host: String
        /// TCP port; 0 picks a free one (read it from ``HTTPServer/waitUntilListening()``).
        public var port: Int
        /// libmicrohttpd worker threads (socket I/O, body writes to disk). Handlers run on the Swift pool.
        public var threadPoolSize: Int
        /// Maximum simultaneous connections; more are refused by libmicrohttpd.
        public var maxConnections: Int
        /// A connection idle this long (nothing received or sent; e.g. a client that connects and sends nothing
        /// or stops mid-request) is closed. Whole seconds, rounded up; suspended requests (waiting for a slow
        /// handler) do not time out.
        public var connectionTimeout: Duration
        /// Per-connection memory for the request line, headers and read buffer (libmicrohttpd's
        /// `MHD_OPTION_CONNECTION_MEMORY_LIMIT`). Requests whose headers do not fit are answered 431 by
        /// libmicrohttpd itself (without a request id).
        public var maxHeaderBytes: Int
        /// Most query parameters a request may have; more are answered 414 `URI_TOO_LONG`. Each parameter takes
        /// room in the connection's memory (``maxHeaderBytes``), so this must stay well below what fits: at most
        /// `maxHeaderBytes / 128`, which is what nil means (256 with the default 32 KiB).
        public var maxQueryParameters: Int?
        /// Body limit for routes using ``BodyMode/buffered(limit:)`` without their own limit.
        public var defaultBodyLimit: Int
        /// How much of a ``BodyMode/stream(limit:)`` body is held in memory before the connection is suspended
        /// until the handler catches up. It resumes when a quarter of this remains.
        public var streamBufferBytes: Int
        /// A chunked body that passes its limit is read and discarded for up to this many further bytes so the
        /// client can still receive its 413; past that, the connection is closed.
        public var bodyOverflowAllowance: Int
        /// After ``HTTPServer/run()`` is cancelled: how long in-flight requests may take to finish before their
        /// handlers are cancelled and they are answered 503.
        public var shutdownGracePeriod: Duration
        /// Maps errors thrown by handlers that are neither ``HTTPError`` nor ``HTTPErrorConvertible`` (the server
        /// module's one table of domain errors). Return nil for a 500.
        public var errorMapper: (@Sendable (any Error) -> HTTPError?)?

        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            threadPoolSize: Int = Configuration.defaultThreadPoolSize,
            maxConnections: Int = 1000,
            connectionTimeout: Duration = .seconds(30),
            maxHeaderBytes: Int = 32 * 1024,
            maxQueryParameters: Int? = nil,
            defaultBodyLimit: Int = 1 << 20,
            streamBufferBytes: Int = 256 * 1024,
            bodyOverflowAllowance: Int = 1 << 20,
            shutdownGracePeriod: Duration = .seconds(10),
            errorMapper: (@Sendable (any Error) -> HTTPError?)? = nil
        ) {
            self.host = host
            self.port = port
            self.threadPoolSize = threadPoolSize
            self.maxConnections = maxConnections
            self.connectionTimeout = connectionTimeout
            self.maxHeaderBytes = maxHeaderBytes
            self.maxQueryParameters = maxQueryParameters
            self.defaultBodyLimit = defaultBodyLimit
            self.streamBufferBytes = streamBufferBytes
            self.bodyOverflowAllowance = bodyOverflowAllowance
            self.shutdownGracePeriod = shutdownGracePeriod
            self.errorMapper = errorMapper
        }

        /// One libmicrohttpd worker per CPU, at least two.
        public static var defaultThreadPoolSize: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

        func validate() throws(HTTPServerError) {
            func require(_ ok: Bool, _ message: String) throws(HTTPServerError) {
                if !ok { throw HTTPServerError(.invalidConfiguration, message) }
            }
            try require((0...65535).contains(port), "port must be 0...65535, got \(port)")
            try require(threadPoolSize >= 1 && threadPoolSize <= 256, "threadPoolSize must be 1...256")
            try require(maxConnections >= 1, "maxConnections must be at least 1")
            try require(connectionTimeout > .zero, "connectionTimeout must be positive")
            try require(maxHeaderBytes >= 4096, "maxHeaderBytes must be at least 4096")
            try require(
                queryParameterLimit >= 1 && queryParameterLimit <= maxHeaderBytes / 128,
                "maxQueryParameters must be 1...\(maxHeaderBytes / 128) (maxHeaderBytes / 128)")
            try require(defaultBodyLimit >= 0 && bodyOverflowAllowance >= 0, "body limits must not be negative")
            try require(streamBufferBytes >= 4096, "streamBufferBytes must be at least 4096")
        }

        /// The query-parameter limit in force: ``maxQueryParameters``, or `maxHeaderBytes / 128`.
        public var queryParameterLimit: Int { maxQueryParameters ?? maxHeaderBytes / 128 }

        /// The timeout in whole seconds as libmicrohttpd wants it (at least 1).
        var timeoutSeconds: Int {
            let (seconds, atto) = connectionTimeout.components
            return max(1, Int(seconds) + (atto > 0 ? 1 : 0))
        }
    }
}
