internal import CZlib

/// How well a text compresses: its UTF-8 length divided by the length of its zlib (DEFLATE) compression, as
/// OpenAI's Whisper reports `compression_ratio` for each segment (zlib's default level, as Python's `zlib.compress`). Repetitive text (a decoding loop) compresses well:
/// above 2.4 counts as a failed, looping decode in Whisper's own fallback rule.
public enum CompressionRatio {
    /// The ratio for `text` (0 for an empty text).
    public static func of(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var capacity = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &capacity, input.baseAddress, uLong(input.count), Z_DEFAULT_COMPRESSION)
            }
        }
        // compress2 only fails for lack of memory or a too-small buffer; compressBound rules out the latter.
        guard status == Z_OK, capacity > 0 else { return 0 }
        return Double(bytes.count) / Double(capacity)
    }
}
