import EarshotAudio
import EarshotSpeech
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

@testable import EarshotLive

/// A turn gone quiet is decoded early, on exactly the audio its commit will have when the silence lasts; the commit
/// takes that result, and anything else drops it.
@Suite struct EarlyFinalTests {
    @Test func aTurnThatEndsIsDecodedEarlyOnTheAudioItsCommitHas() async throws {
        let jfk = try await AudioDecoder(contentsOf: TestEnvironment.jfk).decodeAll()
        let audio = jfk + [Float](repeating: 0, count: 16_000)
        var configuration = RealtimeTranscriptionSession.Configuration()
        configuration.inputRate = 16_000
        var state = SessionState(configuration: configuration, detector: try VoiceActivityStream())
        var early: [RealtimeTranscriptionSession.EarlyFinal.Key] = []
        var committed: [RealtimeTranscriptionSession.EarlyFinal.Key] = []
        // Each early decode ends one way: its commit, or dropped because speech resumed.
        var open: RealtimeTranscriptionSession.EarlyFinal.Key?
        var unresolved = 0
        for offset in stride(from: 0, to: audio.count - 1_600, by: 1_600) {
            let message = PartialScheduleTests.append(audio[offset..<offset + 1_600])
            for action in await state.handle(message, recognizer: PartialScheduleTests.NoDecodes()) {
                switch action {
                case .early(let utterance):
                    if open != nil { unresolved += 1 }
                    open = .init(utterance)
                    early.append(.init(utterance))
                case .commit(let utterance):
                    committed.append(.init(utterance))
                    if open != nil, open != .init(utterance) { unresolved += 1 }
                    open = nil
                case .dropEarly:
                    open = nil
                default: break
                }
            }
        }
        // JFK's four phrases end in pauses longer than 500 ms: each is committed, and each was decoded early first
        // on the same samples. Pauses inside a phrase that speech resumed after asked for early decodes too.
        #expect(committed.count >= 4)
        for key in committed { #expect(early.contains(key), "\(key) was not decoded early") }
        #expect(early.count >= committed.count)
        #expect(unresolved == 0, "an early decode was neither taken by its commit nor dropped")
    }

    @Test func theCommitOfTheSameAudioTakesTheResultAnythingElseDropsIt() async {
        let early = RealtimeTranscriptionSession.EarlyFinal()
        func utterance(_ item: String, start: Int, count: Int) -> RealtimeTranscriptionSession.Utterance {
            .init(
                itemID: item, samples: [Float](repeating: 0, count: count), settings: TranscriptionSettings(),
                start: start)
        }
        let first = utterance("item_a", start: 0, count: 16_000)
        _ = early.start(first) { Recognition(text: "ask not") }
        #expect(await early.take(.init(first))?.text == "ask not")
        #expect(await early.take(.init(first)) == nil, "taken once")

        // Speech resumed: the commit has more audio than the early decode; it decodes again.
        _ = early.start(first) { Recognition(text: "ask") }
        #expect(await early.take(.init(utterance("item_a", start: 0, count: 24_000))) == nil)

        // A newer early decode replaces (and cancels) the one before.
        let cancelled = early.start(first) {
            try? await Task.sleep(for: .seconds(30))
            return Task.isCancelled ? nil : Recognition(text: "stale")
        }
        let second = utterance("item_b", start: 16_000, count: 8_000)
        _ = early.start(second) { Recognition(text: "what your country") }
        #expect(await cancelled.value == nil)
        #expect(await early.take(.init(second))?.text == "what your country")
    }

    /// Speech resumed after a short pause: the early decode is not thrown away but finishes and is handed on (as the
    /// turn's partial), and no commit can take it any more.
    @Test func aDemotedEarlyDecodeFinishesAndIsHandedOn() async {
        let early = RealtimeTranscriptionSession.EarlyFinal()
        let first = RealtimeTranscriptionSession.Utterance(
            itemID: "item_a", samples: [Float](repeating: 0, count: 16_000), settings: TranscriptionSettings())
        let (gate, open) = AsyncStream<Void>.makeStream()
        _ = early.start(first) {
            for await _ in gate { break }
            return Recognition(text: "ask not what")
        }
        #expect(early.isRunning)
        let handed = Mutex<[String]>([])
        let demoted = early.demote { utterance, recognition in
            handed.withLock { $0.append("\(utterance.itemID): \(recognition.text)") }
        }
        #expect(!early.isRunning, "a partial may start once the early decode is handed on")
        #expect(await early.take(.init(first)) == nil, "no commit takes a demoted decode")
        open.yield()
        await demoted?.value
        #expect(handed.withLock { $0 } == ["item_a: ask not what"])
        #expect(early.demote { _, _ in } == nil, "nothing left to demote")
    }
}
