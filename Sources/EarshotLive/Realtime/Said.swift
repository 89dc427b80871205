import EarshotSpeech
import Synchronization

extension RealtimeTranscriptionSession {
    /// The longest `final_window_ms` a session may ask for: item and context within one decode (``Said/decodeLimit``).
    public static let maximumFinalWindowMs = Said.decodeLimit / 16

    /// What each side said: the text, words and audio of its last items. With `final_window_ms`
    /// (``Utterance/finalWindow``, 25 s by default), a final decode hears the item after them and is prompted with
    /// what came before them, as Whisper's own long-form decoding reads each window in context; with 0, it hears the
    /// item alone, prompted with the words said before it.
    ///
    /// Whisper reads a short utterance alone worse than inside a longer window: `make bench-live`'s 576 words
    /// streamed at real-time pace read 0.123 with each final decoded alone and 0.093 in a 25 s window (offline 0.077;
    /// docs/live.md, "Audio context").
    final class Said: Sendable {
        private struct Item: Sendable {
            let samples: [Float]
            let text: String
            /// Its words, times from the item's start (empty when the decode gave none).
            let words: [Transcript.Word]

            /// The item's end from a word boundary, at least `room` samples of it when the item has a word that
            /// starts early enough (else from its first word), cut in the quietest 10 ms near that word's start; also
            /// the words said before the cut. Nil when the item has no word times or its audio is not kept.
            func tail(covering room: Int) -> (samples: ArraySlice<Float>, text: String, before: String)? {
                guard !samples.isEmpty, !words.isEmpty else { return nil }
                let first = words.lastIndex(where: { $0.startMs * 16 <= samples.count - room }) ?? words.startIndex
                let start = min(words[first].startMs * 16, samples.count)
                let cut = Said.quietest(samples, near: start)
                return (
                    samples[cut...], words[first...].map(\.text).joined(separator: " "),
                    words[..<first].map(\.text).joined(separator: " ")
                )
            }
        }

        /// Most recent last, per side (a dialogue's channel; 0 otherwise).
        private let items = Mutex<[Int: [Item]]>([:])
        /// The most a final decode hears, item and context together (below Whisper's 30 s window, so the decode is
        /// one window and the context is not cut).
        static let decodeLimit = 25 * 16_000
        /// The silence put between the items of a context (the engine's VAD keeps 100 ms of it).
        static let gap = 8_000
        /// The least context a final with a window hears, even when the item alone fills the window: the last second
        /// said before it. Any speech before an item, even a second of another voice, brought its words closer to the
        /// offline reading; silence did not (docs/live.md, "Audio context").
        static let leastContext = 16_000
        /// How far before a word's start (samples; a third of it after) a cut looks for the quietest 10 ms: Whisper's
        /// word times are a few frames off.
        static let cutSearch = 2_400

        /// `utterance`'s settings with the prompt of a decode of it alone: the words said before it. Partial decodes
        /// use it, and a final whose context could not be used.
        func conditioning(_ utterance: Utterance) -> TranscriptionSettings {
            var settings = utterance.settings
            settings.prompt = RealtimeTranscriptionSession.prompt(
                settings.prompt, after: items.withLock { $0[utterance.channel ?? 0]?.last?.text })
            return settings
        }

        /// What `utterance`'s final decode hears and is prompted with: the side's previous items, most recent
        /// first, until item and context last the window (at least ``leastContext`` of context); the oldest one
        /// heard from a word boundary when it does not fit whole.
        func finalRequest(_ utterance: Utterance) -> FinalRequest {
            let said = items.withLock { $0[utterance.channel ?? 0] ?? [] }
            // Context audio wanted, each part followed by its gap.
            let wanted =
                utterance.finalWindow > 0
                ? min(
                    max(utterance.finalWindow - utterance.samples.count, Self.leastContext + Self.gap),
                    Self.decodeLimit - utterance.samples.count) : 0
            var parts: [(samples: ArraySlice<Float>, text: String)] = []
            var length = 0
            var before = said.endIndex
            // The words of the oldest heard item before its cut, when it is heard from a word boundary.
            var head = ""
            while before > said.startIndex, length < wanted {
                let item = said[before - 1]
                // An item kept without its audio (said before the session asked for a window) ends the context.
                guard !item.samples.isEmpty else { break }
                if length + item.samples.count + Self.gap <= wanted {
                    parts.insert((item.samples[...], item.text), at: 0)
                    length += item.samples.count + Self.gap
                    before -= 1
                    continue
                }
                // The oldest part: the item's end, from a word boundary, when at least half the least context fits.
                let room = wanted - length - Self.gap
                if room >= Self.leastContext / 2, let tail = item.tail(covering: room),
                    length + tail.samples.count + Self.gap + utterance.samples.count <= Self.decodeLimit
                {
                    parts.insert((tail.samples, tail.text), at: 0)
                    length += tail.samples.count + Self.gap
                    head = tail.before
                    before -= 1
                }
                break
            }
            // The prompt: what was said before the context (never the context's own words, or Whisper skips their
            // audio).
            let earlier = [before > said.startIndex ? said[before - 1].text : "", head].filter { !$0.isEmpty }
            var settings = utterance.settings
            settings.prompt = RealtimeTranscriptionSession.prompt(
                settings.prompt, after: earlier.isEmpty ? nil : earlier.joined(separator: " "))
            // Without context the prompt is the last item's words, as ``conditioning(_:)`` gives it.
            guard !parts.isEmpty else {
                return FinalRequest(samples: utterance.samples, settings: settings, contextText: "", contextSamples: 0)
            }
            var samples: [Float] = []
            samples.reserveCapacity(length + utterance.samples.count)
            for part in parts { samples += part.samples + [Float](repeating: 0, count: Self.gap) }
            samples += utterance.samples
            return FinalRequest(
                samples: samples, settings: settings, contextText: parts.map(\.text).joined(separator: " "),
                contextSamples: length)
        }

        /// Keeps `utterance`'s final text and words for the decodes after it, and its audio when its session has a
        /// final window. An item with no words is not kept (its audio would be context with nothing to find it by).
        func record(_ recognition: Recognition, of utterance: Utterance) {
            let text = recognition.text
            guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return }
            items.withLock { items in
                var said = items[utterance.channel ?? 0] ?? []
                said.append(
                    Item(
                        samples: utterance.finalWindow > 0 ? utterance.samples : [], text: text,
                        words: recognition.words))
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

        /// The start of the quietest 10 ms of `samples` from ``cutSearch`` before `start` to a third of it after
        /// (the nearest to `start` of equally quiet ones).
        static func quietest(_ samples: [Float], near start: Int) -> Int {
            let frame = 160
            let first = max(0, start - cutSearch)
            let last = min(start + cutSearch / 3, samples.count - frame)
            guard last > first else { return min(start, samples.count) }
            var best = (energy: Float.infinity, distance: Int.max, start: start)
            for candidate in stride(from: first, through: last, by: frame / 2) {
                var energy: Float = 0
                for sample in samples[candidate..<candidate + frame] { energy += sample * sample }
                let distance = abs(candidate - start)
                if (energy, distance) < (best.energy, best.distance) { best = (energy, distance, candidate) }
            }
            return best.start
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
