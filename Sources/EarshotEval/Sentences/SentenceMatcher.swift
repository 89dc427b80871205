/// Builds the per-sentence comparison from the full-text alignment.
///
/// The rule: every hypothesis word is mapped back to its segment and every reference word to its line; each
/// segment goes, whole, to the line on which most of its aligned (matched or substituted) words fall (ties go
/// to the earlier line). A segment is never split across lines. A line that receives no segment but whose
/// words were recognised inside a segment assigned to another line has been *merged* by the recogniser: it is
/// scored together with that line in one ``SentenceRow/Status/merged`` row instead of being counted as
/// missed. Segments with only inserted words follow the nearest preceding assigned segment (or the next one).
enum SentenceMatcher {
    static func rows(
        lines: [String], lineTokens: [[String]], segments: [String], segmentTokens: [[String]],
        alignment: [AlignedPair]
    ) -> [SentenceRow] {
        var lineOfReferenceToken: [Int] = []
        for (line, tokens) in lineTokens.enumerated() {
            lineOfReferenceToken += Array(repeating: line, count: tokens.count)
        }
        var segmentOfHypothesisToken: [Int] = []
        for (segment, tokens) in segmentTokens.enumerated() {
            segmentOfHypothesisToken += Array(repeating: segment, count: tokens.count)
        }

        // votes[segment][line] = aligned words of the segment that fall on the line.
        var votes = Array(repeating: [Int: Int](), count: segments.count)
        for pair in alignment {
            guard let r = pair.referenceIndex, let h = pair.hypothesisIndex else { continue }
            votes[segmentOfHypothesisToken[h]][lineOfReferenceToken[r], default: 0] += 1
        }
        var lineOfSegment: [Int?] = votes.map { tally in
            tally.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key
        }
        // Segments with no aligned word follow their neighbours.
        for segment in lineOfSegment.indices where lineOfSegment[segment] == nil {
            let before = lineOfSegment[..<segment].last { $0 != nil } ?? nil
            let after = lineOfSegment[(segment + 1)...].first { $0 != nil } ?? nil
            lineOfSegment[segment] = before ?? after
        }

        var segmentsOfLine = Array(repeating: [Int](), count: lines.count)
        for (segment, line) in lineOfSegment.enumerated() {
            if let line { segmentsOfLine[line].append(segment) }
        }
        // A line without segments whose words sit in another line's segment is merged into that line.
        var hostOfLine = Array(0..<lines.count)
        for line in lines.indices where segmentsOfLine[line].isEmpty {
            let covering = votes.indices.compactMap { segment -> (Int, Int)? in
                guard let count = votes[segment][line], let host = lineOfSegment[segment], host != line else {
                    return nil
                }
                return (count, host)
            }
            if let best = covering.max(by: { ($0.0, -$0.1) < ($1.0, -$1.1) }) { hostOfLine[line] = best.1 }
        }

        var rows: [SentenceRow] = []
        var emitted = Set<Int>()
        for line in lines.indices {
            let host = hostOfLine[line]
            guard !emitted.contains(host) else { continue }
            emitted.insert(host)
            let group = lines.indices.filter { hostOfLine[$0] == host }
            let groupSegments = segmentsOfLine[host]
            let status: SentenceRow.Status =
                groupSegments.isEmpty ? .missed : (group.count > 1 ? .merged : .aligned)
            rows.append(
                row(
                    status: status, lines: group, segments: groupSegments, lineTexts: lines, lineTokens: lineTokens,
                    segmentTexts: segments, segmentTokens: segmentTokens))
        }
        let orphans = lineOfSegment.indices.filter { lineOfSegment[$0] == nil }
        if !orphans.isEmpty {
            rows.append(
                row(
                    status: .extra, lines: [], segments: orphans, lineTexts: lines, lineTokens: lineTokens,
                    segmentTexts: segments, segmentTokens: segmentTokens))
        }
        return rows
    }

    private static func row(
        status: SentenceRow.Status, lines: [Int], segments: [Int], lineTexts: [String], lineTokens: [[String]],
        segmentTexts: [String], segmentTokens: [[String]]
    ) -> SentenceRow {
        let reference = lines.flatMap { lineTokens[$0] }
        let hypothesis = segments.flatMap { segmentTokens[$0] }
        var interner = TokenInterner()
        let counts = EditDistance.counts(reference: interner.ids(reference), hypothesis: interner.ids(hypothesis))
        return SentenceRow(
            status: status, referenceLines: lines, segments: segments, referenceText: lines.map { lineTexts[$0] },
            hypothesisText: segments.map { segmentTexts[$0] }, normalizedReference: reference.joined(separator: " "),
            normalizedHypothesis: hypothesis.joined(separator: " "), counts: counts)
    }
}
