// earshot-bench-notes: see Benchmarks/notes/run.
import EarshotNotes
import Foundation

struct Transcript {
    let name: String
    let segments: [NoteSegment]
    var minutes: Double { Double(segments.last!.endMs) / 60_000 }
}

/// `sample 1 Diane 6.68 7.16 Hello?` lines: file, channel, speaker, start s, end s, text.
func loadSTM(_ path: String) throws -> [NoteSegment] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
        let fields = line.split(separator: " ", maxSplits: 5)
        guard fields.count == 6, let start = Double(fields[3]), let end = Double(fields[4]) else { return nil }
        return NoteSegment(
            startMs: Int(start * 1000), endMs: Int(end * 1000), speaker: String(fields[2]), text: String(fields[5]))
    }
}

/// `<s> text </s> (file-id)` lines; each clip's length (16-bit WAV data size) gives the times.
func loadLibriVox(_ directory: String) throws -> [NoteSegment] {
    var segments: [NoteSegment] = []
    var cursor = 0
    for line in try String(contentsOfFile: directory + "/transcription", encoding: .utf8).split(separator: "\n") {
        guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { continue }
        let id = line[line.index(after: open)..<close]
        let text = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
            .trimmingCharacters(in: .whitespaces)
        let wav = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(id).wav"))
        let rate = wav[24..<28].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let durationMs = (wav.count - 44) / 2 * 1000 / max(rate, 1)
        let sentence = text.prefix(1).uppercased() + text.dropFirst() + "."
        segments.append(NoteSegment(startMs: cursor, endMs: cursor + durationMs, speaker: "Narrator", text: sentence))
        cursor += durationMs
    }
    return segments
}

/// Words of three letters or more, lowercased, minus common function words.
func contentWords(_ text: String) -> [String] {
    let stop: Set<String> = [
        "the", "and", "was", "were", "that", "this", "with", "for", "you", "have", "has", "had", "are", "but", "not",
        "his", "her", "him", "she", "they", "them", "their", "there", "from", "what", "which", "been", "would",
        "could", "might", "more", "than", "then", "did", "didn't", "i'm", "okay", "yeah", "know", "well", "about",
        "your", "our", "all", "one", "out", "who", "how", "can", "just", "also", "into", "its", "it's", "said",
    ]
    return text.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init)
        .filter { $0.count >= 3 && !stop.contains($0) }
}

struct Quality {
    /// Share of the transcript's 10 most frequent content words found in the summary.
    let coverage: Double
    /// Share of the summary's content words that occur in the transcript (1.0: nothing invented).
    let support: Double
    /// Share of key points that are a transcript segment copied verbatim.
    let copied: Double

    init(_ summary: NoteSummary, _ segments: [NoteSegment]) {
        var frequency: [String: Int] = [:]
        for word in segments.flatMap({ contentWords($0.text) }) { frequency[word, default: 0] += 1 }
        let top = frequency.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(10)
            .map(\.key)
        let text = ([summary.abstract] + (summary.keyPoints + summary.actionItems).map(\.text)).joined(separator: " ")
        let words = contentWords(text)
        let wordSet = Set(words)
        coverage = top.isEmpty ? 0 : Double(top.filter(wordSet.contains).count) / Double(top.count)
        support = words.isEmpty ? 0 : Double(words.filter { frequency[$0] != nil }.count) / Double(words.count)
        let sources = Set(segments.map(\.text))
        copied =
            summary.keyPoints.isEmpty
            ? 0 : Double(summary.keyPoints.filter { sources.contains($0.text) }.count) / Double(summary.keyPoints.count)
    }
}

/// One line to stdout, unbuffered (progress shows while the slow model runs).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func value(_ flag: String, in arguments: [String]) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

let arguments = CommandLine.arguments
let home = value("--home", in: arguments) ?? NSHomeDirectory() + "/.cache/earshot"
let rounds = Int(value("--rounds", in: arguments) ?? "3") ?? 3
let testdata = home + "/testdata"
let pyannote = try loadSTM(testdata + "/pyannote/sample.stm")
let librivox = try loadLibriVox(testdata + "/librivox")
var transcripts = [
    Transcript(name: "pyannote call", segments: pyannote),
    Transcript(name: "LibriVox excerpt", segments: librivox),
]
// Both back to back (the narration shifted after the call): a longer input of the same real text.
let offset = pyannote.last!.endMs
transcripts.append(
    Transcript(
        name: "both, back to back",
        segments: pyannote
            + librivox.map {
                NoteSegment(startMs: $0.startMs + offset, endMs: $0.endMs + offset, speaker: $0.speaker, text: $0.text)
            }))

var configuration = ManagedLlamaServer.Configuration.installed(home: home)
configuration.startupTimeout = .seconds(180)
let server = ManagedLlamaServer(configuration: configuration)

try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await server.run() }
    let clock = ContinuousClock()
    // Start the server outside the measurement (earshot serve keeps it running after the first use).
    let warmup = clock.now
    _ = try await server.complete(ChatRequest(messages: [.user("Hello")], maxTokens: 4))
    emit("llama-server start + first answer: \(String(format: "%.1f", (clock.now - warmup).seconds)) s\n")

    let methods: [(String, NoteProcessor)] = [
        ("SmolLM2-135M (llm)", NoteProcessor(model: server, configuration: .init(summaryMethod: .languageModel))),
        ("extractive", NoteProcessor(model: nil)),
    ]
    emit("| transcript | minutes | method | result | s / summary | s / transcript min | coverage | support | copied |")
    emit("|---|---|---|---|---|---|---|---|---|")
    for transcript in transcripts {
        for (label, processor) in methods {
            var times: [Double] = []
            var summary: NoteSummary?
            for _ in 0..<rounds {
                let started = clock.now
                summary = try await processor.summarize(transcript.segments, language: "en")
                times.append((clock.now - started).seconds)
            }
            let median = times.sorted()[times.count / 2]
            let quality = Quality(summary!, transcript.segments)
            let result = summary!.method == .languageModel ? "llm" : (label == "extractive" ? "extractive" : "fallback")
            emit(
                "| \(transcript.name) | \(String(format: "%.2f", transcript.minutes)) | \(label) | \(result) "
                    + "| \(String(format: "%.3f", median)) | \(String(format: "%.3f", median / transcript.minutes)) "
                    + "| \(String(format: "%.2f", quality.coverage)) | \(String(format: "%.2f", quality.support)) "
                    + "| \(String(format: "%.2f", quality.copied)) |")
            if label != "extractive", let summary, ProcessInfo.processInfo.environment["BENCH_NOTES_SHOW"] != nil {
                emit("<!-- \(summary.abstract) | \(summary.keyPoints.map(\.text)) | \(summary.warnings) -->")
            }
        }
    }
    group.cancelAll()
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
