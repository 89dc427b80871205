import Foundation

/// An enrolled speaker: a name and the speaker vector of a sample of their voice.
///
/// Made by ``SpeakerAttribution/voiceprint(named:samples:)`` from the dominant speaker of a sample; compared by
/// cosine similarity with each diarized speaker's centroid (``DiarizationResult/centroids``), so a voiceprint is
/// only meaningful with the embedder that made it (``model``).
public struct Voiceprint: Sendable, Hashable, Codable {
    /// The name a matching speaker is given (by convention `Me` for the wearer of the recording device).
    public var name: String
    /// L2-normalised speaker vector.
    public var vector: [Float]
    /// Seconds of the enrolled speaker's speech the vector was computed from.
    public var speechSeconds: Double
    /// The embedder that made ``vector`` (``SpeakerAttribution/embedderName``).
    public var model: String

    /// Creates a voiceprint.
    public init(name: String, vector: [Float], speechSeconds: Double, model: String = SpeakerAttribution.embedderName) {
        self.name = name
        self.vector = vector
        self.speechSeconds = speechSeconds
        self.model = model
    }

    /// Cosine similarity of this voiceprint with `vector` (both L2-normalised: their dot product).
    public func similarity(to vector: [Float]) -> Float {
        var sum: Float = 0
        for index in 0..<min(self.vector.count, vector.count) { sum += self.vector[index] * vector[index] }
        return sum
    }

    /// Trims `name` and checks it: 1–64 characters, no line breaks. Returns the trimmed name.
    ///
    /// - Throws: `.invalidInput` saying what is wrong.
    public static func validName(_ name: String) throws(DiarizationError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw DiarizationError(.invalidInput, "a speaker name must not be empty") }
        guard trimmed.count <= 64 else {
            throw DiarizationError(
                .invalidInput, "speaker name \"\(trimmed.prefix(20))…\" is longer than 64 characters")
        }
        guard !trimmed.contains(where: \.isNewline) else {
            throw DiarizationError(.invalidInput, "a speaker name must be one line")
        }
        return trimmed
    }
}
