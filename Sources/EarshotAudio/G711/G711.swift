/// G.711 (ITU-T, 1972): telephone audio at 8 kHz, one byte per sample, μ-law (North America, Japan) or A-law
/// (elsewhere). The OpenAI Realtime API's `g711_ulaw` / `g711_alaw` (`audio/pcmu` / `audio/pcma`) formats, as a
/// telephony bridge (Twilio, SIP) sends and expects them.
///
/// Decoding is the standard expansion (μ-law's bias 0x84, A-law's even-bit inversion 0x55); encoding truncates to
/// the level below, as the reference encoder does.
public enum G711: String, Sendable, CaseIterable {
    case muLaw
    case aLaw

    /// The sample rate G.711 carries.
    public static let sampleRate = 8_000

    /// 16-bit samples from G.711 bytes (one each).
    public func decode(_ bytes: some Sequence<UInt8>) -> [Int16] {
        let table = self == .muLaw ? Self.muLawTable : Self.aLawTable
        return bytes.map { table[Int($0)] }
    }

    /// G.711 bytes from 16-bit samples (one each).
    public func encode(_ samples: some Sequence<Int16>) -> [UInt8] {
        self == .muLaw ? samples.map(Self.muLaw) : samples.map(Self.aLaw)
    }

    private static let muLawTable: [Int16] = (0..<256).map { index in
        let byte = ~UInt8(index)
        let exponent = Int(byte >> 4) & 0x07
        let magnitude = ((Int(byte & 0x0F) << 3) + 0x84) << exponent
        return Int16(byte & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    private static let aLawTable: [Int16] = (0..<256).map { index in
        let byte = UInt8(index) ^ 0x55
        let exponent = Int(byte >> 4) & 0x07
        let mantissa = Int(byte & 0x0F)
        let magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
        return Int16(byte & 0x80 != 0 ? magnitude : -magnitude)
    }

    // The encoders follow the reference C code (Sun Microsystems' g711.c, as CPython's audioop and SoX use it):
    // μ-law on 14-bit magnitudes with a bias of 33, A-law on 13-bit ones; ``G711Tests`` compares every 16-bit value
    // with audioop.
    private static func muLaw(_ sample: Int16) -> UInt8 {
        var value = Int(sample) >> 2
        let mask: UInt8 = value < 0 ? 0x7F : 0xFF
        if value < 0 { value = -value }
        value = min(value, 8_159) + 33
        let segment = segment(of: value, ends: [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF])
        guard segment < 8 else { return 0x7F ^ mask }
        return UInt8(segment << 4 | (value >> (segment + 1)) & 0x0F) ^ mask
    }

    private static func aLaw(_ sample: Int16) -> UInt8 {
        var value = Int(sample) >> 3
        let mask: UInt8 = value >= 0 ? 0xD5 : 0x55
        if value < 0 { value = -value - 1 }
        let segment = segment(of: value, ends: [0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF])
        guard segment < 8 else { return 0x7F ^ mask }
        return UInt8(segment << 4 | (value >> (segment < 2 ? 1 : segment)) & 0x0F) ^ mask
    }

    /// The first segment whose end is at least `value`, or 8.
    private static func segment(of value: Int, ends: [Int]) -> Int {
        ends.firstIndex { value <= $0 } ?? 8
    }
}
