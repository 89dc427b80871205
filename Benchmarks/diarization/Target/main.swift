// earshot-bench-diarization: DER and time per audio minute for the pyannote sample and espeak-ng dialogues.
// Run through Benchmarks/diarization/run (`make bench-diar`), which also runs the Python peer.
//
//   earshot-bench-diarization [--peer PYTHON] [--tune]
//
// --peer PYTHON: a python with Resemblyzer + torch; its embeddings of the SAME sub-segments are clustered by the
//                same Swift code, so the table shows the port's equivalence.
// --tune: print DER over a grid of thresholds / sub-segment lengths (calibration).
// --cluster-timing: time the clustering alone on 250/500/1000 random vectors.
// --no-transcription: skip the transcription-time table (asr-fast with vs without diarization).
// --only-transcription: print only that table.
// --voiceprints: cosine of enrolled voiceprints against every diarized speaker (threshold calibration).
import EarshotAudio
import EarshotDiarization
import EarshotEval
import EarshotSpeech
import Foundation

let arguments = CommandLine.arguments
let peer = arguments.firstIndex(of: "--peer").map { arguments[$0 + 1] }
let tune = arguments.contains("--tune")
if arguments.contains("--cluster-timing") {
    // Clustering cost alone: n random 256-d unit vectors.
    for n in [250, 500, 1000] {
        var generator = SystemRandomNumberGenerator()
        let vectors = (0..<n).map { _ in
            let v = (0..<256).map { _ in Float.random(in: -1...1, using: &generator) }
            let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return v.map { $0 / norm }
        }
        let elapsed = ContinuousClock().measure {
            _ = Diarizer.mergeSimilarities(vectors, weights: [Float](repeating: 1, count: n))
        }
        print("clustering \(n) sub-segments: \(elapsed)")
    }
    exit(0)
}
let env = ProcessInfo.processInfo.environment
let home = (env["EARSHOT_HOME"].flatMap { $0.isEmpty ? nil : $0 }) ?? NSHomeDirectory() + "/.cache/earshot"
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let work = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bench-diar-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

struct Case {
    var name: String
    var wav: URL
    var samples: [Float]
    var reference: [EarshotEval.SpeakerTurn]
    var speakers: Int
}

var cases: [Case] = []
let sampleWAV = URL(fileURLWithPath: home + "/testdata/pyannote/sample.wav")
cases.append(
    Case(
        name: "pyannote sample (2 spk, phone)", wav: sampleWAV,
        samples: try AudioDecoder(contentsOf: sampleWAV).decodeAll(),
        reference: try RTTM.read(URL(fileURLWithPath: home + "/testdata/pyannote/sample.rttm")), speakers: 2))
