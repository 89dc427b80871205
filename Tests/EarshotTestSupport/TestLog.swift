import EarshotCore
public import Foundation

/// The test process's one log file: `LogSink.shared` is process-global, so every suite that starts an in-process
/// server logs here, and a suite that reads log lines reads them here.
///
/// There used to be one per test module (HTTP's and Notes'), each bootstrapping the sink to its own file; when a
/// Notes suite started a server after an HTTP suite had opened its log, the HTTP suite's lines went to the Notes file
/// and its log assertions failed (the timed phase of `make test` runs both at once).
public enum TestLog {
    /// The file's path; the first use bootstraps the sink (info level, logfmt).
    public static let path: String = {
        let path = NSTemporaryDirectory() + "earshot-tests-\(getpid()).log"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "cannot open test log \(path)")
        LogSink.shared.bootstrap(level: .info, format: .logfmt, fileDescriptor: fd)
        return path
    }()

    /// The lines written so far.
    public static func lines() -> [String] {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }
}
