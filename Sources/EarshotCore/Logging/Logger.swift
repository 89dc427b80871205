#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization

/// A small structured logger writing one line per event.
///
/// Lines are `logfmt` (`ts=… level=info label=http msg="…" key=value`) or JSON, chosen once at start
/// through ``LogSink/bootstrap(level:format:)``. Thread-safe: every line is written with a single `write(2)`.
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
    public typealias Metadata = KeyValuePairs<String, String>

    /// The component name written as `label=`.
    public let label: String

    /// Creates a logger for a component (`http`, `store`, `server`…).
    public init(label: String) {
        self.label = label
    }

    /// Writes a line when `level` is at or above the configured threshold.
    public func log(_ level: Level, _ message: @autoclosure () -> String, metadata: Metadata = [:]) {
        LogSink.shared.emit(level: level, label: label, message: message, metadata: metadata)
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

/// Where log lines go: the process-wide threshold, format and file descriptor.
public final class LogSink: Sendable {
    /// Output format of a line.
    public enum Format: String, Sendable, CaseIterable {
        /// `ts=2026-01-01T00:00:00.000Z level=info label=http msg="…" k=v`
        case logfmt
        /// `{"ts":"…","level":"info","label":"http","msg":"…","k":"v"}`
        case json
    }

    struct State {
        var level: Logger.Level = .info
        var format: Format = .logfmt
        var fileDescriptor: Int32 = 2
    }

    /// The sink every ``Logger`` writes to.
    public static let shared = LogSink()

    private let state = Mutex(State())

    private init() {}

    /// Sets the threshold, the format and the destination (standard error by default).
    public func bootstrap(level: Logger.Level, format: Format = .logfmt, fileDescriptor: Int32 = 2) {
        state.withLock { $0 = State(level: level, format: format, fileDescriptor: fileDescriptor) }
    }

    /// The current threshold.
    public var level: Logger.Level { state.withLock { $0.level } }

    func emit(level: Logger.Level, label: String, message: () -> String, metadata: Logger.Metadata) {
        let current = state.withLock { $0 }
        guard level >= current.level else { return }
        let line = Self.render(
            timestamp: Date(), level: level, label: label, message: message(), metadata: metadata, format: current.format)
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(current.fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }

    static func render(
        timestamp: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        format: Format
    ) -> String {
        let ts = timestamp.formatted(
            .iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true))
        var pairs: [(String, String)] = [("ts", ts), ("level", level.description), ("label", label), ("msg", message)]
        for (key, value) in metadata { pairs.append((key, value)) }
        switch format {
        case .logfmt:
            return pairs.map { "\($0.0)=\(logfmtQuote($0.1))" }.joined(separator: " ")
        case .json:
            return "{" + pairs.map { "\(jsonQuote($0.0)):\(jsonQuote($0.1))" }.joined(separator: ",") + "}"
        }
    }

    static func logfmtQuote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0.isNewline }
        guard needsQuotes else { return value }
        var out = "\""
        for ch in value {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(ch)
            }
        }
        return out + "\""
    }

    static func jsonQuote(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
