import EarshotEval
import Testing

/// DER on small hand-made RTTMs and cpWER on hand-made speaker texts; expected values computed by hand.
@Suite struct SpeakerScoringTests {
    func turns(_ rttm: String) throws -> [SpeakerTurn] { try RTTM.parse(rttm) }

    @Test func rttmSpeakerLinesAreParsedAndOthersSkipped() throws {
        let parsed = try turns(
            """
            # comment
            SPKR-INFO meeting 1 <NA> <NA> <NA> unknown alice <NA> <NA>
            SPEAKER meeting 1 0.50 2.25 <NA> <NA> alice <NA> <NA>
            SPEAKER\tmeeting\t1\t3.000\t1.0\t<NA>\t<NA>\tbob\t<NA>\t<NA>

            """)
        #expect(
            parsed == [
                SpeakerTurn(recording: "meeting", speaker: "alice", start: 0.5, end: 2.75),
                SpeakerTurn(recording: "meeting", speaker: "bob", start: 3, end: 4),
            ])
        #expect(try RTTM.parse(RTTM.render(parsed)) == parsed)
    }

    @Test func malformedRTTMNamesTheLine() {
        #expect {
            _ = try RTTM.parse("SPEAKER f 1 0.0 x <NA> <NA> a <NA> <NA>")
        } throws: { error in
            (error as? EvalError)?.code == .malformedRTTM && (error as? EvalError)?.message.contains("line 1") == true
        }
    }

    @Test func confusionUsesTheOptimalMapping() throws {
        let reference = try turns(
            """
            SPEAKER f 1 0 10 <NA> <NA> A <NA> <NA>
            SPEAKER f 1 10 10 <NA> <NA> B <NA> <NA>
            """)
        let hypothesis = try turns(
            """
            SPEAKER f 1 0 10 <NA> <NA> x <NA> <NA>
            SPEAKER f 1 10 5 <NA> <NA> y <NA> <NA>
            SPEAKER f 1 15 5 <NA> <NA> x <NA> <NA>
            """)
        let score = try DiarizationScorer(configuration: .init(collar: 0)).score(
            reference: reference, hypothesis: hypothesis)
        #expect(score.mapping == ["A": "x", "B": "y"])
        #expect(score.scoredSpeakerTime == 20)
        #expect(score.speakerConfusion == 5)
        #expect(score.missedSpeech == 0 && score.falseAlarm == 0)
        #expect(score.errorRate == 0.25)
    }

    @Test func missedSpeechAndFalseAlarmWithAndWithoutCollar() throws {
        let reference = [SpeakerTurn(recording: "f", speaker: "A", start: 0, end: 10)]
        let hypothesis = [SpeakerTurn(recording: "f", speaker: "x", start: 2, end: 12)]
        let plain = try DiarizationScorer(configuration: .init(collar: 0)).score(
            reference: reference, hypothesis: hypothesis)
        #expect(plain.missedSpeech == 2 && plain.falseAlarm == 2 && plain.speakerConfusion == 0)
        #expect(abs(plain.errorRate - 0.4) < 1e-12)
        // ±0.5 s around 0 and 10 are not scored: 9 s of speech, 1.5 s missed, 1.5 s false alarm.
        let collared = try DiarizationScorer(configuration: .init(collar: 0.5)).score(
            reference: reference, hypothesis: hypothesis)
        #expect(abs(collared.scoredSpeakerTime - 9) < 1e-12)
        #expect(abs(collared.missedSpeech - 1.5) < 1e-12 && abs(collared.falseAlarm - 1.5) < 1e-12)
        #expect(abs(collared.errorRate - 1.0 / 3.0) < 1e-12)
    }

    @Test func overlappingReferenceSpeakersEachCount() throws {
        let reference = [
            SpeakerTurn(speaker: "A", start: 0, end: 10), SpeakerTurn(speaker: "B", start: 5, end: 10),
        ]
        let hypothesis = [SpeakerTurn(speaker: "x", start: 0, end: 10)]
        let score = try DiarizationScorer(configuration: .init(collar: 0)).score(
            reference: reference, hypothesis: hypothesis)
        #expect(score.scoredSpeakerTime == 15)
        #expect(score.missedSpeech == 5)
        #expect(abs(score.errorRate - 5.0 / 15.0) < 1e-12)
    }

    @Test func negativeCollarIsRejected() {
        #expect(throws: EvalError.self) { try DiarizationScorer(configuration: .init(collar: -1)) }
    }

    let normalizer = TextNormalizer(configuration: .defaults(for: .english))

    @Test func cpWERIgnoresLabelNamesButNotWrongAttribution() {
        let reference = [
            SpeakerUtterance(speaker: "spk1", text: "Hello there."),
            SpeakerUtterance(speaker: "spk2", text: "Good morning."),
        ]
        let swapped = [
            SpeakerUtterance(speaker: "A", text: "good morning"), SpeakerUtterance(speaker: "B", text: "hello there"),
        ]
        let perfect = PermutationScorer.score(reference: reference, hypothesis: swapped, normalizer: normalizer)
        #expect(perfect.errorRate == 0)
        #expect(perfect.mapping == ["spk1": "B", "spk2": "A"])

        let misattributed = [
            SpeakerUtterance(speaker: "A", text: "hello there good"), SpeakerUtterance(speaker: "B", text: "morning"),
        ]
        let score = PermutationScorer.score(reference: reference, hypothesis: misattributed, normalizer: normalizer)
        #expect(score.counts == ErrorCounts(hits: 3, deletions: 1, insertions: 1))
        #expect(score.errorRate == 0.5)
    }

    @Test func unpairedReferenceSpeakerIsAllDeletions() {
        let reference = [
            SpeakerUtterance(speaker: "a", text: "one two"), SpeakerUtterance(speaker: "b", text: "three four five"),
            SpeakerUtterance(speaker: "c", text: "six"),
        ]
        let hypothesis = [
            SpeakerUtterance(speaker: "x", text: "three four five"), SpeakerUtterance(speaker: "y", text: "one two"),
        ]
        let score = PermutationScorer.score(reference: reference, hypothesis: hypothesis, normalizer: normalizer)
        #expect(score.counts == ErrorCounts(hits: 5, deletions: 1))
        #expect(score.mapping == ["a": "y", "b": "x"])
    }

    @Test func evaluationReportsDERAndCpWERWhenSpeakersAreGiven() {
        let document = TextEvaluation.Document(
            name: "call", referenceLines: ["hello there", "good morning"],
            hypothesis: [
                HypothesisSegment(text: "hello there", speaker: "S1", startMilliseconds: 0, endMilliseconds: 2000),
                HypothesisSegment(text: "good morning", speaker: "S2", startMilliseconds: 2000, endMilliseconds: 4000),
            ],
            referenceSpeakers: [
                SpeakerUtterance(speaker: "alice", text: "hello there"),
                SpeakerUtterance(speaker: "bob", text: "good morning"),
            ],
            referenceTurns: [
                SpeakerTurn(speaker: "alice", start: 0, end: 2), SpeakerTurn(speaker: "bob", start: 2, end: 4),
            ])
        let result = TextEvaluation(configuration: .init(language: .english)).evaluate([document])
        #expect(result.diarization?.errorRate == 0)
        #expect(result.diarization?.mapping == ["alice": "S1", "bob": "S2"])
        #expect(result.permutationWER?.counts == ErrorCounts(hits: 4))
    }
}
