import EarshotNotes
import EarshotSpeech
import Foundation
import Testing

@testable import EarshotServer

/// Record exports (txt, srt, vtt, json, Markdown note) against golden files in `Fixtures/records/`.
/// `EARSHOT_UPDATE_GOLDEN=1` rewrites them (review the diff before committing).
@Suite struct RecordsExportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/records")

    /// A two-speaker record with a summary, key points, action items and a speech translation; SPEAKER_00 has a
    /// display name, SPEAKER_01 does not.
    static let export = RecordExport(
        title: "Launch planning 发布会", tags: ["product", "产品"], recordTimeMs: 1_764_403_200_000, durationMs: 3_725_000,
        language: "en", source: "device:RC-0042",
        transcript: Transcript(
            language: "en", languageProbability: 0.98, durationMs: 3_725_000, speechMs: 3_600_000,
            segments: [
                .init(speaker: "SPEAKER_00", startMs: 0, endMs: 4_200, text: "Welcome, let's plan the launch."),
                .init(speaker: "SPEAKER_01", startMs: 4_200, endMs: 9_850, text: "The keynote is on March 3rd."),
                .init(
                    speaker: "SPEAKER_00", startMs: 3_661_000, endMs: 3_665_500, text: "Bob sends the deck by Friday."),
            ]),
        speakerNames: ["SPEAKER_00": "Alice"],
        summary: NoteSummary(
            abstract: "The team planned the product launch and its keynote.",
            keyPoints: [NotePoint(text: "The keynote is on March 3rd.", startMs: 4_200, endMs: 9_850)],
            actionItems: [NotePoint(text: "Bob sends the deck by Friday.", startMs: 3_661_000, endMs: 3_665_500)],
            method: .extractive, language: "en"),
        translations: [
            "en": NoteTranslation(
                targetLanguage: "en",
                segments: [NoteSegment(startMs: 0, endMs: 4_200, speaker: "SPEAKER_00", text: "Welcome.")],
                method: .speech, warnings: ["1 of 1 segments is short"])
        ])

    @Test(arguments: RecordExport.Format.allCases)
    func exportsMatchTheirGoldenFiles(_ format: RecordExport.Format) throws {
        let output = Self.export.render(format)
        let golden = Self.fixtures.appendingPathComponent("note.\(format.rawValue)")
        if ProcessInfo.processInfo.environment["EARSHOT_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
            try output.write(to: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(output == expected)
    }

    @Test func speakerNamesReplaceLabelsAndUnnamedLabelsStay() {
        let text = Self.export.render(.txt)
        #expect(text.contains("[Alice] Welcome"))
        #expect(text.contains("[SPEAKER_01] The keynote"))
        #expect(!text.contains("SPEAKER_00"))
    }

    @Test func clockTimestampsSwitchToHoursPastTheHour() {
        #expect(RecordExport.clock(0) == "00:00")
        #expect(RecordExport.clock(59_999) == "00:59")
        #expect(RecordExport.clock(3_661_000) == "1:01:01")
    }
}
