import EarshotSpeech
import Synchronization

extension RealtimeTranscriptionSession {
    /// The longest `final_window_ms` a session may ask for: item and context within one decode (``Said/decodeLimit``).
    public static let maximumFinalWindowMs = Said.decodeLimit / 16

    /// What each side said: the text and audio of its last items. With `final_window_ms` (``Utterance/finalWindow``),
    /// a final decode hears the item after them and is prompted with what came before them, as Whisper's own
    /// long-form decoding reads each window in context; without, it hears the item alone, prompted with the words
    /// said before it.
    ///
    /// Whisper reads a short utterance alone worse than inside a longer window: 36 espeak-ng sentences streamed at
    /// real-time pace had a WER of 0.124 with each final decoded alone, 0.081 with each decoded in a 10 s window, as
    /// offline (docs/live.md, "Audio context").
    final class Said: Sendable {
        private struct Item: Sendable {
            let samples: [Float]
            let text: String
        }

        /// Most recent last, per side (a dialogue's channel; 0 otherwise).
        private let items = Mutex<[Int: [Item]]>([:])
        /// The most a final decode hears, item and context together (below Whisper's 30 s window, so the decode is
        /// one window and the context is not cut).
        static let decodeLimit = 25 * 16_000
        /// The silence put between the items of a context (the engine's VAD keeps 100 ms of it).
        static let gap = 8_000

        /// `utterance`'s settings with the prompt of a decode of it alone: the words said before it. Partial decodes
        /// use it, and a final whose context could not be used.
        func conditioning(_ utterance: Utterance) -> TranscriptionSettings {
            var settings = utterance.settings
            settings.prompt = RealtimeTranscriptionSession.prompt(
                settings.prompt, after: items.withLock { $0[utterance.channel ?? 0]?.last?.text })
            return settings
        }

        /// What `utterance`'s final decode hears and is prompted with.
        func finalRequest(_ utterance: Utterance) -> FinalRequest {
            let said = items.withLock { $0[utterance.channel ?? 0] ?? [] }
            var context: [Item] = []
            var length = 0
            var before = said.endIndex
            while before > said.startIndex, length + utterance.samples.count < utterance.finalWindow {
                let item = said[before - 1]
                // An item kept without its audio (said before the session asked for a window) ends the context.
                guard !item.samples.isEmpty else { break }
                let heard = length + item.samples.count + Self.gap + utterance.samples.count
                guard heard <= Self.decodeLimit else { break }
                context.insert(item, at: 0)
                length += item.samples.count + Self.gap
                before -= 1
            }
            var settings = utterance.settings
            settings.prompt = RealtimeTranscriptionSession.prompt(
                settings.prompt, after: before > said.startIndex ? said[before - 1].text : nil)
            // Without context the prompt is the last item's words, as ``conditioning(_:)`` gives it.
            guard !context.isEmpty else {
                return FinalRequest(samples: utterance.samples, settings: settings, contextText: "", contextSamples: 0)
            }
            var samples: [Float] = []
            samples.reserveCapacity(length + utterance.samples.count)
            for item in context { samples += item.samples + [Float](repeating: 0, count: Self.gap) }
            samples += utterance.samples
            return FinalRequest(
                samples: samples, settings: settings, contextText: context.map(\.text).joined(separator: " "),
                contextSamples: length)
        }

        /// Keeps `utterance`'s final text for the decodes after it, and its audio when its session has a final
        /// window. An item with no words is not kept (its audio would be context with nothing to find it by).
        func record(_ text: String, of utterance: Utterance) {
            guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return }
            items.withLock { items in
                var said = items[utterance.channel ?? 0] ?? []
                said.append(Item(samples: utterance.finalWindow > 0 ? utterance.samples : [], text: text))
                // Back to Whisper's window of audio or the first item without it; that one is kept too, for the
                // prompt. Without a final window: the last item only.
                var first = said.endIndex - 1
                var kept = said[first].samples.count
                while first > said.startIndex, kept < Self.decodeLimit, !said[first].samples.isEmpty {
                    first -= 1
                    kept += said[first].samples.count
                }
                items[utterance.channel ?? 0] = Array(said[first...])
            }
        }
    }

    /// A final decode: the item after its context, and how to find the item's words in the result.
    struct FinalRequest: Sendable {
        /// The context's items, each followed by ``Said/gap`` of silence, then the item.
        let samples: [Float]
        let settings: TranscriptionSettings
        /// What the context's items said.
        let contextText: String
        /// Where the item starts in `samples`; 0 without context.
        let contextSamples: Int

        /// The item's part of `whole` (a decode of `samples`), its word times made relative to the item; nil when the
        /// decode did not read the context closely enough to tell where the item begins, or read no word of the item.
        func item(of whole: Recognition) -> Recognition? {
            guard contextSamples > 0 else { return whole }
            let contextMs = contextSamples / 16
            if !whole.words.isEmpty {
                guard
                    let first = ContextSplit.itemStart(
                        of: whole.words.map(\.text), starts: whole.words.map(\.startMs), context: contextText,
                        contextMs: contextMs)
                else { return nil }
                let words = whole.words[first...].map { word in
                    var word = word
                    word.startMs = max(0, word.startMs - contextMs)
                    word.endMs = max(word.startMs, word.endMs - contextMs)
                    return word
                }
                let text = NumberForms.apply(words.map(\.text).joined(separator: " "), language: whole.language)
                return Recognition(text: text, language: whole.language, words: words)
            }
            let tokens = whole.text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard
                let first = ContextSplit.itemStart(of: tokens, starts: [], context: contextText, contextMs: contextMs)
            else { return nil }
            return Recognition(text: tokens[first...].joined(separator: " "), language: whole.language)
        }
    }

    /// The final text of `utterance` (a ``LiveDecode/final`` or ``LiveDecode/early`` decode): decoded after its
    /// context, or alone when there is none or the context decode cannot be split. Nil when an early decode found the
    /// engine busy.
    static func finalRecognition(
        of utterance: Utterance, said: Said, recognizer: any LiveRecognizer, as decode: LiveDecode
    ) async throws -> Recognition? {
        let request = said.finalRequest(utterance)
        guard let whole = try await recognizer.transcribe(request.samples, settings: request.settings, as: decode)
        else { return nil }
        if let item = request.item(of: whole) { return item }
        return try await recognizer.transcribe(utterance.samples, settings: said.conditioning(utterance), as: decode)
    }
}
