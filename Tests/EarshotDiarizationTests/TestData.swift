import EarshotAudio
// Re-exported to every file of this target, so that SyntheticDialogue.swift (which Benchmarks/diarization compiles
// too) sees SpeechSynthesis without importing a module the benchmark does not have.
@_exported public import EarshotTestSupport
import Foundation

/// Paths and loaders shared by the diarization tests.
enum TestData {
    static var sampleWAV: String { TestEnvironment.testdata("pyannote/sample.wav").path }
    static var sampleRTTM: String { TestEnvironment.testdata("pyannote/sample.rttm").path }
    static var weights: String { TestEnvironment.speakerWeights.path }
    static var hasSample: Bool { FileManager.default.fileExists(atPath: sampleWAV) }
    static var hasWeights: Bool { FileManager.default.fileExists(atPath: weights) }

    static func fixture(_ name: String) -> URL { TestEnvironment.fixture("diarization/\(name)") }

    static func decode(_ path: String) throws -> [Float] {
        try AudioDecoder(contentsOf: URL(fileURLWithPath: path)).decodeAll()
    }
}

func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Float = 0, na: Float = 0, nb: Float = 0
    for i in 0..<min(a.count, b.count) {
        dot += a[i] * b[i]
        na += a[i] * a[i]
        nb += b[i] * b[i]
    }
    return dot / (na.squareRoot() * nb.squareRoot())
}
