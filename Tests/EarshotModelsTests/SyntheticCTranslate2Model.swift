import Foundation

/// Writes a tiny but complete CTranslate2 Whisper model (binary version 6, WhisperSpec revision 3) the way
/// CTranslate2 lays it out, so the converter can be tested without 150 MB of weights.
///
/// Every float variable holds `0, 1, 2, …, 255, 0, 1, …` (as float16, float32 or bfloat16 per `dataType`; exact
/// in all three), so a test can tell which slice of a fused projection ended up in which output tensor.
struct SyntheticCTranslate2Model {
    var state = 4
    var heads = 2
    var mels = 80
    var audioContext = 6
    var textContext = 5
    var encoderLayers = 1
    var decoderLayers = 1
    /// CTranslate2 dtype of the float variables: 4 float16, 0 float32, 5 bfloat16.
    var dataType: UInt8 = 4
    var spec = "WhisperSpec"
    var revision: UInt32 = 3
    var binaryVersion: UInt32 = 6
    /// Byte-level BPE tokens, then the special tokens.
    var vocabulary = ["!", "Ġa", "ĠÃ©", "Ċ", "", "<|endoftext|>", "<|startoftranscript|>"]

    struct Variable {
        let name: String
        let shape: [Int]
        let type: UInt8
        let data: [UInt8]
    }

    func floats(_ name: String, _ shape: [Int]) -> Variable {
        let count = shape.reduce(1, *)
        var data: [UInt8] = []
        for k in 0..<count {
            let value = Float(k % 256)
            switch dataType {
            case 0: withUnsafeBytes(of: value.bitPattern.littleEndian) { data += $0 }
            case 1: data.append(UInt8(k % 128))
            case 5: withUnsafeBytes(of: UInt16(value.bitPattern >> 16).littleEndian) { data += $0 }
            default: withUnsafeBytes(of: Float16(value).bitPattern.littleEndian) { data += $0 }
            }
        }
        return Variable(name: name, shape: shape, type: dataType, data: data)
    }

    func int16(_ name: String, _ value: Int16) -> Variable {
        Variable(name: name, shape: [], type: 2, data: withUnsafeBytes(of: value.littleEndian) { Array($0) })
    }

    func int8(_ name: String, _ value: Int8) -> Variable {
        Variable(name: name, shape: [], type: 1, data: [UInt8(bitPattern: value)])
    }

    var variables: [Variable] {
        let n = state
        var list: [Variable] = [
            int8("decoder/activation", 3), int16("decoder/num_heads", Int16(heads)),
            floats("decoder/embeddings/weight", [vocabulary.count, n]),
            floats("decoder/position_encodings/encodings", [textContext, n]),
            floats("decoder/layer_norm/gamma", [n]), floats("decoder/layer_norm/beta", [n]),
            floats("encoder/conv1/weight", [n, mels, 3]), floats("encoder/conv1/bias", [n]),
            floats("encoder/conv2/weight", [n, n, 3]), floats("encoder/conv2/bias", [n]),
            floats("encoder/position_encodings/encodings", [audioContext, n]),
            floats("encoder/layer_norm/gamma", [n]), floats("encoder/layer_norm/beta", [n]),
            int16("encoder/num_heads", Int16(heads)),
        ]
        func linear(_ prefix: String, _ rows: Int, _ columns: Int) -> [Variable] {
            [floats("\(prefix)/weight", [rows, columns]), floats("\(prefix)/bias", [rows])]
        }
        func norm(_ prefix: String) -> [Variable] {
            [floats("\(prefix)/gamma", [n]), floats("\(prefix)/beta", [n])]
        }
        for side in ["encoder", "decoder"] {
            for i in 0..<(side == "encoder" ? encoderLayers : decoderLayers) {
                let p = "\(side)/layer_\(i)"
                list += linear("\(p)/self_attention/linear_0", 3 * n, n) + linear("\(p)/self_attention/linear_1", n, n)
                list += norm("\(p)/self_attention/layer_norm")
                list += linear("\(p)/ffn/linear_0", 4 * n, n) + linear("\(p)/ffn/linear_1", n, 4 * n)
                list += norm("\(p)/ffn/layer_norm")
                if side == "decoder" {
                    list += linear("\(p)/attention/linear_0", n, n) + linear("\(p)/attention/linear_1", 2 * n, n)
                    list += linear("\(p)/attention/linear_2", n, n) + norm("\(p)/attention/layer_norm")
                }
            }
        }
        return list.sorted { $0.name < $1.name }
    }

    /// The `model.bin` bytes.
    var modelBinary: [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func string(_ s: String) {
            let bytes = Array(s.utf8) + [0]
            withUnsafeBytes(of: UInt16(bytes.count).littleEndian) { out += $0 }
            out += bytes
        }
        u32(binaryVersion)
        string(spec)
        u32(revision)
        let vars = variables
        u32(UInt32(vars.count))
        for v in vars {
            string(v.name)
            out.append(UInt8(v.shape.count))
            for d in v.shape { u32(UInt32(d)) }
            out.append(v.type)
            u32(UInt32(v.data.count))
            out += v.data
        }
        u32(1)
        string("decoder/projection/weight")
        string("decoder/embeddings/weight")
        return out
    }

    /// Writes `model.bin`, `vocabulary.txt` and a `config.json` into a new temporary directory.
    func write() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ct2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(modelBinary).write(to: directory.appendingPathComponent("model.bin"))
        try Data((vocabulary.joined(separator: "\n") + "\n").utf8).write(
            to: directory.appendingPathComponent("vocabulary.txt"))
        try Data("{}".utf8).write(to: directory.appendingPathComponent("config.json"))
        return directory
    }
}
