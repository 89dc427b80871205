/// The weight type of a whisper.cpp ggml model (`ftype` in the header, ggml's `ggml_ftype`).
///
/// Quantized files written by whisper.cpp's quantize tool add `1000 × quantization version` to the stored value;
/// ``init(storedValue:)`` strips it.
public struct GGMLFileType: Hashable, Sendable, CustomStringConvertible {
    /// ggml's `ggml_ftype` number (0 = all f32, 1 = mostly f16, 7 = q8_0, …).
    public let rawValue: Int32
    /// The quantization format version (`ftype / 1000` as stored); 0 for f32/f16 files.
    public let quantizationVersion: Int32

    /// Interprets the header's stored `ftype`.
    public init(storedValue: Int32) {
        rawValue = storedValue % 1000
        quantizationVersion = storedValue / 1000
    }

    /// Every tensor float32.
    public static let f32 = GGMLFileType(storedValue: 0)
    /// Matrices float16, vectors float32 (what conversion writes).
    public static let f16 = GGMLFileType(storedValue: 1)
    /// Matrices 8-bit in blocks of 32 with a float16 scale.
    public static let q8_0 = GGMLFileType(storedValue: 7)

    private static let names: [Int32: String] = [
        0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 7: "q8_0", 8: "q5_0", 9: "q5_1",
        10: "q2_k", 11: "q3_k", 12: "q4_k", 13: "q5_k", 14: "q6_k",
    ]

    /// The name whisper.cpp's quantize tool uses (`f16`, `q8_0`, `q5_1`…), or nil for an unknown value.
    public var name: String? { Self.names[rawValue] }

    /// Parses a name such as `q8_0`.
    public init?(name: String) {
        guard let entry = Self.names.first(where: { $0.value == name.lowercased() }) else { return nil }
        self.init(storedValue: entry.key)
    }

    /// The names ``init(name:)`` accepts.
    public static var knownNames: [String] { names.sorted { $0.key < $1.key }.map(\.value) }

    public var description: String { name ?? "ftype \(rawValue)" }

    public static func == (a: GGMLFileType, b: GGMLFileType) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
