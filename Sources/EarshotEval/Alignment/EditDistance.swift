/// Levenshtein alignment of two token-id sequences with unit costs.
///
/// Both entry points pick the same path among equally cheap alignments, so ``counts(reference:hypothesis:)``
/// and ``align(reference:hypothesis:)`` always agree. The tie-break reproduces RapidFuzz's `opcodes` (used
/// by jiwer): a common prefix and suffix are matched first, then the path is traced back from the end
/// preferring a deletion, then an insertion, then the diagonal. The hit/substitution/deletion/insertion split
/// therefore equals jiwer's, not just the total (the committed jiwer fixture checks this). RapidFuzz switches to
/// Hirschberg's method above roughly 4 million matrix cells; beyond that size the split may differ from
/// jiwer's while the total distance and WER stay identical.
///
/// Thread-safety: pure functions on values. Cost: O(n·m) time; ``counts(reference:hypothesis:)`` uses O(n)
/// memory, ``align(reference:hypothesis:)`` O(n·m) bytes for the backtrace.
public enum EditDistance {
    /// Hits, substitutions, deletions and insertions of the cheapest alignment, in linear memory.
    public static func counts(reference: [Int32], hypothesis: [Int32]) -> ErrorCounts {
        let (prefix, suffix) = commonAffix(reference, hypothesis)
        let n = reference.count - prefix - suffix
        let m = hypothesis.count - prefix - suffix
        let affixHits = prefix + suffix
        if n == 0 { return ErrorCounts(hits: affixHits, insertions: m) }
        if m == 0 { return ErrorCounts(hits: affixHits, deletions: n) }

        // Rows run over the hypothesis, columns over the reference. Besides the distance each cell carries the
        // deletions on its path; hits, substitutions and insertions follow from the distance and the lengths.
        var previousCost = [Int32](unsafeUninitializedCapacity: n + 1) { buffer, count in
            for i in 0...n { buffer[i] = Int32(i) }
            count = n + 1
        }
        var previousDeletions = previousCost
        var cost = [Int32](repeating: 0, count: n + 1)
        var deletions = [Int32](repeating: 0, count: n + 1)
        reference.withUnsafeBufferPointer { refAll in
            hypothesis.withUnsafeBufferPointer { hypAll in
                let ref = UnsafeBufferPointer(rebasing: refAll[prefix..<(prefix + n)])
                let hyp = UnsafeBufferPointer(rebasing: hypAll[prefix..<(prefix + m)])
                for j in 1...m {
                    let token = hyp[j - 1]
                    cost.withUnsafeMutableBufferPointer { cur in
                        deletions.withUnsafeMutableBufferPointer { curDel in
                            previousCost.withUnsafeBufferPointer { prev in
                                previousDeletions.withUnsafeBufferPointer { prevDel in
                                    cur[0] = Int32(j)
                                    curDel[0] = 0
                                    for i in 1...n {
                                        let diagonal = prev[i - 1] + (ref[i - 1] == token ? 0 : 1)
                                        let value = min(diagonal, prev[i] + 1, cur[i - 1] + 1)
                                        cur[i] = value
                                        if value - cur[i - 1] == 1 {
                                            curDel[i] = curDel[i - 1] + 1
                                        } else if prev[i] - prev[i - 1] == -1 {
                                            curDel[i] = prevDel[i]
                                        } else {
                                            curDel[i] = prevDel[i - 1]
                                        }
                                    }
                                }
                            }
                        }
                    }
                    swap(&cost, &previousCost)
                    swap(&deletions, &previousDeletions)
                }
            }
        }
        let distance = Int(previousCost[n])
        let dels = Int(previousDeletions[n])
        let ins = dels - n + m
        let subs = distance - dels - ins
        return ErrorCounts(hits: affixHits + n - subs - dels, substitutions: subs, deletions: dels, insertions: ins)
    }

