import EarshotAudio
import Foundation

/// Paths and loaders shared by the diarization tests.
enum TestData {
    static var home: String {
        let env = ProcessInfo.processInfo.environment["EARSHOT_HOME"] ?? ""
        return env.isEmpty ? NSHomeDirectory() + "/.cache/earshot" : env
    }
    static var sampleWAV: String { home + "/testdata/pyannote/sample.wav" }
    static var sampleRTTM: String { home + "/testdata/pyannote/sample.rttm" }
    static var weights: String { home + "/models/resemblyzer-0.1.4.eswt" }
    static var hasSample: Bool { FileManager.default.fileExists(atPath: sampleWAV) }
    static var hasWeights: Bool { FileManager.default.fileExists(atPath: weights) }

    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/diarization/\(name)")
    }

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
