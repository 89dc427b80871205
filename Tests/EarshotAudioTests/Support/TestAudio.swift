import EarshotAudio
import Foundation
import Testing

/// The test audio fetched by the setup script into `$EARSHOT_HOME/testdata` (default `~/.cache/earshot`).
enum TestAudio {
    static var testdata: URL {
        let home =
            ProcessInfo.processInfo.environment["EARSHOT_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/earshot")
        return home.appendingPathComponent("testdata")
    }

    /// A file under testdata; records an issue naming the setup step when it is missing.
    static func file(_ relativePath: String) throws -> URL {
        let url = testdata.appendingPathComponent(relativePath)
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

/// Runs the `ffmpeg` command-line tool (Debian package `ffmpeg`) to generate test variants.
enum FFmpegTool {
    static let executable: URL? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { URL(fileURLWithPath: String($0)).appendingPathComponent("ffmpeg") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// `ffmpeg -nostdin -y -v error <arguments>`; throws with ffmpeg's stderr when it fails.
    static func run(_ arguments: [String]) throws {
        guard let executable else {
            Issue.record("the ffmpeg command-line tool is not installed (apt-get install ffmpeg)")
            throw CancellationError()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-nostdin", "-y", "-v", "error"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(
                message: "ffmpeg \(arguments.joined(separator: " ")): " + String(decoding: output, as: UTF8.self))
        }
    }

    /// Converts `input` with extra output options into `output`.
    static func convert(_ input: URL, to output: URL, _ options: [String]) throws {
        try run(["-i", input.path] + options + [output.path])
    }

    struct ToolFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
