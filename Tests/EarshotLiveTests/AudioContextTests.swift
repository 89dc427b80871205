import EarshotSpeech
import Synchronization
import Testing

@testable import EarshotLive

/// A final decode hears the side's previous items before the item; the item's words are found after what those
/// items said.
@Suite struct AudioContextTests {
    typealias Session = RealtimeTranscriptionSession

    static func utterance(_ seconds: Double, channel: Int? = nil, prompt: String? = nil) -> Session.Utterance {
        var utterance = Session.Utterance(
            itemID: "item_\(seconds)", samples: [Float](repeating: 0.1, count: Int(seconds * 16_000)),
            settings: TranscriptionSettings(prompt: prompt))
        utterance.channel = channel
        utterance.finalWindow = 10 * 16_000
        return utterance
    }

    /// What a final decode of `seconds` of audio said: `text`, its words spread evenly over the item.
    static func heard(_ text: String, over seconds: Double) -> Recognition {
        let words = text.split(separator: " ").map(String.init)
        let step = Int(seconds * 1_000) / max(words.count, 1)
        return Recognition(
            text: text, language: "en",
            words: words.enumerated().map {
                Transcript.Word(
                    startMs: $0.offset * step, endMs: ($0.offset + 1) * step, text: $0.element, probability: 0.9)
            })
    }

    /// Keeps `text` as the final of an item of `seconds` (window and side as ``utterance(_:channel:prompt:)``).
    static func record(_ text: String, _ said: Session.Said, _ seconds: Double, channel: Int? = nil) {
        said.record(heard(text, over: seconds), of: utterance(seconds, channel: channel))
    }

    // MARK: Where the item begins

