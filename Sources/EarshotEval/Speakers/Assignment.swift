/// Minimum-cost one-to-one assignment (the Hungarian method, O(n²·m)).
enum Assignment {
    /// For a cost matrix with `rows.count` ≤ column count, the column assigned to each row minimising the total.
    /// A matrix with more rows than columns is transposed first; rows left without a column get nil.
    static func minimumCost(_ cost: [[Double]]) -> [Int?] {
        let n = cost.count
        guard n > 0, let m = cost.first?.count, m > 0 else { return Array(repeating: nil, count: n) }
        if n > m {
            let transposed = (0..<m).map { j in (0..<n).map { i in cost[i][j] } }
            let columnToRow = minimumCost(transposed)
            var result = [Int?](repeating: nil, count: n)
            for (column, row) in columnToRow.enumerated() { if let row { result[row] = column } }
            return result
        }
        // Potentials u (rows) and v (columns), 1-based with a virtual column 0.
        var u = [Double](repeating: 0, count: n + 1)
        var v = [Double](repeating: 0, count: m + 1)
        var rowOfColumn = [Int](repeating: 0, count: m + 1)
        var way = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            rowOfColumn[0] = i
            var j0 = 0
            var minimum = [Double](repeating: .infinity, count: m + 1)
            var used = [Bool](repeating: false, count: m + 1)
            repeat {
                used[j0] = true
                let i0 = rowOfColumn[j0]
                var delta = Double.infinity
                var j1 = 0
                for j in 1...m where !used[j] {
                    let current = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if current < minimum[j] {
                        minimum[j] = current
                        way[j] = j0
                    }
                    if minimum[j] < delta {
                        delta = minimum[j]
                        j1 = j
                    }
                }
                for j in 0...m {
                    if used[j] {
                        u[rowOfColumn[j]] += delta
                        v[j] -= delta
                    } else {
                        minimum[j] -= delta
                    }
                }
                j0 = j1
            } while rowOfColumn[j0] != 0
            repeat {
                let j1 = way[j0]
                rowOfColumn[j0] = rowOfColumn[j1]
                j0 = j1
            } while j0 != 0
        }
        var result = [Int?](repeating: nil, count: n)
        for j in 1...m where rowOfColumn[j] != 0 { result[rowOfColumn[j] - 1] = j - 1 }
        return result
    }
}
