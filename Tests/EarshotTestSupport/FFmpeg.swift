public import Foundation
public import Testing

/// The `ffmpeg` command-line tool (Debian package `ffmpeg`), a child process that makes test variants of the
/// setup's clips (other codecs, rates, channel layouts, µ-law WAVs).
public enum FFmpeg {
    /// `ffmpeg -nostdin -y -v error <arguments>`.
    ///
    /// - Throws: ``ChildProcessError`` with ffmpeg's stderr when it fails; when ffmpeg is not installed, records an
    ///   issue naming the package and throws `CancellationError`.
    public static func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let ffmpeg = Program.tool("ffmpeg") else {
            Issue.record(
                "the ffmpeg command-line tool is not installed (apt-get install ffmpeg)", sourceLocation: sourceLocation
            )
            throw CancellationError()
        }
        let result = try ffmpeg.runBlocking(["-nostdin", "-y", "-v", "error"] + arguments, timeout: .seconds(120))
        guard result.status == 0 else {
            throw ChildProcessError("`\(result.command)` failed", result)
        }
    }

    /// Converts `input` with extra output `options` into `output`.
    public static func convert(
        _ input: URL, to output: URL, _ options: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try run(["-i", input.path] + options + [output.path], sourceLocation: sourceLocation)
    }
}
