// earshot-bench-asr: transcribes the files of a manifest with EarshotSpeech, one model loaded once, and prints one
// JSON line per file and a summary line. Used by Benchmarks/asr/run; not shipped.
//
// Manifest: one line per file, `path<TAB>reference text`. Files are 16 kHz mono 16-bit WAV.
import EarshotEval
import EarshotSpeech
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

var arguments = [String: String]()
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let key = iterator.next() {
    guard key.hasPrefix("--"), let value = iterator.next() else {
        FileHandle.standardError.write(
            Data(
                "usage: earshot-bench-asr --model PATH --manifest FILE [--beam N] [--threads N] [--audio-ctx full|auto|N] [--language en|auto] [--vad on|off] [--vad-pad MS] [--vad-silence MS] [--flash on|off] [--warmup FILE]\n"
                    .utf8))
        exit(64)
    }
    arguments[String(key.dropFirst(2))] = value
}
if let referenceFile = arguments["score-reference"], let hypothesisFile = arguments["score-hypothesis"] {
    // Scoring only: WER of one hypothesis text against one reference text (EarshotEval, English normalisation).
    let document = TextEvaluation.Document(
        name: "score", reference: try String(contentsOfFile: referenceFile, encoding: .utf8),
        hypothesis: try String(contentsOfFile: hypothesisFile, encoding: .utf8))
    let result = TextEvaluation(configuration: .init(language: .english)).evaluate(document: document)
    print("{\"wer\": \(result.words.errorRate)}")
    exit(0)
}
guard let modelPath = arguments["model"], let manifest = arguments["manifest"] else {
    FileHandle.standardError.write(Data("--model and --manifest are required\n".utf8))
    exit(64)
}

func readWAV(_ path: String) throws -> [Float] {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var offset = 12
    while offset + 8 <= bytes.count {
        let size =
            Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7])
            << 24
        if bytes[offset..<offset + 4].elementsEqual("data".utf8) {
            let pcm = bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)]
            var samples = [Float](repeating: 0, count: pcm.count / 2)
            var index = pcm.startIndex
            for i in samples.indices {
                samples[i] = Float(Int16(bitPattern: UInt16(pcm[index]) | UInt16(pcm[index + 1]) << 8)) / 32768
                index += 2
            }
            return samples
        }
        offset += 8 + size + (size & 1)
    }
    throw CocoaError(.fileReadCorruptFile)
}

var options = TranscriptionOptions()
options.beamSize = Int(arguments["beam"] ?? "1") ?? 1
let language = arguments["language"] ?? "en"
options.language = language == "auto" ? nil : language
if arguments["vad"] == "off" { options.voiceActivity = nil }
if let silence = arguments["vad-silence"].flatMap(Int.init) {
    options.voiceActivity?.minimumSilence = .milliseconds(silence)
}
if let pad = arguments["vad-pad"].flatMap(Int.init) { options.voiceActivity?.speechPadding = .milliseconds(pad) }
switch arguments["audio-ctx"] ?? "auto" {
case "full": options.audioContext = .full
case "auto": options.audioContext = .automatic
case let value where value.hasPrefix("rule:"):
    // rule:MARGIN:MINIMUM (granularity 64)
    let parts = value.split(separator: ":").compactMap { Int($0) }
    options.audioContext = .rule(AudioContextRule(margin: parts[0], granularity: 64, minimum: parts[1]))
case let value: options.audioContext = .fixed(Int(value) ?? 1500)
}
let threads = Int(arguments["threads"] ?? "2") ?? 2

let loadStart = ContinuousClock.now
var modelConfiguration = SpeechModel.Configuration()
modelConfiguration.flashAttention = arguments["flash"] != "off"
let model = try SpeechModel(path: modelPath, configuration: modelConfiguration)
let loadSeconds = (ContinuousClock.now - loadStart) / .seconds(1)
let engine = SpeechEngine(model: model, configuration: .init(concurrentDecodes: 1, threadsPerDecode: threads))

if let warmup = arguments["warmup"] { _ = try await engine.transcript(of: try readWAV(warmup), options: options) }

let entries = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").map {
    let parts = $0.split(separator: "\t", maxSplits: 1).map(String.init)
    return (path: parts[0], reference: parts.count > 1 ? parts[1] : "")
}
let evaluation = TextEvaluation(configuration: .init(language: .english))
var documents: [TextEvaluation.Document] = []
var totalAudio = 0.0
var totalSeconds = 0.0
var totalCPU = 0.0
func json(_ object: [String: Any]) -> String {
    String(
        decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
        as: UTF8.self)
}
for entry in entries {
    let samples = try readWAV(entry.path)
    var before = rusage()
    getrusage(RUSAGE_SELF.rawValue, &before)
    let start = ContinuousClock.now
    let transcript = try await engine.transcript(of: samples, options: options)
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    var after = rusage()
    getrusage(RUSAGE_SELF.rawValue, &after)
    func cpu(_ u: rusage) -> Double {
        Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
    let cpuSeconds = cpu(after) - cpu(before)
    totalCPU += cpuSeconds
    let audio = Double(samples.count) / 16_000
    totalAudio += audio
    totalSeconds += seconds
    let document = TextEvaluation.Document(name: entry.path, reference: entry.reference, hypothesis: transcript.text)
    documents.append(document)
    let wer = evaluation.evaluate(document: document).words.errorRate
    print(
        json([
            "file": entry.path, "audio_s": audio, "seconds": seconds, "cpu_s": cpuSeconds, "wer": wer,
            "text": transcript.text,
        ]))
}
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let result = evaluation.evaluate(documents)
print(
    json([
        "summary": true, "audio_s": totalAudio, "seconds": totalSeconds, "cpu_s": totalCPU,
        "xrealtime": totalAudio / totalSeconds,
        "wer": result.wordErrorRate, "peak_rss_mb": Double(usage.ru_maxrss) / 1024, "load_s": loadSeconds,
    ]))
