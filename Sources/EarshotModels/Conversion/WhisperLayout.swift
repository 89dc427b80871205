/// How a CTranslate2 `WhisperSpec` (revision 3) maps onto whisper.cpp's tensors.
///
/// CTranslate2 name → OpenAI/whisper.cpp name (per layer `i`):
///
/// | CTranslate2 | ggml |
/// |---|---|
/// | `encoder/position_encodings/encodings` | `encoder.positional_embedding` (f32) |
/// | `encoder/conv{1,2}/{weight,bias}` | `encoder.conv{1,2}.{weight,bias}` (bias as `[n, 1]`, f32) |
/// | `…/layer_i/self_attention/linear_0` (fused q,k,v rows) | `…blocks.i.attn.{query,key,value}` |
/// | `…/layer_i/self_attention/linear_1` | `…blocks.i.attn.out` |
/// | `…/layer_i/self_attention/layer_norm/{gamma,beta}` | `…blocks.i.attn_ln.{weight,bias}` |
/// | `decoder/layer_i/attention/linear_0` | `decoder.blocks.i.cross_attn.query` |
/// | `decoder/layer_i/attention/linear_1` (fused k,v rows) | `decoder.blocks.i.cross_attn.{key,value}` |
/// | `decoder/layer_i/attention/linear_2` | `decoder.blocks.i.cross_attn.out` |
/// | `decoder/layer_i/attention/layer_norm` | `decoder.blocks.i.cross_attn_ln` |
/// | `…/layer_i/ffn/linear_{0,1}`, `ffn/layer_norm` | `…blocks.i.mlp.{0,2}`, `mlp_ln` |
/// | `encoder/layer_norm`, `decoder/layer_norm` | `encoder.ln_post`, `decoder.ln` |
/// | `decoder/embeddings/weight` | `decoder.token_embedding.weight` |
/// | `decoder/position_encodings/encodings` | `decoder.positional_embedding` (f32) |
struct WhisperLayout {
    static let spec = "WhisperSpec"
    static let specRevision: UInt32 = 3

    let model: CTranslate2Model
    let hyperparameters: WhisperHyperparameters

    init(model: CTranslate2Model) throws(ModelError) {
        guard model.spec == Self.spec else {
            throw ModelError(
                .unsupportedModel,
                "\(model.path) is a CTranslate2 \(model.spec) model; only Whisper models (WhisperSpec) can be converted"
            )
        }
        guard model.specRevision == Self.specRevision else {
            throw ModelError(
                .unsupportedModel,
                "\(model.path): WhisperSpec revision \(model.specRevision) is not supported (supported: "
                    + "\(Self.specRevision)); re-export the model with ct2-transformers-converter 4.x")
        }
        self.model = model
        let tokens = try model.require("decoder/embeddings/weight")
        let conv1 = try model.require("encoder/conv1/weight")
        let audioPositions = try model.require("encoder/position_encodings/encodings")
        let textPositions = try model.require("decoder/position_encodings/encodings")
        guard tokens.shape.count == 2, conv1.shape.count == 3, audioPositions.shape.count == 2,
            textPositions.shape.count == 2
        else { throw ModelError(.malformedModel, "\(model.path): unexpected embedding or convolution shapes") }
        func layers(_ prefix: String) -> Int {
            var count = 0
            while model.variable("\(prefix)/layer_\(count)/ffn/linear_0/weight") != nil { count += 1 }
            return count
        }
        hyperparameters = WhisperHyperparameters(
            vocabularySize: tokens.shape[0], audioContext: audioPositions.shape[0], audioState: conv1.shape[0],
            audioHeads: try model.scalar("encoder/num_heads"), audioLayers: layers("encoder"),
            textContext: textPositions.shape[0], textState: tokens.shape[1],
            textHeads: try model.scalar("decoder/num_heads"), textLayers: layers("decoder"),
            melCount: conv1.shape[1])
        guard hyperparameters.audioLayers > 0, hyperparameters.textLayers > 0,
            hyperparameters.audioState == hyperparameters.textState
        else { throw ModelError(.malformedModel, "\(model.path): inconsistent Whisper dimensions \(hyperparameters)") }
        for variable in model.variables.values where variable.shape.count >= 2 {
            guard [.float16, .float32, .bfloat16].contains(variable.dataType) else {
                throw ModelError(
                    .unsupportedModel,
                    "\(model.path): \(variable.name) is \(variable.dataType); only float16/float32/bfloat16 models "
                        + "can be converted — re-export with `ct2-transformers-converter --quantization float16`")
            }
        }
    }

