import EarshotSpeech
import Foundation
import Testing

@Suite("Transcript formats")
struct TranscriptFormatterTests {
    /// A hand-made transcript with an hour boundary, a speaker and a tab in the text.
    static let sample = Transcript(
        language: "en", languageProbability: 0.97, durationMs: 3_725_500, speechMs: 3_000,
        segments: [
            .init(
                startMs: 0, endMs: 1_500, text: "And so, my fellow Americans,",
                words: [
                    .init(startMs: 0, endMs: 320, text: "And", probability: 0.9),
                    .init(startMs: 320, endMs: 600, text: "so,", probability: 0.8),
                    .init(startMs: 600, endMs: 900, text: "my", probability: 0.95),
                    .init(startMs: 900, endMs: 1_100, text: "fellow", probability: 0.99),
                    .init(startMs: 1_100, endMs: 1_500, text: "Americans,", probability: 0.5),
                ]),
            .init(speaker: "SPEAKER_01", startMs: 61_005, endMs: 62_010, text: "ask not\twhat"),
            .init(startMs: 3_723_456, endMs: 3_725_500, text: "your country can do for you."),
        ])

    @Test("golden output", arguments: TranscriptFormatter.Format.allCases)
    func golden(format: TranscriptFormatter.Format) throws {
        let written = TranscriptFormatter(format: format).string(for: Self.sample)
        let url = Fixtures.golden("golden.\(format.fileExtension)")
        if ProcessInfo.processInfo.environment["EARSHOT_UPDATE_GOLDEN"] == "1" {
            try written.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(written == expected)
    }

    @Test("timestamps: SRT comma, VTT dot, hours past 99 minutes")
    func timestamps() {
        #expect(TranscriptFormatter.timestamp(0, separator: ",") == "00:00:00,000")
        #expect(TranscriptFormatter.timestamp(61_005, separator: ",") == "00:01:01,005")
        #expect(TranscriptFormatter.timestamp(3_723_456, separator: ".") == "01:02:03.456")
        #expect(TranscriptFormatter.timestamp(360_000_000, separator: ".") == "100:00:00.000")
        #expect(TranscriptFormatter.timestamp(-5, separator: ",") == "00:00:00,000")
    }

    @Test("JSON has the seed's segment shape with words, and parses back")
    func jsonShape() throws {
        let json = TranscriptFormatter(format: .json).string(for: Self.sample)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.count == 3)
        #expect(Set(segments[1].keys) == ["speaker", "start_ms", "end_ms", "text"])
        #expect(segments[1]["speaker"] as? String == "SPEAKER_01")
        #expect(segments[0]["speaker"] is NSNull)
        let words = try #require(segments[0]["words"] as? [[String: Any]])
        #expect(words.count == 5 && words[4]["text"] as? String == "Americans,")
        #expect(object["language"] as? String == "en")
        let withoutWords = TranscriptFormatter(format: .json, includeWords: false).string(for: Self.sample)
        #expect(!withoutWords.contains("\"words\""))
    }

    @Test("an empty transcript is still a valid file")
    func empty() {
        let empty = Transcript(language: "en", languageProbability: nil, durationMs: 1000, speechMs: 0, segments: [])
        #expect(TranscriptFormatter(format: .vtt).string(for: empty) == "WEBVTT\n\n")
        #expect(TranscriptFormatter(format: .srt).string(for: empty) == "")
        #expect(TranscriptFormatter(format: .tsv).string(for: empty) == "start\tend\ttext\n")
    }
}
