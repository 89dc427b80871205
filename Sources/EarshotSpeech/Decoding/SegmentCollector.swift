internal import CWhisper
import Foundation

/// Receives whisper.cpp's callbacks during one decode: reads new segments (text, tokens, times), maps their
/// times back through VAD, passes them through the hallucination filter and emits the kept ones.
///
/// Used only on the decode's compute thread (whisper.cpp calls back on the thread that called it).
final class SegmentCollector {
    let flag: CancellationFlag
    private let model: SpeechModel
    private let timeMap: TimeMap
    private let durationMs: Int
    private let wordTimestamps: Bool
    private let tokenDetails: Bool
    /// The decode's language when ``NumberForms`` applies to its text, else nil.
    private let numberFormsLanguage: String?
    private var filter: HallucinationFilter
    private let emit: @Sendable (TranscriptionEvent) -> Void
    private var nextIndex: Int32 = 0
    private var lastProgress: Int32 = -1
    private(set) var segments: [Transcript.Segment] = []

    init(
        model: SpeechModel, timeMap: TimeMap, durationMs: Int, wordTimestamps: Bool, tokenDetails: Bool = false,
        numberFormsLanguage: String? = nil, filter: HallucinationFilter, flag: CancellationFlag,
        emit: @escaping @Sendable (TranscriptionEvent) -> Void
    ) {
        self.model = model
        self.timeMap = timeMap
        self.durationMs = durationMs
        self.wordTimestamps = wordTimestamps
        self.tokenDetails = tokenDetails
        self.numberFormsLanguage = numberFormsLanguage
        self.filter = filter
        self.flag = flag
        self.emit = emit
    }

    /// whisper.cpp's progress, in percent of the (filtered) audio.
    func progress(_ percent: Int32) {
        guard percent != lastProgress, percent < 100 else { return }
        lastProgress = percent
        emit(.progress(Double(percent) / 100))
    }

    /// Called when `newCount` segments were appended to the state's results.
    func collect(_ state: OpaquePointer, newCount: Int32) { drain(state) }

    /// Reads every segment not read yet.
    func drain(_ state: OpaquePointer) {
        let total = whisper_full_n_segments_from_state(state)
        while nextIndex < total {
            let segment = read(state, index: nextIndex)
            nextIndex += 1
            if let kept = filter.admit(segment) {
                segments.append(kept)
                emit(.segment(kept))
            }
        }
    }

    private func milliseconds(_ centiseconds: Int64) -> Int {
        min(durationMs, max(0, timeMap.originalMilliseconds(centiseconds: centiseconds)))
    }

    private func read(_ state: OpaquePointer, index: Int32) -> Transcript.Segment {
        let context = model.context
        let endOfText = whisper_token_eot(context)
        let startMs = milliseconds(whisper_full_get_segment_t0_from_state(state, index))
        let endMs = max(startMs, milliseconds(whisper_full_get_segment_t1_from_state(state, index)))
        let text = whisper_full_get_segment_text_from_state(state, index).map { String(cString: $0) } ?? ""

        var logProbabilitySum = 0.0
        var textTokens = 0
        var words: [Transcript.Word] = []
        var wordBytes: [UInt8] = []
        var wordStart: Int64 = 0
        var wordEnd: Int64 = 0
        var wordProbability = 1.0
        var tokens: [Transcript.Token] = []
        func finishWord() {
            let word = String(decoding: wordBytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if !word.isEmpty {
                let start = milliseconds(wordStart)
                words.append(
                    Transcript.Word(
                        startMs: start, endMs: max(start, milliseconds(wordEnd)), text: word,
                        probability: wordProbability))
            }
            wordBytes = []
            wordProbability = 1
        }
        for token in 0..<whisper_full_n_tokens_from_state(state, index) {
            let data = whisper_full_get_token_data_from_state(state, index, token)
            guard data.id < endOfText else { continue }  // timestamps and special tokens
            logProbabilitySum += Double(data.plog)
            textTokens += 1
            guard wordTimestamps || tokenDetails,
                let piece = whisper_full_get_token_text_from_state(context, state, index, token)
            else {
                continue
            }
            let bytes = Array(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(piece).assumingMemoryBound(to: UInt8.self), count: strlen(piece)))
            if tokenDetails {
                tokens.append(
                    Transcript.Token(
                        id: Int(data.id), text: String(decoding: bytes, as: UTF8.self), bytes: bytes,
                        logprob: Double(data.plog)))
            }
            guard wordTimestamps else { continue }
            if bytes.first == UInt8(ascii: " "), !wordBytes.isEmpty { finishWord() }
            if wordBytes.isEmpty { wordStart = data.t0 }
            wordBytes += bytes
            wordEnd = data.t1
            wordProbability *= Double(data.p)
        }
        if wordTimestamps { finishWord() }
        let written = NumberForms.apply(text.trimmingCharacters(in: .whitespaces), language: numberFormsLanguage)
        return Transcript.Segment(
            startMs: startMs, endMs: endMs, text: written, words: words,
            noSpeechProbability: Double(whisper_full_get_segment_no_speech_prob_from_state(state, index)),
            averageLogProbability: textTokens > 0 ? logProbabilitySum / Double(textTokens) : 0, tokens: tokens)
    }
}
