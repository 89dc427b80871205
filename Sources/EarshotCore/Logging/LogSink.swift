import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

        /// Packed into one word so that every line reads the settings with one atomic load, not a lock.
        var packed: UInt64 {
            UInt64(UInt32(bitPattern: fileDescriptor)) | UInt64(level.rawValue) << 32
                | (format == .json ? 1 << 40 : 0)
        }

        init(level: Logger.Level = .info, format: Format = .logfmt, fileDescriptor: Int32 = 2) {
            self.level = level
            self.format = format
            self.fileDescriptor = fileDescriptor
        }

        init(packed: UInt64) {
            fileDescriptor = Int32(bitPattern: UInt32(truncatingIfNeeded: packed))
            level = Logger.Level(rawValue: Int((packed >> 32) & 0xFF)) ?? .info
            format = packed & (1 << 40) != 0 ? .json : .logfmt
        }
    }

    /// The sink every ``Logger`` writes to.
    public static let shared = LogSink()

    private let state = Atomic<UInt64>(State().packed)

    private init() {}

    /// Sets the threshold, the format and the destination (standard error by default).
    public func bootstrap(level: Logger.Level, format: Format = .logfmt, fileDescriptor: Int32 = 2) {
        state.store(State(level: level, format: format, fileDescriptor: fileDescriptor).packed, ordering: .releasing)
    }

    /// The current threshold.
    public var level: Logger.Level { State(packed: state.load(ordering: .acquiring)).level }

    /// Writes one line when `level` passes the threshold; `message` and `metadata` are evaluated only then.
    func emit(level: Logger.Level, label: String, message: () -> String, metadata: () -> Logger.Metadata) {
        let current = State(packed: state.load(ordering: .acquiring))
        guard level >= current.level else { return }
        let metadata = metadata()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var line = Self.renderBytes(
            seconds: Int(now.tv_sec), milliseconds: Int(now.tv_nsec) / 1_000_000, level: level, label: label,
            message: message(), metadata: metadata, format: current.format)
        line.append(0x0A)
        line.withUnsafeBytes { buffer in
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
        let milliseconds = Int((timestamp.timeIntervalSince1970 * 1000).rounded(.down))
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let bytes = renderBytes(
            seconds: fraction < 0 ? seconds - 1 : seconds, milliseconds: fraction < 0 ? fraction + 1000 : fraction,
            level: level, label: label, message: message, metadata: metadata, format: format)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One line as UTF-8, built in a single buffer: the access log writes one per request, so this avoids
    /// intermediate strings (and Foundation's date formatting, which cost more than the rest of the request).
    static func renderBytes(
        seconds: Int, milliseconds: Int, level: Logger.Level, label: String, message: String,
        metadata: Logger.Metadata, format: Format
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        switch format {
        case .logfmt:
            out.append(contentsOf: "ts=".utf8)
            appendTimestamp(seconds: seconds, milliseconds: milliseconds, to: &out)
            out.append(contentsOf: " level=".utf8)
            out.append(contentsOf: level.description.utf8)
            appendLogfmt(" label=", label, to: &out)
            appendLogfmt(" msg=", message, to: &out)
            for (key, value) in metadata {
                out.append(0x20)
                appendLogfmtKey(key, to: &out)
                appendLogfmt("=", value, to: &out)
            }
        case .json:
            out.append(contentsOf: #"{"ts":""#.utf8)
            appendTimestamp(seconds: seconds, milliseconds: milliseconds, to: &out)
            out.append(contentsOf: #"","level":""#.utf8)
            out.append(contentsOf: level.description.utf8)
            out.append(contentsOf: #"","label":"#.utf8)
            appendJSON(label, to: &out)
            out.append(contentsOf: #","msg":"#.utf8)
            appendJSON(message, to: &out)
            for (key, value) in metadata {
                out.append(0x2C)
                appendJSON(key, to: &out)
                out.append(0x3A)
                appendJSON(value, to: &out)
            }
            out.append(0x7D)
        }
        return out
    }

    /// `2027-01-15T08:00:00.250Z` (UTC, millisecond precision), via `gmtime_r`.
    static func appendTimestamp(seconds: Int, milliseconds: Int, to out: inout [UInt8]) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func digits(_ value: Int32, _ count: Int, then separator: UInt8) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(truncatingIfNeeded: 0x30 + (value / divisor) % 10))
                divisor /= 10
            }
            out.append(separator)
        }
        digits(parts.tm_year + 1900, 4, then: UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2, then: UInt8(ascii: "-"))
        digits(parts.tm_mday, 2, then: UInt8(ascii: "T"))
        digits(parts.tm_hour, 2, then: UInt8(ascii: ":"))
        digits(parts.tm_min, 2, then: UInt8(ascii: ":"))
        digits(parts.tm_sec, 2, then: UInt8(ascii: "."))
        digits(Int32(milliseconds), 3, then: UInt8(ascii: "Z"))
    }

    /// A metadata key as logfmt allows it: bytes that would end or break the key (space, `=`, `"`, control
    /// characters) become `_`, and an empty key is `_`. JSON keys are escaped like values instead.
    private static func appendLogfmtKey(_ key: String, to out: inout [UInt8]) {
        var key = key
        key.withUTF8 { bytes in
            if bytes.isEmpty {
                out.append(UInt8(ascii: "_"))
                return
            }
            for byte in bytes {
                switch byte {
                case 0x20, 0x3D, 0x22, 0x7F, 0..<0x20: out.append(UInt8(ascii: "_"))
                default: out.append(byte)
                }
            }
        }
    }

    /// `prefix` then `value`, quoted when it is empty or holds a space, `=`, `"` or a line break.
    private static func appendLogfmt(_ prefix: StaticString, _ value: String, to out: inout [UInt8]) {
        prefix.withUTF8Buffer { out.append(contentsOf: $0) }
        var value = value
        value.withUTF8 { bytes in
            if !bytes.isEmpty && !logfmtNeedsQuotes(bytes) {
                out.append(contentsOf: bytes)
                return
            }
            out.append(0x22)
            for byte in bytes {
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                default: out.append(byte)
                }
            }
            out.append(0x22)
        }
    }

    private static func logfmtNeedsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case 0x20, 0x3D, 0x22, 0x0A, 0x0B, 0x0C, 0x0D: return true
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85: return true  // U+0085
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && bytes[index + 2] & 0xFE == 0xA8:
                return true  // U+2028, U+2029
            default: continue
            }
        }
        return false
    }

    private static func appendJSON(_ value: String, to out: inout [UInt8]) {
        func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
        out.append(0x22)
        var value = value
        value.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                case 0x09: out.append(contentsOf: [0x5C, 0x74])
                case 0..<0x20: out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex(byte >> 4), hex(byte & 15)])
                default: out.append(byte)
                }
            }
        }
        out.append(0x22)
    }
}
