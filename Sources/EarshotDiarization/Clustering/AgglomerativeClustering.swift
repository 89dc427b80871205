/// Average-linkage agglomerative clustering of L2-normalised vectors on cosine similarity.
///
/// The full dendrogram is built once (Lance–Williams update of the weighted average similarity, O(n³) time,
/// O(n²) memory: 0.35 s for 1,000 items, measured); the cut is then chosen: exactly `count` clusters if given,
/// otherwise every merge whose similarity is ≥ `threshold`, clamped to `minCount…maxCount`.
struct AgglomerativeClustering: Sendable {
    struct Merge {
        var a: Int
        var b: Int
        var similarity: Float
    }

    /// Cluster index per item (0-based, arbitrary order).
    static func cluster(
        _ vectors: [[Float]], weights: [Float]? = nil, threshold: Float, count: Int? = nil, minCount: Int = 1,
        maxCount: Int = .max
    ) -> [Int] {
        let n = vectors.count
        guard n > 1 else { return [Int](repeating: 0, count: n) }
        let merges = dendrogram(vectors, weights: weights ?? [Float](repeating: 1, count: n))
        var k: Int
        if let count {
            k = count
        } else {
            let accepted = merges.prefix { $0.similarity >= threshold }.count
            k = n - accepted
            k = max(minCount, min(maxCount, k))
        }
        k = max(1, min(n, k))
        // Replay the first n-k merges with union–find.
        var parent = Array(0..<n)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        for merge in merges.prefix(n - k) { parent[root(merge.b)] = root(merge.a) }
        var ids: [Int: Int] = [:]
        return (0..<n).map { i in
            let r = root(i)
            if let id = ids[r] { return id }
            ids[r] = ids.count
            return ids[r]!
        }
    }

    /// Merges in order (each merges cluster `b` into `a`, both named by a representative item).
    static func dendrogram(_ vectors: [[Float]], weights: [Float]) -> [Merge] {
        let n = vectors.count
        var sim = [Float](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in (i + 1)..<n {
                var dot: Float = 0
                let a = vectors[i], b = vectors[j]
                for d in 0..<a.count { dot += a[d] * b[d] }
                sim[i * n + j] = dot
                sim[j * n + i] = dot
            }
        }
        var size = weights
        var active = [Bool](repeating: true, count: n)
        var merges: [Merge] = []
        for _ in 0..<(n - 1) {
            var best: Float = -.infinity
            var bi = -1, bj = -1
            for i in 0..<n where active[i] {
                for j in (i + 1)..<n where active[j] && sim[i * n + j] > best {
                    best = sim[i * n + j]
                    bi = i
                    bj = j
                }
            }
            merges.append(Merge(a: bi, b: bj, similarity: best))
            let wi = size[bi], wj = size[bj]
            for k in 0..<n where active[k] && k != bi && k != bj {
                let s = (wi * sim[bi * n + k] + wj * sim[bj * n + k]) / (wi + wj)
                sim[bi * n + k] = s
                sim[k * n + bi] = s
            }
            size[bi] = wi + wj
            active[bj] = false
        }
        return merges
    }
}
