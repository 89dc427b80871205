import EarshotAudio
import EarshotTestSupport
import Foundation
import Testing

/// The test audio fetched by the setup script into `$EARSHOT_HOME/testdata` (default `~/.cache/earshot`).
enum TestAudio {
    /// A file under testdata; records an issue naming the setup step when it is missing.
    static func file(_ relativePath: String) throws -> URL {
        let url = TestEnvironment.testdata(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("missing \(url.path): run `make setup` (scripts/setup fetches the test audio)")
            throw CancellationError()
        }
        return url
    }

    static func jfk() throws -> URL { try file("jfk.wav") }

    /// jfk.wav's samples read straight from its data chunk (16-bit little-endian), independent of FFmpeg.
    static func jfkReference() throws -> [Float] {
        let url = try jfk()
        let inspection = try WAVInspector.inspect(url)
        let format = try #require(inspection.format)
        let bytes = try Data(contentsOf: url)[Int(format.dataOffset)..<Int(format.dataOffset + format.dataSize)]
        return stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { index in
            Float(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)) / 32_768
        }
    }
}

/// A directory under the system temp dir, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}
