/// Byte counts the way people write them in settings and flags: `512KiB`, `1MiB`, `10MB`, `2GiB`, or plain bytes.
public enum ByteSize {
    /// The count `text` names (`1MiB`, `512KiB`, `10MB`, `2GiB`, `100B`, `4096`); nil when it names none.
    public static func parse(_ text: String) -> Int? {
        let units: [(String, Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1000), ("MB", 1_000_000),
            ("GB", 1_000_000_000), ("B", 1),
        ]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let number = Double(text.dropLast(suffix.count)), number >= 0, number < 1e15 else { return nil }
            return Int(number * Double(scale))
        }
        guard let bytes = Int(text), bytes >= 0 else { return nil }
        return bytes
    }

    /// `bytes` the way settings are written: `4KiB`, `1MiB`, `2GiB` when it is a whole number of them, else
    /// `N bytes`.
    public static func format(_ bytes: Int) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)]
        where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}
