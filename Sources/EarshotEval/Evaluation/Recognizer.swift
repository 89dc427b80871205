public import Foundation

/// Whatever turns an audio file into timed text for a perfusion run: the local engine, or a running server.
///
/// EarshotEval does not know how recognition happens; `earshot eval` passes a recogniser built on the same
/// pipeline production uses, so the report measures what users get.
public protocol Recognizer: Sendable {
    /// Recognises one file. Throwing fails that file only; the run goes on and reports it.
    func recognize(_ file: URL) async throws -> RecognizedFile
}

/// A recogniser's output for one file.
public struct RecognizedFile: Sendable {
    /// The segments, in order.
    public var segments: [HypothesisSegment]
    /// Length of the audio.
    public var audio: Duration
    /// Time spent recognising (decode + transcription).
    public var elapsed: Duration
    /// Non-fatal findings about the input (a WAV that had to be converted…), shown in the report.
    public var warnings: [String]
    /// The input's audio format, e.g. `wav pcm_s16le 16000 Hz 1 ch`.
    public var audioFormat: String?

    public init(
        segments: [HypothesisSegment], audio: Duration, elapsed: Duration, warnings: [String] = [],
        audioFormat: String? = nil
    ) {
        self.segments = segments
        self.audio = audio
        self.elapsed = elapsed
        self.warnings = warnings
        self.audioFormat = audioFormat
    }
}
