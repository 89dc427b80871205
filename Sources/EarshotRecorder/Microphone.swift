internal import EarshotAudio
public import EarshotDevice
public import Foundation

/// What the simulated recorder hears: an audio file (WAV, MP3, anything EarshotAudio decodes) played into the
/// recorder as if spoken in the room, at real time or faster.
public struct Microphone: Sendable {
    /// The file it plays.
    public let file: URL
    /// How much faster than real time (1: real time; tests and demos use more).
    public let speed: Double

    /// A microphone playing `file` at `speed` × real time.
    public init(file: URL, speed: Double = 1) {
        self.file = file
        self.speed = max(speed, 0.01)
    }

    /// Records the file once: starts a recording, feeds the audio in 100 ms pieces at the microphone's pace and
    /// stops. Returns the recording; nil when the device stopped it early (its card filled up).
    ///
    /// - Throws: ``AudioError`` when the file cannot be decoded; the recorder's errors (storage full…);
    ///   `CancellationError` (the recording so far is kept and finished).
    @discardableResult
    public func record(into recorder: Recorder) async throws -> DeviceRecordingResult {
        let samples = try await AudioDecoder.open(contentsOf: file).decodeAll()
        try await recorder.startRecording()
        let piece = AudioDecoder.sampleRate / 10
        let pause = UInt64(100_000_000 / speed)
        for start in stride(from: 0, to: samples.count, by: piece) {
            if Task.isCancelled { break }
            try await recorder.record(Array(samples[start..<min(start + piece, samples.count)]))
            guard await recorder.status.recording else { return .stoppedByDevice }
            try? await Task.sleep(nanoseconds: pause)
        }
        return .recorded(try await recorder.stopRecording())
    }
}

/// How a microphone recording ended.
public enum DeviceRecordingResult: Sendable {
    /// The whole file was recorded.
    case recorded(EarshotDevice.DeviceRecording)
    /// The device stopped it (storage full, flat battery); what fitted was kept.
    case stoppedByDevice
}
