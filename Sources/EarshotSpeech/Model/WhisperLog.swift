internal import CWhisper
import Foundation
import Synchronization

/// Routes whisper.cpp's and ggml's log lines away from stderr.
///
/// whisper.cpp prints several lines per call; a library must not. Lines are dropped, except that the last error
/// line is kept for error messages, and everything is echoed to stderr when `EARSHOT_WHISPER_LOG=1` (for
/// debugging the engine).
enum WhisperLog {
    private static let installed: Bool = {
        let echo = ProcessInfo.processInfo.environment["EARSHOT_WHISPER_LOG"] == "1"
        whisper_log_set(echo ? echoing : quiet, nil)
        return true
    }()
    private static let last = Mutex<String?>(nil)

    /// Installs the log callback once per process.
    static func install() { _ = installed }

    /// The last error line whisper.cpp logged, trimmed.
    static var lastError: String? { last.withLock { $0 } }

    private static let quiet: @convention(c) (ggml_log_level, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void =
        { level, text, _ in
            guard level == GGML_LOG_LEVEL_ERROR, let text else { return }
            let line = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            WhisperLog.last.withLock { $0 = line }
        }

    private static let echoing:
        @convention(c) (ggml_log_level, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = { level, text, _ in
            guard let text else { return }
            _ = write(2, text, strlen(text))
            if level == GGML_LOG_LEVEL_ERROR {
                let line = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
                WhisperLog.last.withLock { $0 = line }
            }
        }
}
