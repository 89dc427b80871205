/// A small structured logger writing one line per event.
///
/// Lines are `logfmt` (`ts=… level=info label=http msg="…" key=value`) or JSON, chosen once at start
/// through ``LogSink/bootstrap(level:format:fileDescriptor:)``. Thread-safe: every line is written with a single
/// `write(2)`.
///
/// A line carries, after `ts`, `level`, `label` and `msg`: the ``LogContext`` bound around the code that logs (a
/// request's `request_id`, a job's `job_id`), then the logger's own ``metadata``, then the call's `metadata:`.
///
/// ```swift
/// let logger = Logger(label: "records").with(["record_id": id])
/// logger.info("summary saved", metadata: ["words": "120"])
/// // ts=… level=info label=records msg="summary saved" request_id=req_… record_id=rec_… words=120
/// ```
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// Parses `trace|debug|info|notice|warning|error` (case-insensitive).
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
            self = level
        }
    }

    /// Key-value context attached to a line.
    public typealias Metadata = LogMetadata

    /// The component name written as `label=`.
    public let label: String

    /// Metadata written on every line of this logger, after the ``LogContext``'s and before the call's.
    public var metadata: Metadata

    /// Creates a logger for a component (`http`, `store`, `server`…).
    public init(label: String, metadata: Metadata = [:]) {
        self.label = label
        self.metadata = metadata
    }

    /// This logger with `metadata` added to its own (a value set here wins over this logger's).
    public func with(_ metadata: Metadata) -> Logger {
        Logger(label: label, metadata: self.metadata.merging(metadata))
    }

    /// One key of ``metadata``: `logger[metadataKey: "job_id"] = id`.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes a line when `level` is at or above the configured threshold.
    ///
    /// The line's metadata is the ``LogContext`` (outermost scope first), then ``metadata``, then `metadata`; a key
    /// set at several levels appears once, at its first position, with the most specific value.
    public func log(_ level: Level, _ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        LogSink.shared.emit(level: level, label: label, message: message, metadata: { lineMetadata(metadata) })
    }

    /// The metadata of a line logged now with `call`: context, then this logger's, then the call's.
    func lineMetadata(_ call: Metadata) -> Metadata {
        Self.lineMetadata(context: LogContext.current, logger: metadata, call: call)
    }

    static func lineMetadata(context: Metadata, logger: Metadata, call: Metadata) -> Metadata {
        if context.isEmpty && logger.isEmpty { return call }  // the access log's path: no copy
        return context.merging(logger).merging(call)
    }

    public func trace(_ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        log(.trace, message(), metadata: metadata)
    }
    public func debug(_ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        log(.debug, message(), metadata: metadata)
    }
    public func info(_ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        log(.info, message(), metadata: metadata)
    }
    public func notice(_ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        log(.notice, message(), metadata: metadata)
    }
    public func warning(_ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        log(.warning, message(), metadata: metadata)
    }
    public func error(_ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        log(.error, message(), metadata: metadata)
    }
}
