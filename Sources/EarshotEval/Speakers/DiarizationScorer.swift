/// Computes the diarization error rate of hypothesis speaker turns against reference turns.
///
/// Method (as NIST md-eval): around every reference turn boundary a no-score collar of ± ``Configuration/collar``
/// seconds is removed; the rest of the timeline is cut into intervals where the sets of active reference and
/// hypothesis speakers are constant; reference and hypothesis speakers are mapped one-to-one maximising their
/// total overlap (Hungarian method); then each interval with R reference and H hypothesis speakers, C of them
/// correctly mapped, adds max(0, R−H) missed, max(0, H−R) false alarm and min(R, H) − C confusion, times its
/// length. Recordings are scored separately and summed.
public struct DiarizationScorer: Sendable {
    /// Scoring options.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Seconds excluded on each side of every reference boundary (md-eval's `-c`). Default 0.25.
        public var collar: Double

        /// Creates a configuration.
        public init(collar: Double = 0.25) {
            self.collar = collar
        }
    }

    /// The options in use.
    public let configuration: Configuration

    /// Creates a scorer. - Throws: ``EvalError/Code/invalidArgument`` for a negative or non-finite collar.
    public init(configuration: Configuration = Configuration()) throws(EvalError) {
        guard configuration.collar >= 0, configuration.collar.isFinite else {
            throw EvalError(.invalidArgument, "collar must be a number of seconds ≥ 0, got \(configuration.collar)")
        }
        self.configuration = configuration
    }

    /// Scores `hypothesis` against `reference`; turns are grouped by ``SpeakerTurn/recording``.
    public func score(reference: [SpeakerTurn], hypothesis: [SpeakerTurn]) -> DiarizationScore {
        let recordings = Set(reference.map(\.recording)).union(hypothesis.map(\.recording)).sorted()
        var total = DiarizationScore(
            scoredSpeakerTime: 0, missedSpeech: 0, falseAlarm: 0, speakerConfusion: 0, mapping: [:],
            collar: configuration.collar)
        for recording in recordings {
            let part = scoreRecording(
                reference: reference.filter { $0.recording == recording },
                hypothesis: hypothesis.filter { $0.recording == recording })
            total.scoredSpeakerTime += part.scoredSpeakerTime
            total.missedSpeech += part.missedSpeech
            total.falseAlarm += part.falseAlarm
            total.speakerConfusion += part.speakerConfusion
            for (r, h) in part.mapping {
                total.mapping[recordings.count > 1 ? "\(recording)/\(r)" : r] = h
            }
        }
        return total
    }

    private struct Interval {
        var duration: Double
        var reference: [Int]
        var hypothesis: [Int]
    }

    private func scoreRecording(reference: [SpeakerTurn], hypothesis: [SpeakerTurn]) -> DiarizationScore {
        let referenceSpeakers = Array(Set(reference.map(\.speaker))).sorted()
        let hypothesisSpeakers = Array(Set(hypothesis.map(\.speaker))).sorted()
        let referenceIndex = Dictionary(uniqueKeysWithValues: referenceSpeakers.enumerated().map { ($1, $0) })
        let hypothesisIndex = Dictionary(uniqueKeysWithValues: hypothesisSpeakers.enumerated().map { ($1, $0) })

        let collar = configuration.collar
        var noScore: [(Double, Double)] = []
        if collar > 0 {
            for turn in reference {
                noScore.append((turn.start - collar, turn.start + collar))
                noScore.append((turn.end - collar, turn.end + collar))
            }
        }
        var cuts = Set<Double>()
        for turn in reference + hypothesis {
            cuts.insert(turn.start)
            cuts.insert(turn.end)
        }
        for (a, b) in noScore {
            cuts.insert(max(0, a))
            cuts.insert(b)
        }
        let times = cuts.sorted()

        var intervals: [Interval] = []
        var overlap = Array(
            repeating: [Double](repeating: 0, count: hypothesisSpeakers.count), count: referenceSpeakers.count)
        for (t0, t1) in zip(times, times.dropFirst()) where t1 > t0 {
            let middle = (t0 + t1) / 2
            if noScore.contains(where: { $0.0 <= middle && middle < $0.1 }) { continue }
            let r = Set(reference.filter { $0.start <= middle && middle < $0.end }.map { referenceIndex[$0.speaker]! })
            let h = Set(
                hypothesis.filter { $0.start <= middle && middle < $0.end }.map { hypothesisIndex[$0.speaker]! })
            if r.isEmpty && h.isEmpty { continue }
            let duration = t1 - t0
            for i in r { for j in h { overlap[i][j] += duration } }
            intervals.append(Interval(duration: duration, reference: Array(r), hypothesis: Array(h)))
        }

        var mapped = [Int?](repeating: nil, count: referenceSpeakers.count)
        if !referenceSpeakers.isEmpty && !hypothesisSpeakers.isEmpty {
            let assignment = Assignment.minimumCost(overlap.map { $0.map { -$0 } })
            for (i, j) in assignment.enumerated() where j != nil && overlap[i][j!] > 0 { mapped[i] = j }
        }

        var score = DiarizationScore(
            scoredSpeakerTime: 0, missedSpeech: 0, falseAlarm: 0, speakerConfusion: 0, mapping: [:],
            collar: configuration.collar)
        for (i, j) in mapped.enumerated() { if let j { score.mapping[referenceSpeakers[i]] = hypothesisSpeakers[j] } }
        for interval in intervals {
            let r = interval.reference.count
            let h = interval.hypothesis.count
            let hypothesisSet = Set(interval.hypothesis)
            let correct = interval.reference.filter { mapped[$0].map(hypothesisSet.contains) == true }.count
            score.scoredSpeakerTime += interval.duration * Double(r)
            score.missedSpeech += interval.duration * Double(max(0, r - h))
            score.falseAlarm += interval.duration * Double(max(0, h - r))
            score.speakerConfusion += interval.duration * Double(min(r, h) - correct)
        }
        return score
    }
}
