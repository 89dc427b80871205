/// The exact shell command that turns any audio file into the fully compliant input (16 kHz, 16-bit, mono
/// integer-PCM WAV), quoted for a POSIX shell. Error messages and WAV inspection results carry it.
public enum ConversionCommand {
    /// `ffmpeg -i '<input>' -ar 16000 -ac 1 -c:a pcm_s16le '<output>'`; the output defaults to the input's name
    /// with `-16k.wav` in place of its extension, next to it.
    public static func toCompliantWAV(input: String, output: String? = nil) -> String {
        "ffmpeg -i \(shellQuoted(input)) -ar 16000 -ac 1 -c:a pcm_s16le \(shellQuoted(output ?? defaultOutput(input)))"
    }

    static func defaultOutput(_ input: String) -> String {
        let slash = input.lastIndex(of: "/")
        let nameStart = slash.map { input.index(after: $0) } ?? input.startIndex
        let name = input[nameStart...]
        let stem = name.lastIndex(of: ".").map { name[..<$0] } ?? name
        return String(input[..<nameStart]) + (stem.isEmpty ? "audio" : String(stem)) + "-16k.wav"
    }

    /// Leaves plain paths as they are; single-quotes anything else (`'` becomes `'\''`).
    static func shellQuoted(_ value: String) -> String {
        let plain = value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:@%,=".contains($0)) }
        if plain && !value.isEmpty { return value }
        return "'" + value.map { $0 == "'" ? "'\\''" : String($0) }.joined() + "'"
    }
}
