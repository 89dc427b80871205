import EarshotAudio
import EarshotDiarization
import EarshotSpeech
import Foundation

/// Seconds of a duration.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// asr-fast transcription time of each case without diarization, and with it (word timestamps + SpeakerAttribution,
/// exactly what `earshot transcribe --diarize` and the task workers run). Best of two runs each, same engine.
func transcriptionTimes(cases: [Case], embedder: ResemblyzerEmbedder) async throws {
    let transcriber = FileTranscriber()
    let (engine, options, _) = try await transcriber.engine(for: "asr-fast")
    let attribution = SpeakerAttribution(embedder: embedder)
    print("")
    print("| audio | transcribe (asr-fast) | transcribe + diarize | diarization adds | speakers | segments |")
    print("|---|---|---|---|---|---|")
    var plainTotal = 0.0, diarizedTotal = 0.0
    for c in cases {
        let clock = ContinuousClock()
        var plain = Double.infinity, diarized = Double.infinity
        var result: Transcript?
        for _ in 0..<2 {
            plain = min(
                plain,
                seconds(try await clock.measure { _ = try await engine.transcript(of: c.samples, options: options) }))
            diarized = min(
                diarized,
                seconds(
                    try await clock.measure {
                        let words = try await engine.transcript(
                            of: c.samples, options: SpeakerAttribution.prepare(options))
                        result = try await attribution.attribute(
                            words, samples: c.samples, options: .init())
                    }))
        }
        plainTotal += plain
        diarizedTotal += diarized
        let speakers = Set(result?.segments.compactMap(\.speaker) ?? []).count
        print(
            "| \(c.name) | \(String(format: "%.2f s", plain)) | \(String(format: "%.2f s", diarized)) | "
                + "\(String(format: "%+.0f%%", 100 * (diarized - plain) / plain)) | \(speakers) | "
                + "\(result?.segments.count ?? 0) |")
    }
    print(
        "| all | \(String(format: "%.2f s", plainTotal)) | \(String(format: "%.2f s", diarizedTotal)) | "
            + "\(String(format: "%+.0f%%", 100 * (diarizedTotal - plainTotal) / plainTotal)) | | |")
}

/// For threshold calibration: voiceprints enrolled from audio the diarized recording does not contain, scored
/// against every speaker the diarizer finds.
///
/// - espeak-ng: each voice enrolled from three sentences that are not in the dialogues.
/// - pyannote sample: each reference speaker enrolled from their turns in the first half; the second half diarized.
func calibrateVoiceprints(cases: [Case], embedder: ResemblyzerEmbedder, work: URL) throws {
    let enrolmentLines = [
        "The quick brown fox jumps over the lazy dog near the river bank.",
        "Please remember to bring your umbrella, the forecast says it will rain all afternoon.",
        "Our meeting has been moved to Thursday at half past two in the small conference room.",
    ]
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
        let voices = Array(SyntheticDialogue.voices.prefix(c.speakers))
        var prints: [String: [Float]] = [:]
        for (v, voice) in voices.enumerated() {
            var samples: [Float] = []
            for (n, line) in enrolmentLines.enumerated() {
                let wav = work.appendingPathComponent("enrol-\(v)-\(n).wav")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["espeak-ng", "-v", voice, "-s", "165", "-w", wav.path, line]
                try process.run()
                process.waitUntilExit()
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
