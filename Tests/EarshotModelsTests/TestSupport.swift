import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotModels

/// What the real Earshot home (``TestEnvironment/home``) holds; `scripts/setup-models` fills it.
enum RealHome {
    static let store = ModelStore()

    /// True when every catalog model is installed with its catalog size.
    static var modelsInstalled: Bool { store.list().allSatisfy(\.isInstalled) }

    /// openai-whisper's assets unpacked by `scripts/setup-models`.
    static var assets: String { store.downloadsDirectory + "/openai-whisper-assets" }

    static var assetsPresent: Bool { FileManager.default.fileExists(atPath: assets + "/mel_filters.npz") }

    static var whisperCLI: String { store.home + "/whisper/bin/whisper-cli" }
    static var jfk: String { store.home + "/testdata/jfk.wav" }

    static let skipReason: Comment = "models not installed under $EARSHOT_HOME: run scripts/setup-models"
    static let assetsSkipReason: Comment =
        "openai-whisper assets missing under $EARSHOT_HOME/downloads: run scripts/setup-models"
}

/// Runs a tool on PATH and returns its stdout; nil when it is not installed or fails.
func output(of tool: String, _ arguments: [String]) -> Data? {
    guard let result = try? Program.tool(tool)?.runBlocking(arguments), result.status == 0 else { return nil }
    return result.stdoutData
}

/// The float32 array in a NumPy `.npy` file (format 1.x/2.x, little-endian `<f4`).
func numpyFloats(_ data: Data) -> (shape: [Int], values: [Float])? {
    let bytes = [UInt8](data)
    guard bytes.count > 10, bytes.starts(with: [0x93] + Array("NUMPY".utf8)) else { return nil }
    let major = bytes[6]
    let headerLength =
        major == 1 ? Int(bytes[8]) | Int(bytes[9]) << 8 : Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16
    let start = major == 1 ? 10 : 12
    let header = String(decoding: bytes[start..<start + headerLength], as: UTF8.self)
    guard header.contains("'<f4'"), header.contains("'fortran_order': False"),
        let open = header.range(of: "'shape': ("), let close = header[open.upperBound...].firstIndex(of: ")")
    else { return nil }
    let shape = header[open.upperBound..<close].split(separator: ",").compactMap {
        Int($0.trimmingCharacters(in: .whitespaces))
    }
    let body = bytes[(start + headerLength)...]
    let values = body.withUnsafeBytes { raw in
        (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
    }
    return (shape, values)
}

/// Token bytes of a tiktoken file (`base64 rank` per line), in rank order.
func tiktokenTokens(_ path: String) throws -> [[UInt8]] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return text.split(separator: "\n").map { line in
        let base64 = line.split(separator: " ", omittingEmptySubsequences: false)[0]
        return [UInt8](Data(base64Encoded: String(base64)) ?? Data())
    }
}