    /// Every output tensor, in the OpenAI checkpoint's order.
    func tensors() -> [TensorPlan] {
        let h = hyperparameters
        let n = h.audioState
        var plan: [TensorPlan] = []
        func add(_ name: String, _ source: String, shape: [Int], rowOffset: Int = 0, f32: Bool = false) {
            let variable = model.variable(source)!
            let rowLength = variable.shape.count > 1 ? variable.shape.dropFirst().reduce(1, *) : 1
            plan.append(
                TensorPlan(
                    name: name, shape: shape, source: variable, elementOffset: rowOffset * rowLength,
                    outputIsFloat32: f32 || shape.count < 2))
        }
        func linear(_ name: String, _ source: String, rows: Int, columns: Int, rowOffset: Int = 0, bias: Bool = true) {
            add("\(name).weight", "\(source)/weight", shape: [rows, columns], rowOffset: rowOffset)
            if bias { add("\(name).bias", "\(source)/bias", shape: [rows], rowOffset: rowOffset) }
        }
        func layerNorm(_ name: String, _ source: String) {
            add("\(name).weight", "\(source)/gamma", shape: [n])
            add("\(name).bias", "\(source)/beta", shape: [n])
        }
        func selfAttention(_ name: String, _ source: String) {
            linear("\(name).attn.query", "\(source)/self_attention/linear_0", rows: n, columns: n)
            linear(
                "\(name).attn.key", "\(source)/self_attention/linear_0", rows: n, columns: n, rowOffset: n, bias: false)
            linear("\(name).attn.value", "\(source)/self_attention/linear_0", rows: n, columns: n, rowOffset: 2 * n)
            linear("\(name).attn.out", "\(source)/self_attention/linear_1", rows: n, columns: n)
            layerNorm("\(name).attn_ln", "\(source)/self_attention/layer_norm")
        }
        func feedForward(_ name: String, _ source: String) {
            linear("\(name).mlp.0", "\(source)/ffn/linear_0", rows: 4 * n, columns: n)
            linear("\(name).mlp.2", "\(source)/ffn/linear_1", rows: n, columns: 4 * n)
            layerNorm("\(name).mlp_ln", "\(source)/ffn/layer_norm")
        }

        add(
            "encoder.positional_embedding", "encoder/position_encodings/encodings", shape: [h.audioContext, n],
            f32: true)
        add("encoder.conv1.weight", "encoder/conv1/weight", shape: [n, h.melCount, 3])
        add("encoder.conv1.bias", "encoder/conv1/bias", shape: [n, 1], f32: true)
        add("encoder.conv2.weight", "encoder/conv2/weight", shape: [n, n, 3])
        add("encoder.conv2.bias", "encoder/conv2/bias", shape: [n, 1], f32: true)
        for i in 0..<h.audioLayers {
            selfAttention("encoder.blocks.\(i)", "encoder/layer_\(i)")
            feedForward("encoder.blocks.\(i)", "encoder/layer_\(i)")
        }
        layerNorm("encoder.ln_post", "encoder/layer_norm")

        add(
            "decoder.positional_embedding", "decoder/position_encodings/encodings", shape: [h.textContext, n], f32: true
        )
        add("decoder.token_embedding.weight", "decoder/embeddings/weight", shape: [h.vocabularySize, n])
        for i in 0..<h.textLayers {
            let name = "decoder.blocks.\(i)"
            let source = "decoder/layer_\(i)"
            selfAttention(name, source)
            linear("\(name).cross_attn.query", "\(source)/attention/linear_0", rows: n, columns: n)
            linear("\(name).cross_attn.key", "\(source)/attention/linear_1", rows: n, columns: n, bias: false)
            linear("\(name).cross_attn.value", "\(source)/attention/linear_1", rows: n, columns: n, rowOffset: n)
            linear("\(name).cross_attn.out", "\(source)/attention/linear_2", rows: n, columns: n)
            layerNorm("\(name).cross_attn_ln", "\(source)/attention/layer_norm")
            feedForward(name, source)
        }
        layerNorm("decoder.ln", "decoder/layer_norm")
        return plan
    }

    /// Checks that every variable the plan reads exists with enough elements (before anything is written).
    func validate() throws(ModelError) {
        _ = try requiredNames().map { (name) throws(ModelError) in try model.require(name) }
    }

    private func requiredNames() -> [String] {
        var names = [
            "encoder/layer_norm/gamma", "encoder/layer_norm/beta", "decoder/layer_norm/gamma",
            "decoder/layer_norm/beta", "encoder/conv1/bias", "encoder/conv2/weight", "encoder/conv2/bias",
        ]
        for i in 0..<hyperparameters.audioLayers {
            for part in ["self_attention/linear_0", "self_attention/linear_1", "ffn/linear_0", "ffn/linear_1"] {
                names += ["encoder/layer_\(i)/\(part)/weight", "encoder/layer_\(i)/\(part)/bias"]
            }
            for norm in ["self_attention/layer_norm", "ffn/layer_norm"] {
                names += ["encoder/layer_\(i)/\(norm)/gamma", "encoder/layer_\(i)/\(norm)/beta"]
            }
        }
        for i in 0..<hyperparameters.textLayers {
            for part in [
                "self_attention/linear_0", "self_attention/linear_1", "attention/linear_0", "attention/linear_1",
                "attention/linear_2", "ffn/linear_0", "ffn/linear_1",
            ] { names += ["decoder/layer_\(i)/\(part)/weight", "decoder/layer_\(i)/\(part)/bias"] }
            for norm in ["self_attention/layer_norm", "attention/layer_norm", "ffn/layer_norm"] {
                names += ["decoder/layer_\(i)/\(norm)/gamma", "decoder/layer_\(i)/\(norm)/beta"]
            }
        }
        return names
    }
}