for (speakers, turns, gap) in [(2, 10, 0.5), (3, 12, 0.5), (2, 10, 0.1)] {
    let dir = work.appendingPathComponent("dialogue\(speakers)-\(gap)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let dialogue = try SyntheticDialogue.make(speakers: speakers, turnCount: turns, gap: gap, directory: dir)
    let wav = dir.appendingPathComponent("dialogue.wav")
    let writer = try WAVWriter(url: wav)
    try writer.write(dialogue.samples)
    try writer.close()
    cases.append(
        Case(
            name: "espeak-ng dialogue (\(speakers) spk\(gap < 0.3 ? ", 0.1 s pauses" : ""))", wav: wav,
            samples: try AudioDecoder(contentsOf: wav).decodeAll(),
            reference: dialogue.turns.map { SpeakerTurn(speaker: $0.speaker, start: $0.start, end: $0.end) },
            speakers: speakers))
}

let embedder = try ResemblyzerEmbedder(blasThreads: 1)
/// Speech regions from the Silero detector with the settings SpeakerAttribution uses.
func sileroRegions(_ samples: [Float]) throws -> [Range<Int>] {
    guard case .silero(let options) = SpeakerAttribution.sileroForDiarization else { return [] }
    return try VoiceActivityDetector().speechRanges(in: samples, options: options)
}
let scorer = try DiarizationScorer()
func der(_ result: DiarizationResult, _ reference: [EarshotEval.SpeakerTurn]) -> DiarizationScore {
    let recording = reference.first?.recording ?? "audio"
    return scorer.score(
        reference: reference,
        hypothesis: result.turns.map {
            SpeakerTurn(recording: recording, speaker: $0.label, start: $0.start, end: $0.end)
        })
}
func pct(_ x: Double) -> String { String(format: "%5.1f%%", 100 * x) }

if arguments.contains("--only-transcription") {
    try await transcriptionTimes(cases: cases, embedder: embedder)
    exit(0)
}

if arguments.contains("--voiceprints") {
    try calibrateVoiceprints(cases: cases, embedder: embedder, work: work)
    exit(0)
}

if tune {
    for c in cases {
        for sub in [1.5, 2.0, 2.5, 3.0] {
            let d0 = try Diarizer(embedder: embedder, configuration: .init(subsegmentDuration: sub))
            let parts = d0.subsegments(of: c.samples)
            let emb = try embedder.embed(parts.map { c.samples[$0.range] })
            var line = "\(c.name) sub=\(sub):"
            for thr in stride(from: Float(0.55), through: 0.91, by: 0.05) {
                let d = try Diarizer(embedder: embedder, configuration: .init(threshold: thr, subsegmentDuration: sub))
                let r = d.assemble(subsegments: parts, embeddings: emb, segments: [])
                line += String(format: " %.2f:%@/%d", thr, pct(der(r, c.reference).errorRate), r.speakerCount)
            }
            let dk = try Diarizer(
                embedder: embedder, configuration: .init(speakerCount: c.speakers, subsegmentDuration: sub))
            line +=
                " k:" + pct(der(dk.assemble(subsegments: parts, embeddings: emb, segments: []), c.reference).errorRate)
            print(line)
            let voters = parts.indices.filter { parts[$0].end - parts[$0].start >= 1.0 }
            let merges = Diarizer.mergeSimilarities(
                voters.map { emb[$0] }, weights: voters.map { Float(parts[$0].end - parts[$0].start) })
            print("   last merges:", merges.suffix(8).map { String(format: "%.3f", $0) }.joined(separator: " "))
        }
    }
    exit(0)
}

let diarizer = try Diarizer(embedder: embedder)
print(
    "| audio | length | Swift DER, Silero VAD | spk | Swift DER, energy VAD | (miss / FA / conf) | spk | Swift s/audio-min | Swift DER, no refinement | peer DER (Resemblyzer py + same clustering, no refinement) | peer spk | peer s/audio-min | max 1 − cos |"
)
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for c in cases {
    let minutes = Double(c.samples.count) / 16_000 / 60
    let clock = ContinuousClock()
    var result: DiarizationResult!
    let elapsed = try clock.measure { result = try diarizer.diarize(samples: c.samples) }
    let score = der(result, c.reference)
    let total = score.scoredSpeakerTime
    let silero = try diarizer.diarize(samples: c.samples, speech: try sileroRegions(c.samples))
    let sileroCells = "\(pct(der(silero, c.reference).errorRate)) | \(silero.speakerCount)"
    let plain = diarizer.assemble(
        subsegments: diarizer.subsegments(of: c.samples),
        embeddings: try embedder.embed(diarizer.subsegments(of: c.samples).map { c.samples[$0.range] }), segments: [])
    var peerCells = "\(pct(der(plain, c.reference).errorRate)) | – | – | – | –"
    if let peer {
        let parts = diarizer.subsegments(of: c.samples)
        let request = work.appendingPathComponent("request.json")
        let clips = parts.map { [$0.start, $0.end] }
        try JSONSerialization.data(withJSONObject: ["audio": c.wav.path, "clips": clips]).write(to: request)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: peer)
        process.arguments = [here.appendingPathComponent("resemblyzer_embed.py").path, request.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let response = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let embeddings = (response["embeddings"] as! [[Double]]).map { $0.map(Float.init) }
        let seconds = response["seconds"] as! Double
        let peerResult = diarizer.assemble(subsegments: parts, embeddings: embeddings, segments: [])
        let ours = try embedder.embed(parts.map { c.samples[$0.range] })
        let worst = zip(ours, embeddings).map { a, b in 1 - zip(a, b).reduce(Float(0)) { $0 + $1.0 * $1.1 } }.max() ?? 0
        peerCells =
            "\(pct(der(plain, c.reference).errorRate)) | "
            + "\(pct(der(peerResult, c.reference).errorRate)) | \(peerResult.speakerCount) | "
            + String(format: "%.2f", seconds / minutes) + " | " + String(format: "%.1e", worst)
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(
        "| \(c.name) | \(String(format: "%.1f s", minutes * 60)) | \(sileroCells) | \(pct(score.errorRate)) | "
            + String(format: "%.2f / %.2f / %.2f s", score.missedSpeech, score.falseAlarm, score.speakerConfusion)
            + " of \(String(format: "%.1f", total)) s | \(result.speakerCount) | "
            + String(format: "%.2f", seconds / minutes) + " | \(peerCells) |")
}

if !arguments.contains("--no-transcription") {
    try await transcriptionTimes(cases: cases, embedder: embedder)
}