    @Test func theItemBeginsAfterTheWordsSaidBefore() {
        let words = ["Seven", "of", "clubs.", "Five,", "five."]
        #expect(ContextSplit.itemStart(of: words, starts: [], context: "Seven of clubs.", contextMs: 1_500) == 3)
        // A word in three read differently is still the context.
        #expect(ContextSplit.itemStart(of: words, starts: [], context: "7 of clubs.", contextMs: 1_500) == 3)
        // Case, punctuation, contractions and hyphens are not differences.
        #expect(
            ContextSplit.itemStart(
                of: ["There", "is", "ill", "disposed", "Yes."], starts: [], context: "there's ill-disposed",
                contextMs: 0) == 4)
    }

    @Test func aContextWordReadDifferentlyStillSplitsWhereTheContextEnds() {
        // The decode read "reminixed week" as "ready next week": as close with or without those words, so the
        // boundary nearest the end of the context audio (3 000 ms) wins.
        let words = ["the", "results", "will", "be", "ready", "next", "week.", "Turn", "left"]
        let starts = [0, 300, 600, 800, 1_000, 1_400, 1_800, 3_050, 3_400]
        let context = "The results will be reminixed week."
        #expect(ContextSplit.itemStart(of: words, starts: starts, context: context, contextMs: 3_000) == 7)
        // Without times, the last of the equally close boundaries.
        #expect(ContextSplit.itemStart(of: words, starts: [], context: context, contextMs: 3_000) == 7)
    }

    @Test func aDecodeThatDidNotReadTheContextOrLeftNoItemWordIsNotSplit() {
        let context = "The contract expires at the end of this quarter."
        // Nothing like the context.
        #expect(
            ContextSplit.itemStart(
                of: ["I", "think", "the", "second", "design"], starts: [], context: context, contextMs: 2_000) == nil)
        // Only the context: the item's words are missing.
        let contextOnly = context.split(separator: " ").map(String.init)
        #expect(ContextSplit.itemStart(of: contextOnly, starts: [], context: context, contextMs: 2_000) == nil)
        // No context: everything is the item.
        #expect(ContextSplit.itemStart(of: ["Hello."], starts: [], context: " ", contextMs: 0) == 0)
    }

    // MARK: The session setting

    @Test func finalWindowIsASessionSettingEchoedAndChecked() async throws {
        let recognizer = PartialScheduleTests.NoDecodes()
        let plain = try await Session.settings(of: [:], dialect: .beta, recognizer: recognizer)
        #expect(plain["input_audio_transcription"]?["final_window_ms"]?.number == 25_000, "on unless turned off")
        let off = try await Session.settings(
            of: ["input_audio_transcription": ["final_window_ms": 0]], dialect: .beta, recognizer: recognizer)
        #expect(off["input_audio_transcription"]?["final_window_ms"]?.number == 0)
        let beta = try await Session.settings(
            of: ["input_audio_transcription": ["final_window_ms": 10_000]], dialect: .beta, recognizer: recognizer)
        #expect(beta["input_audio_transcription"]?["final_window_ms"]?.number == 10_000)
        let ga = try await Session.settings(
            of: ["type": "transcription", "audio": ["input": ["transcription": ["final_window_ms": 8_000]]]],
            dialect: .ga, recognizer: recognizer)
        #expect(ga["audio"]?["input"]?["transcription"]?["final_window_ms"]?.number == 8_000)
        let bad: [JSONValue] = [-1, 25_001, .number(1.5), "10000", .bool(true)]
        for value in bad {
            await #expect {
                _ = try await Session.settings(
                    of: ["input_audio_transcription": ["final_window_ms": value]], dialect: .beta,
                    recognizer: recognizer)
            } throws: { error in
                (error as? RealtimeError)?.code == "invalid_value"
                    && (error as? RealtimeError)?.param == "session.input_audio_transcription.final_window_ms"
            }
        }
    }

    @Test func theSettingReachesEachItemAndTheServerCanSetItsDefault() {
        var configuration = Session.Configuration()
        #expect(SessionState(configuration: configuration, detector: nil).finalWindowMs == 25_000)
        configuration.finalWindow = .seconds(10)
        var state = SessionState(configuration: configuration, detector: nil)
        #expect(state.finalWindowMs == 10_000)
        state.buffer = [Float](repeating: 0, count: 1_600)
        #expect(state.utterance(item: "item_a", from: 0, to: 1_600).finalWindow == 160_000)
    }

    // MARK: What a final decode hears

    @Test func theFirstItemIsDecodedAloneWithTheSessionsPrompt() {
        let said = Session.Said()
        let first = Self.utterance(2, prompt: "Cards.")
        let request = said.finalRequest(first)
        #expect(request.contextSamples == 0 && request.samples.count == first.samples.count)
        #expect(request.settings.prompt == "Cards.")
    }

    @Test func previousItemsOfTheSameSideComeFirstUntilTheWindowIsLongEnough() {
        let said = Session.Said()
        for (index, seconds) in [3.0, 2.0, 4.0, 3.0].enumerated() {
            Self.record("item \(index).", said, seconds)
        }
        Self.record("other side.", said, 5, channel: 1)
        let item = Self.utterance(2)
        let request = said.finalRequest(item)
        // The 2 s item, the 3 s one before it and the 4 s one before that (each with its gap) make 10 s.
        let gap = Session.Said.gap
        #expect(request.contextSamples == (4 + 3) * 16_000 + 2 * gap)
        #expect(request.samples.count == request.contextSamples + item.samples.count)
        #expect(request.contextText == "item 2. item 3.")
        // The prompt is what was said before the context; silence separates the items.
        #expect(request.settings.prompt == "item 1.")
        #expect(request.samples[4 * 16_000..<4 * 16_000 + gap].allSatisfy { $0 == 0 })
        // A partial decode of the item is prompted with the last item alone, as before.
        #expect(said.conditioning(item).prompt == "item 3.")
        // The other side's history is its own.
        #expect(said.finalRequest(Self.utterance(2, channel: 1)).contextText == "other side.")
    }

    @Test func withoutAFinalWindowOnlyTheLastTextIsKeptAndItsAudioIsNot() {
        let said = Session.Said()
        var alone = Self.utterance(2)
        alone.finalWindow = 0
        said.record(Self.heard("Seven of clubs.", over: 2), of: alone)
        said.record(Self.heard("Five, five.", over: 2), of: alone)
        #expect(said.finalRequest(alone).contextSamples == 0)
        #expect(said.finalRequest(alone).settings.prompt == "Five, five.")
        // A window asked for later starts with the items said after it.
        #expect(said.finalRequest(Self.utterance(2)).contextSamples == 0)
        #expect(said.finalRequest(Self.utterance(2)).settings.prompt == "Five, five.")
        Self.record("Eight of spades.", said, 2)
        let request = said.finalRequest(Self.utterance(2))
        #expect(request.contextText == "Eight of spades.")
        #expect(request.settings.prompt == "Five, five.")
    }

    @Test func anItemThatDoesNotFitWholeIsHeardFromAWordBoundary() {
        let said = Session.Said()
        Self.record("Zero.", said, 1)
        // Six words, one a second; 10 ms of silence 60 ms before "five" (at 4 s), where the cut should land.
        var six = Self.utterance(6)
        var samples = six.samples
        for index in 63_040..<63_200 { samples[index] = 0 }
        six = Session.Utterance(itemID: six.itemID, samples: samples, settings: six.settings)
        six.finalWindow = 10 * 16_000
        said.record(Self.heard("one two three four five six", over: 6), of: six)
        // A 4 s window for a 2 s item leaves 1.5 s after the gap: from "five", the last word to start 1.5 s or more
        // before the end.
        var item = Self.utterance(2)
        item.finalWindow = 4 * 16_000
        let request = said.finalRequest(item)
        #expect(request.contextText == "five six")
        #expect(request.contextSamples == 96_000 - 63_040 + Session.Said.gap)
        #expect(request.samples.prefix(160).allSatisfy { $0 == 0 }, "cut in the quiet before the word")
        // What was said before the cut prompts, never the context's own words.
        #expect(request.settings.prompt == "Zero. one two three four")
    }

    @Test func aLongItemStillHearsTheLastSecondBeforeIt() {
        let said = Session.Said()
        Self.record("hello there my friend.", said, 3)
        // The item fills the window: it still hears at least the last second said before it.
        let long = said.finalRequest(Self.utterance(12))
        #expect(long.contextText == "my friend.")
        #expect(long.contextSamples == 24_000 + Session.Said.gap, "from \"my\", at 1.5 s of the 3 s item")
        #expect(long.settings.prompt == "hello there")
        // Noise that decoded to nothing is not context.
        Self.record("", said, 2)
        Self.record(" … ", said, 2)
        #expect(said.finalRequest(Self.utterance(2)).contextText == "hello there my friend.")
        // An item just under the window's length has context; never past Whisper's window.
        #expect(said.finalRequest(Self.utterance(9.9)).contextSamples > 0)
        Self.record("a long story told slowly.", said, 24)
        #expect(said.finalRequest(Self.utterance(24.5)).contextSamples == 0)
        // A final without word times (a decode that gave none) is not cut.
        said.record(Recognition(text: "no times here."), of: Self.utterance(6))
        #expect(said.finalRequest(Self.utterance(8)).contextSamples == 0)
    }

    @Test func theItemsWordsComeBackWithTimesFromTheItemsStart() throws {
        let said = Session.Said()
        Self.record("Seven of clubs.", said, 2)
        let request = said.finalRequest(Self.utterance(1.5))
        let contextMs = request.contextSamples / 16
        let words = [
            ("Seven", 100), ("of", 500), ("clubs.", 700), ("Five,", contextMs + 120), ("five.", contextMs + 600),
        ]
        let whole = Recognition(
            text: "Seven of clubs. Five, five.", language: "en",
            words: words.map { Transcript.Word(startMs: $0.1, endMs: $0.1 + 300, text: $0.0, probability: 0.9) })
        let item = try #require(request.item(of: whole))
        #expect(item.text == "Five, five.")
        #expect(item.words.map(\.startMs) == [120, 600])
        #expect(item.language == "en")
        // A decode without word times is split by its text.
        #expect(request.item(of: Recognition(text: "Seven of clubs. Five, five."))?.text == "Five, five.")
        // One that did not read the context is not.
        #expect(request.item(of: Recognition(text: "Hearts and spades everywhere. Five.")) == nil)
    }

    @Test func aFinalIsDecodedAfterItsContextAndItsOwnWordsKept() async throws {
        let said = Session.Said()
        Self.record("Seven of clubs.", said, 2)
        let recognizer = Scripted(answers: [("Seven of clubs. 4 Queen of clubs.", 0.9)])
        let recognition = try await Session.finalRecognition(
            of: Self.utterance(2), said: said, recognizer: recognizer, as: .final)
        #expect(recognition?.text == "4 Queen of clubs.")
        let calls = recognizer.calls.withLock { $0 }
        #expect(calls.map(\.samples) == [32_000 + Session.Said.gap + 32_000])
        #expect(calls.map(\.prompt) == [nil], "the context is heard, not prompted")
    }

    @Test func aContextDecodeThatCannotBeSplitFallsBackToTheItemAlone() async throws {
        let said = Session.Said()
        Self.record("The contract expires at the end of this quarter.", said, 3)
        let recognizer = Scripted(answers: [("Something else entirely was heard here.", 0.9), ("I think so.", 0.9)])
        let recognition = try await Session.finalRecognition(
            of: Self.utterance(2), said: said, recognizer: recognizer, as: .final)
        #expect(recognition?.text == "I think so.")
        let calls = recognizer.calls.withLock { $0 }
        #expect(calls.map(\.samples) == [48_000 + Session.Said.gap + 32_000, 32_000], "context, then the item alone")
        #expect(calls.last?.prompt == "The contract expires at the end of this quarter.")
    }

    @Test func anEarlyDecodeThatFoundTheEngineBusyIsNotRetriedAlone() async throws {
        let said = Session.Said()
        Self.record("Seven of clubs.", said, 2)
        let recognizer = Scripted(answers: [nil])
        #expect(
            try await Session.finalRecognition(of: Self.utterance(2), said: said, recognizer: recognizer, as: .early)
                == nil)
        #expect(recognizer.calls.withLock { $0.count } == 1)
    }

    /// Answers its texts in turn, each word with the given probability and 300 ms after the one before (nil: the
    /// engine was busy), recording the samples and prompt of each call.
    final class Scripted: LiveRecognizer {
        let answers: Mutex<[(text: String, probability: Double)?]>
        let calls = Mutex<[(samples: Int, prompt: String?)]>([])

        init(answers: [(text: String, probability: Double)?]) { self.answers = Mutex(answers) }

        func transcribe(_ samples: [Float], settings: TranscriptionSettings, as decode: LiveDecode) async throws
            -> Recognition?
        {
            calls.withLock { $0.append((samples.count, settings.prompt)) }
            guard let answer = answers.withLock({ $0.removeFirst() }) else { return nil }
            let words = answer.text.split(separator: " ").enumerated().map {
                Transcript.Word(
                    startMs: $0.offset * 300, endMs: $0.offset * 300 + 250, text: String($0.element),
                    probability: answer.probability)
            }
            return Recognition(text: answer.text, language: "en", words: words)
        }

        func validate(_ settings: TranscriptionSettings) async throws {}
    }
}
