import Foundation

/// Resemblyzer's network: 3-layer unidirectional LSTM (40 → 256 → 256 → 256, PyTorch gate order i, f, g, o) whose
/// final hidden state of the last layer goes through linear 256 → 256, ReLU and L2 normalisation.
///
/// Batched on OpenBLAS: per layer one sgemm projects all time steps of all partials (X·W_ihᵀ + b_ih + b_hh), then
/// one small sgemm per time step adds h·W_hhᵀ in place (the time-t rows are addressed with a leading dimension of
/// T·1024, so nothing is copied).
struct LSTMEncoder: Sendable {
    static let hidden = 256
    static let layers = 3
    static let embedding = 256

    private struct Layer: Sendable {
        var inputSize: Int
        var weightIH: [Float]  // 1024 × inputSize
        var weightHH: [Float]  // 1024 × 256
        var bias: [Float]  // b_ih + b_hh, 1024
    }
    private let layers: [Layer]
    private let linearWeight: [Float]  // 256 × 256
    private let linearBias: [Float]

    init(weights: WeightsFile) throws(DiarizationError) {
        let h = Self.hidden, g = 4 * Self.hidden
        var layers: [Layer] = []
        for l in 0..<Self.layers {
            let input = l == 0 ? MelFrontend.melCount : h
            let bih = try weights.tensor("lstm.bias_ih_l\(l)", shape: [g])
            let bhh = try weights.tensor("lstm.bias_hh_l\(l)", shape: [g])
            layers.append(
                Layer(
                    inputSize: input,
                    weightIH: try weights.tensor("lstm.weight_ih_l\(l)", shape: [g, input]),
                    weightHH: try weights.tensor("lstm.weight_hh_l\(l)", shape: [g, h]),
                    bias: zip(bih, bhh).map { $0 + $1 }))
        }
        self.layers = layers
        linearWeight = try weights.tensor("linear.weight", shape: [Self.embedding, h])
        linearBias = try weights.tensor("linear.bias", shape: [Self.embedding])
    }

    /// Embeds `batch` partials of `steps` mel frames each (`mels`: batch × steps × 40, row-major).
    /// Returns batch × 256, each row L2-normalised.
    func forward(mels: [Float], batch: Int, steps: Int) -> [Float] {
        let h = Self.hidden, g = 4 * h
        var input = mels
        var output = [Float](repeating: 0, count: batch * steps * h)
        var gates = [Float](repeating: 0, count: batch * steps * g)
        for layer in layers {
            let rows = batch * steps
            // gates[r] = bias + x[r]·W_ihᵀ
            for r in 0..<rows {
                gates.withUnsafeMutableBufferPointer { p in
                    (p.baseAddress! + r * g).update(from: layer.bias, count: g)
                }
            }
            sgemm(
                transB: true, m: rows, n: g, k: layer.inputSize, a: input, lda: layer.inputSize, b: layer.weightIH,
                ldb: layer.inputSize, beta: 1, c: &gates, ldc: g)
            var cell = [Float](repeating: 0, count: batch * h)
            gates.withUnsafeMutableBufferPointer { gp in
                output.withUnsafeMutableBufferPointer { op in
                    let gBase = gp.baseAddress!, oBase = op.baseAddress!
                    for t in 0..<steps {
                        if t > 0 {
                            // gates[b, t] += h[b, t-1]·W_hhᵀ
                            sgemm(
                                transB: true, m: batch, n: g, k: h, a: oBase + (t - 1) * h, lda: steps * h,
                                b: layer.weightHH, ldb: h, beta: 1, c: gBase + t * g, ldc: steps * g)
                        }
                        for b in 0..<batch {
                            let row = gBase + (b * steps + t) * g
                            let out = oBase + (b * steps + t) * h
                            for j in 0..<h {
                                let i = sigmoid(row[j]), f = sigmoid(row[h + j])
                                let c = tanhf(row[2 * h + j]), o = sigmoid(row[3 * h + j])
                                let next = f * cell[b * h + j] + i * c
                                cell[b * h + j] = next
                                out[j] = o * tanhf(next)
                            }
                        }
                    }
                }
            }
            if layer.inputSize != h { input = [Float](repeating: 0, count: rows * h) }
            swap(&input, &output)
        }
        // `input` now holds the last layer's outputs; take t = steps-1 of each partial.
        var last = [Float](repeating: 0, count: batch * h)
        for b in 0..<batch {
            for j in 0..<h { last[b * h + j] = input[(b * steps + steps - 1) * h + j] }
        }
        var embeds = [Float](repeating: 0, count: batch * Self.embedding)
        for b in 0..<batch {
            for j in 0..<Self.embedding { embeds[b * Self.embedding + j] = linearBias[j] }
        }
        sgemm(
            transB: true, m: batch, n: Self.embedding, k: h, a: last, lda: h, b: linearWeight, ldb: h, beta: 1,
            c: &embeds, ldc: Self.embedding)
        for b in 0..<batch {
            var norm: Float = 0
            for j in 0..<Self.embedding {
                let v = max(0, embeds[b * Self.embedding + j])
                embeds[b * Self.embedding + j] = v
                norm += v * v
            }
            norm = norm.squareRoot()
            if norm > 0 { for j in 0..<Self.embedding { embeds[b * Self.embedding + j] /= norm } }
        }
        return embeds
    }
}

@inline(__always) private func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
