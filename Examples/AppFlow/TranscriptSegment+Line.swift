import EarshotAPI
import Foundation

extension TranscriptSegment {
    /// The segment as seed 001's `TranscriptView` shows it: `[mm:ss] Speaker 1: text` (no speaker, no label).
    var line: String {
        let seconds = startMs / 1000
        let time = "[\(Self.twoDigits(seconds / 60)):\(Self.twoDigits(seconds % 60))]"
        let text = text.trimmingCharacters(in: .whitespaces)
        return speaker.map { "\(time) \($0): \(text)" } ?? "\(time) \(text)"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