    /// The full cheapest alignment, in reference/hypothesis order.
    public static func align(reference: [Int32], hypothesis: [Int32]) -> [AlignedPair] {
        let (prefix, suffix) = commonAffix(reference, hypothesis)
        let n = reference.count - prefix - suffix
        let m = hypothesis.count - prefix - suffix
        var pairs: [AlignedPair] = []
        pairs.reserveCapacity(max(reference.count, hypothesis.count) + 8)
        for k in 0..<prefix { pairs.append(AlignedPair(operation: .match, referenceIndex: k, hypothesisIndex: k)) }

        var middle: [AlignedPair] = []
        if n == 0 || m == 0 {
            for i in 0..<n {
                middle.append(AlignedPair(operation: .deletion, referenceIndex: prefix + i, hypothesisIndex: nil))
            }
            for j in 0..<m {
                middle.append(AlignedPair(operation: .insertion, referenceIndex: nil, hypothesisIndex: prefix + j))
            }
        } else {
            middle = alignMiddle(reference, hypothesis, offset: prefix, n: n, m: m)
        }
        pairs.append(contentsOf: middle)
        for k in 0..<suffix {
            pairs.append(
                AlignedPair(
                    operation: .match, referenceIndex: prefix + n + k, hypothesisIndex: prefix + m + k))
        }
        return pairs
    }

    /// Sums an alignment into counts.
    public static func counts(of alignment: [AlignedPair]) -> ErrorCounts {
        var counts = ErrorCounts.zero
        for pair in alignment {
            switch pair.operation {
            case .match: counts.hits += 1
            case .substitution: counts.substitutions += 1
            case .deletion: counts.deletions += 1
            case .insertion: counts.insertions += 1
            }
        }
        return counts
    }

    private static let stepDeletion: UInt8 = 0
    private static let stepInsertion: UInt8 = 1
    private static let stepDiagonal: UInt8 = 2

    private static func alignMiddle(_ reference: [Int32], _ hypothesis: [Int32], offset: Int, n: Int, m: Int)
        -> [AlignedPair]
    {
        // steps[(j-1)*n + (i-1)] is the backtrace step out of cell (i, j).
        var steps = [UInt8](repeating: 0, count: n * m)
        var previous = (0...n).map { Int32($0) }
        var current = [Int32](repeating: 0, count: n + 1)
        for j in 1...m {
            let token = hypothesis[offset + j - 1]
            current[0] = Int32(j)
            let row = (j - 1) * n
            for i in 1...n {
                let diagonal = previous[i - 1] + (reference[offset + i - 1] == token ? 0 : 1)
                let value = min(diagonal, previous[i] + 1, current[i - 1] + 1)
                current[i] = value
                if value - current[i - 1] == 1 {
                    steps[row + i - 1] = stepDeletion
                } else if previous[i] - previous[i - 1] == -1 {
                    steps[row + i - 1] = stepInsertion
                } else {
                    steps[row + i - 1] = stepDiagonal
                }
            }
            swap(&previous, &current)
        }
        var reversed: [AlignedPair] = []
        var i = n
        var j = m
        while i > 0 && j > 0 {
            switch steps[(j - 1) * n + i - 1] {
            case stepDeletion:
                i -= 1
                reversed.append(AlignedPair(operation: .deletion, referenceIndex: offset + i, hypothesisIndex: nil))
            case stepInsertion:
                j -= 1
                reversed.append(AlignedPair(operation: .insertion, referenceIndex: nil, hypothesisIndex: offset + j))
            default:
                i -= 1
                j -= 1
                let same = reference[offset + i] == hypothesis[offset + j]
                reversed.append(
                    AlignedPair(
                        operation: same ? .match : .substitution, referenceIndex: offset + i,
                        hypothesisIndex: offset + j))
            }
        }
        while i > 0 {
            i -= 1
            reversed.append(AlignedPair(operation: .deletion, referenceIndex: offset + i, hypothesisIndex: nil))
        }
        while j > 0 {
            j -= 1
            reversed.append(AlignedPair(operation: .insertion, referenceIndex: nil, hypothesisIndex: offset + j))
        }
        return reversed.reversed()
    }

    private static func commonAffix(_ a: [Int32], _ b: [Int32]) -> (prefix: Int, suffix: Int) {
        var prefix = 0
        let limit = min(a.count, b.count)
        while prefix < limit && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < limit - prefix && a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return (prefix, suffix)
    }
}
