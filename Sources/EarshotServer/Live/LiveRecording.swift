import EarshotAudio
import EarshotCore
import EarshotLive
import Foundation
import Synchronization

/// What a live session that becomes a record keeps while it runs (``LiveSessionRecorder``): the audio as received,
/// spooled to a WAV file at the session's input rate (never held in memory, however long the session), its
/// amplitude envelope built on the way, and each committed item's final text.
///
/// The spool file is created at the first audio (a session without audio leaves nothing) and locked, so the
/// maintenance sweep of temporary files never takes it from a running session; it is removed when the recording is
/// released unless ``finish()`` handed it over. Thread-safe.
final class LiveRecording: LiveSessionRecorder {
    /// The record the session becomes (told to the client up-front).
    let recordID: String
    /// When the session began (Unix ms): the record's time.
    let startedAt: Int64
    private let path: String
    private let state = Mutex(State())

    private struct State {
        var writer: WAVWriter?
        /// A second descriptor holding the spool file's lock (flock is per open file description).
        var lock: FileDescriptor?
        var envelope = EnvelopeBuilder()
        /// The odd byte of an append that split a sample, until the next append.
        var carry: UInt8?
        var items: [LiveItem] = []
        /// Each item's translations by language.
        var translations: [String: [String: String]] = [:]
        var handedOver = false
    }

    /// What a finished session recorded: the closed WAV file (the caller moves it into the blob store), its length and
    /// envelope, and the finished items in commit order.
    struct Recorded: Sendable {
        let file: URL
        let durationMs: Int
        let envelope: [UInt8]
        let items: [LiveItem]
        /// Each item's translations (item id → language → text), as sent to the client.
        var translations: [String: [String: String]] = [:]
    }

    /// A recording spooled in `directory` (created when missing).
    init(directory: String, recordID: String, startedAt: Int64) {
        self.recordID = recordID
        self.startedAt = startedAt
        path = (directory as NSString).appendingPathComponent("live_\(recordID).wav")
    }

    deinit {
        state.withLock { state in
            try? state.writer?.close()
            try? state.lock?.close()
            if !state.handedOver, state.writer != nil { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    func received(_ pcm16: [UInt8], sampleRate: Int) throws {
        try state.withLock { state in
            if state.writer == nil {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                let writer = try WAVWriter(url: URL(fileURLWithPath: path), sampleRate: sampleRate)
                state.writer = writer
                let lock = try FileDescriptor.open(path, O_RDONLY)
                _ = lock.lockExclusively()
                state.lock = lock
                state.envelope = EnvelopeBuilder(sampleRate: sampleRate)
            }
            var bytes = pcm16
            if let carry = state.carry {
                bytes.insert(carry, at: 0)
                state.carry = nil
            }
            if bytes.count % 2 == 1 { state.carry = bytes.removeLast() }
            guard !bytes.isEmpty, let writer = state.writer else { return }
            try writer.write(pcm16: bytes)
            var samples = [Float](repeating: 0, count: bytes.count / 2)
            for index in samples.indices {
                let bits = UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8
                samples[index] = Float(Int16(bitPattern: bits)) / 32_768
            }
            state.envelope.append(samples)
        }
    }

    func finished(_ item: LiveItem) {
        state.withLock { $0.items.append(item) }
    }

    func translated(_ item: String, language: String, text: String) {
        state.withLock { $0.translations[item, default: [:]][language] = text }
    }

    /// Closes the spool file and hands it over; nil when the session had no audio (nothing to keep).
    /// - Throws: when the file cannot be completed (its header patched and flushed).
    func finish() throws -> Recorded? {
        try state.withLock { state -> Recorded? in
            guard let writer = state.writer, writer.samplesWritten > 0 else { return nil }
            try writer.close()
            // The lock stays until the recording is released: the file is not swept before the caller moved it.
            state.handedOver = true
            return Recorded(
                file: writer.url, durationMs: Int(Int64(writer.samplesWritten) * 1000 / Int64(writer.sampleRate)),
                envelope: state.envelope.finish().encoded(), items: state.items, translations: state.translations)
        }
    }
}
