public import Foundation

/// The few RIFF/WAVE operations tests need on 16-bit PCM files they build (synthesised dialogues, a long clip made
/// of a short one). Tests only; production reading and writing is EarshotAudio's.
public enum TestWAV {
    /// The bodies of the `fmt ` and `data` chunks. A `data` size that runs past the end of the file (espeak-ng
    /// writing to a file leaves its streaming placeholder) stops at the end of the file.
    public static func chunks(of wav: Data) -> (format: Data, data: Data) {
        let bytes = [UInt8](wav)
        var offset = 12
        var format = Data()
        var data = Data()
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = min(littleEndian(bytes, at: offset + 4), bytes.count - offset - 8)
            let body = Data(bytes[(offset + 8)..<(offset + 8 + size)])
            if id == "fmt " { format = body }
            if id == "data" { data = body }
            offset += 8 + size + (size & 1)
        }
        return (format, data)
    }

    /// The sample rate in a `fmt ` chunk body.
    public static func sampleRate(of format: Data) -> Int { littleEndian([UInt8](format), at: 4) }

    /// A WAV file of a `fmt ` chunk body and PCM `data`.
    public static func file(format: Data, data: Data) -> Data {
        func le32(_ value: Int) -> Data { withUnsafeBytes(of: UInt32(value).littleEndian) { Data($0) } }
        var wav = Data("RIFF".utf8) + le32(4 + 8 + format.count + 8 + data.count) + Data("WAVE".utf8)
        wav += Data("fmt ".utf8) + le32(format.count) + format
        wav += Data("data".utf8) + le32(data.count) + data
        return wav
    }

    /// `wav`'s audio `times` times in a row, as one WAV (a decode long enough to revoke or kill midway).
    public static func repeating(_ wav: Data, times: Int) -> Data {
        let (format, data) = chunks(of: wav)
        var repeated = Data()
        for _ in 0..<times { repeated.append(data) }
        return file(format: format, data: repeated)
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
}
