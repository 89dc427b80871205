import EarshotAudio
import EarshotDiarization
import EarshotSpeech
import Foundation

/// Seconds of a duration.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// asr-fast transcription time of each case without diarization, and with it — word timestamps on (which the split at
/// speaker changes needs) plus `SpeakerAttribution`, exactly what `earshot transcribe --diarize` and the task workers
/// run. The three steps are timed separately, best of two runs each, interleaved so machine load hits them alike.
func transcriptionTimes(cases: [Case], embedder: ResemblyzerEmbedder) async throws {
    let transcriber = FileTranscriber()
    let (engine, options, _) = try await transcriber.engine(for: "asr-fast")
    let attribution = SpeakerAttribution(embedder: embedder)
    print("")
    print(
        "| audio | transcribe (asr-fast) | segments | transcribe, word timestamps | segments | speaker attribution | "
            + "transcribe + diarize | diarization adds | speakers |")
    print("|---|---|---|---|---|---|---|---|---|")
    var totals = (plain: 0.0, words: 0.0, attribution: 0.0)
    for c in cases {
        let clock = ContinuousClock()
        var plain = Double.infinity, words = Double.infinity, attributing = Double.infinity
        var plainSegments = 0, wordSegments = 0
        var result: Transcript?
        for _ in 0..<2 {
            plain = min(
                plain,
                seconds(
                    try await clock.measure {
                        plainSegments = try await engine.transcript(of: c.samples, options: options).segments.count
                    }))
            var timed: Transcript?
            words = min(
                words,
                seconds(
                    try await clock.measure {
                        timed = try await engine.transcript(of: c.samples, options: SpeakerAttribution.prepare(options))
                    }))
            wordSegments = timed?.segments.count ?? 0
            attributing = min(
                attributing,
                seconds(
                    try await clock.measure {
                        result = try await attribution.attribute(timed!, samples: c.samples, options: .init())
                    }))
        }
        totals.plain += plain
        totals.words += words
        totals.attribution += attributing
        let speakers = Set(result?.segments.compactMap(\.speaker) ?? []).count
        print(
            "| \(c.name) | \(String(format: "%.2f s", plain)) | \(plainSegments) | \(String(format: "%.2f s", words)) | "
                + "\(wordSegments) | \(String(format: "%.2f s", attributing)) | "
                + "\(String(format: "%.2f s", words + attributing)) | "
                + "\(String(format: "%+.0f%%", 100 * (words + attributing - plain) / plain)) | \(speakers) |")
    }
    let diarized = totals.words + totals.attribution
    print(
        "| all | \(String(format: "%.2f s", totals.plain)) | | \(String(format: "%.2f s", totals.words)) | | "
            + "\(String(format: "%.2f s", totals.attribution)) | \(String(format: "%.2f s", diarized)) | "
            + "\(String(format: "%+.0f%%", 100 * (diarized - totals.plain) / totals.plain)) | |")
    print(
        "speaker attribution alone: "
            + String(format: "%.0f%%", 100 * totals.attribution / totals.plain) + " of plain transcription time")
}

/// For threshold calibration: voiceprints enrolled from audio the diarized recording does not contain, scored
/// against every speaker the diarizer finds.
///
/// - espeak-ng: each voice enrolled from three sentences that are not in the dialogues.
/// - pyannote sample: each reference speaker enrolled from their turns in the first half; the second half diarized.
func calibrateVoiceprints(cases: [Case], embedder: ResemblyzerEmbedder, work: URL) throws {
    let diarizer = try Diarizer(embedder: embedder)
    func enrol(_ samples: [Float]) throws -> [Float] {
        let result = try diarizer.diarize(samples: samples)
        var spoken = [Double](repeating: 0, count: result.speakerCount)
        for turn in result.turns { spoken[turn.speaker - 1] += turn.end - turn.start }
        return result.centroids[spoken.indices.max { spoken[$0] < spoken[$1] }!]
    }
    func dot(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }
    var same: [Float] = [], other: [Float] = []
    for c in cases where c.name.hasPrefix("espeak") {
        let voices = Array(SpeechSynthesis.voices.prefix(c.speakers))
        var prints: [String: [Float]] = [:]
        for (v, voice) in voices.enumerated() {
            var samples: [Float] = []
            for (n, line) in SpeechSynthesis.enrolmentLines.enumerated() {
                let wav = work.appendingPathComponent("enrol-\(v)-\(n).wav")
                try SpeechSynthesis.speak(line, voice: voice, to: wav)
                samples += try AudioDecoder(contentsOf: wav).decodeAll() + [Float](repeating: 0, count: 8_000)
            }
            prints["S\(v + 1)"] = try enrol(samples)
        }
        let result = try diarizer.diarize(samples: c.samples)
        for (index, centroid) in result.centroids.enumerated() {
            // The reference speaker who talks most inside this speaker's turns.
            var overlap: [String: Double] = [:]
            for turn in result.turns where turn.speaker == index + 1 {
                for ref in c.reference {
                    overlap[ref.speaker, default: 0] += max(0, min(turn.end, ref.end) - max(turn.start, ref.start))
                }
            }
            let truth = overlap.max { $0.value < $1.value }?.key
            for (name, vector) in prints.sorted(by: { $0.key < $1.key }) {
                let score = dot(vector, centroid)
                if name == truth { same.append(score) } else { other.append(score) }
                print(
                    "\(c.name): speaker \(index + 1) (truth \(truth ?? "?")) vs voiceprint \(name): \(String(format: "%.3f", score))"
                )
            }
        }
    }
    if let sample = cases.first(where: { $0.name.hasPrefix("pyannote") }) {
        let half = sample.samples.count / 2
        let halfSeconds = Double(half) / 16_000
        var prints: [String: [Float]] = [:]
        for speaker in Set(sample.reference.map(\.speaker)) {
            var samples: [Float] = []
            for turn in sample.reference where turn.speaker == speaker && turn.end <= halfSeconds {
                samples += sample.samples[Int(turn.start * 16_000)..<Int(turn.end * 16_000)]
            }
            if samples.count >= 16_000 * 3 {
                prints[speaker] = try enrol(samples)
            }
        }
        let second = Array(sample.samples[half...])
        let result = try diarizer.diarize(samples: second)
        for (index, centroid) in result.centroids.enumerated() {
            var overlap: [String: Double] = [:]
            for turn in result.turns where turn.speaker == index + 1 {
                for ref in sample.reference {
                    overlap[ref.speaker, default: 0] += max(
                        0, min(turn.end + halfSeconds, ref.end) - max(turn.start + halfSeconds, ref.start))
                }
            }
            let truth = overlap.max { $0.value < $1.value }?.key
            for (name, vector) in prints.sorted(by: { $0.key < $1.key }) {
                let score = dot(vector, centroid)
                if name == truth { same.append(score) } else { other.append(score) }
                print(
                    "pyannote 2nd half: speaker \(index + 1) (truth \(truth ?? "?")) vs voiceprint \(name): \(String(format: "%.3f", score))"
                )
            }
        }
    }
    print(
        String(
            format: "same speaker: min %.3f max %.3f (n=%d); other speakers: max %.3f (n=%d)", same.min() ?? .nan,
            same.max() ?? .nan, same.count, other.max() ?? .nan, other.count))
}
