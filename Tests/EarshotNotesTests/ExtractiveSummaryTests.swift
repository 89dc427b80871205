import Foundation
import Testing

@testable import EarshotNotes

@Suite("Extractive summaries")
struct ExtractiveSummaryTests {
    @Test("Without a language model the summary is extractive, labelled, and says why")
    func noModel() async throws {
        let summary = try await NoteProcessor(model: nil).summarize(Transcripts.meeting, language: "en")
        #expect(summary.method == .extractive)
        #expect(summary.model == nil)
        #expect(summary.language == "en")
        #expect(summary.warnings.contains { $0.contains("no language model") })
    }

    @Test("Key points and action items are transcript sentences with their own times, in order, within bounds")
    func structure() {
        let segments = Transcripts.meeting
        let summary = ExtractiveSummarizer().summarize(segments, language: "en")
        #expect((3...6).contains(summary.keyPoints.count))
        #expect(!summary.abstract.isEmpty && summary.abstract.count <= 600)
        for point in summary.keyPoints + summary.actionItems {
            #expect(
                segments.contains { $0.text == point.text && $0.startMs == point.startMs && $0.endMs == point.endMs })
        }
        #expect(summary.keyPoints.map(\.startMs) == summary.keyPoints.map(\.startMs).sorted())
        // The commitments are found; the one-word acknowledgement is not a point.
        let actions = summary.actionItems.map(\.text)
        #expect(actions.contains { $0.hasPrefix("I will update the firmware") })
        #expect(actions.contains { $0.hasPrefix("I will send the price sheet") })
        #expect(!summary.keyPoints.contains { $0.text == "Okay, will do." })
    }

    @Test("Chinese transcripts are ranked by character bigrams and joined without spaces")
    func chinese() {
        let segments = Transcripts.chineseMeeting
        let summary = ExtractiveSummarizer().summarize(segments, language: nil)
        #expect(summary.language == "zh")
        #expect(summary.keyPoints.count == 3)
        #expect(!summary.abstract.contains(" "))
        #expect(summary.actionItems.contains { $0.text.contains("我会在周五之前更新固件") })
        for point in summary.keyPoints {
            #expect(segments.contains { $0.startMs == point.startMs && $0.endMs == point.endMs })
        }
    }

    @Test("The most central sentence outranks an off-topic one")
    func centrality() {
        let texts = [
            "The launch of the headphones is planned for March.",
            "The headphones launch needs the firmware update first.",
            "Firmware for the headphones must cap charging before the launch.",
            "My cat likes sleeping on the windowsill.",
        ]
        let scores = ExtractiveSummarizer.rank(texts)
        #expect(scores[3] < scores[0] && scores[3] < scores[1] && scores[3] < scores[2])
    }

    @Test("A long point is cut at a word boundary with an ellipsis")
    func truncation() {
        let long = String(repeating: "charging limit ", count: 40)
        let cut = ExtractiveSummarizer.truncate(long, to: 100)
        #expect(cut.count <= 100)
        #expect(cut.hasSuffix("…"))
        #expect(!cut.dropLast().hasSuffix(" "))
    }

    @Test("Empty transcripts and bad times are refused with a clear error")
    func badInput() async {
        let processor = NoteProcessor(model: nil)
        let empty = await #expect(throws: NotesError.self) { try await processor.summarize([], language: nil) }
        #expect(empty?.code == .invalidInput)
        #expect(empty?.message.contains("transcribe the recording first") == true)
        let blank = await #expect(throws: NotesError.self) {
            try await processor.summarize([NoteSegment(startMs: 0, endMs: 10, text: "  ")], language: nil)
        }
        #expect(blank?.code == .invalidInput)
        let backwards = await #expect(throws: NotesError.self) {
            try await processor.summarize([NoteSegment(startMs: 500, endMs: 100, text: "Hello there")], language: nil)
        }
        #expect(backwards?.code == .invalidInput)
        #expect(backwards?.message.contains("segment 1") == true)
    }
}

@Suite("Translation checks")
struct TranslationCheckTests {
    @Test("Unsupported target languages are refused, naming the supported ones")
    func unsupportedTarget() async {
        let error = await #expect(throws: NotesError.self) {
            try await NoteProcessor(model: nil).translate(Transcripts.meeting, from: "en", to: "tlh")
        }
        #expect(error?.code == .unsupportedLanguage)
        #expect(error?.message.contains("zh, en, ja") == true)
    }

    @Test("Translation without a language model is a configuration error that says how to configure one")
    func noModel() async {
        let error = await #expect(throws: NotesError.self) {
            try await NoteProcessor(model: nil).translate(Transcripts.meeting, from: "en", to: "fr")
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("llm-base-url") == true)
    }

    @Test("Outputs in the wrong language, untranslated or missing are counted in warnings; times are kept")
    func mismatchesAreFlagged() {
        let segments = Array(Transcripts.meeting.prefix(4))
        let outputs: [String?] = [
            "Bonjour à tous, examinons le plan de lancement des nouveaux casques.",
            "The factory confirmed that the first ten thousand units ship on the fourteenth of March.",
            "Die Batterietests sind abgeschlossen und die Kopfhörer halten zweiunddreißig Stunden.",
            nil,
        ]
        let result = ModelTranslator.assemble(
            segments, translated: outputs, target: "fr", source: "en", model: "m"
        ).translation
        #expect(result.segments.count == segments.count)
        #expect(result.segments.map(\.startMs) == segments.map(\.startMs))
        #expect(result.segments.map(\.endMs) == segments.map(\.endMs))
        #expect(result.segments.map(\.speaker) == segments.map(\.speaker))
        #expect(result.segments[3].text == segments[3].text)
        #expect(result.warnings.contains("1 of 4 segments are not in fr (detected: de ×1)"))
        #expect(result.warnings.contains("1 of 4 segments came back untranslated"))
        #expect(result.warnings.contains("1 of 4 segments could not be translated (source text kept)"))
    }

    @Test("A clean translation has no warnings and reports its language")
    func cleanTranslation() {
        let segments = Array(Transcripts.meeting.prefix(2))
        let outputs: [String?] = [
            "Buenos días a todos, revisemos el plan de lanzamiento de los nuevos auriculares.",
            "La fábrica confirmó que las primeras diez mil unidades se envían el catorce de marzo.",
        ]
        let (result, verdict) = ModelTranslator.assemble(
            segments, translated: outputs, target: "es", source: "en", model: "m")
        #expect(verdict.passes)
        #expect(result.warnings.isEmpty)
        #expect(result.detectedLanguage == "es")
    }

    @Test("A runaway answer (far longer than the source) is not accepted as a translation")
    func runaway() {
        #expect(ModelTranslator.clean(String(repeating: "la la ", count: 100), source: "Okay.") == nil)
        #expect(ModelTranslator.clean("\"Bonjour.\"", source: "Hello.") == "Bonjour.")
    }
}
