/// The protocol versions `hello` negotiates (`docs/device-protocol.md`): both sides speak the newest version in both
/// of their ranges.
public enum ProtocolVersion {
    /// The first version: every operation but `upload batch`.
    public static let first: UInt8 = 1
    /// Adds `upload batch` (op `0x0B`): several recordings' Wi-Fi plans in one message, queued by the device.
    public static let uploadBatch: UInt8 = 2
    /// The newest version this library speaks.
    public static let newest: UInt8 = 2
}
