/// The message types. A response carries its request's type; events share one type and name their kind inside.
/// The numbers are part of the protocol (`docs/device-protocol.md`): never renumber.
public enum Opcode: UInt8, CaseIterable, Sendable {
    /// Version and frame-size negotiation, the device's identity and an authentication challenge.
    case hello = 0x01
    /// Battery, storage, recording count, whether bound and recording.
    case info = 0x02
    /// Bind with the one-time code the device shows; answered with the binding secret.
    case bind = 0x03
    /// Prove ownership: HMAC-SHA256 of the session's challenge under the binding secret.
    case authenticate = 0x04
    /// Forget the owner, optionally erasing every recording.
    case unbind = 0x05
    /// A page of recordings.
    case list = 0x06
    /// Bytes of a recording from an offset, answered by one or more chunks.
    case read = 0x07
    /// The server has a recording (by its SHA-256): the device may free it.
    case acknowledge = 0x08
    /// Wi-Fi handover: upload a recording straight to the platform with the given plan.
    case upload = 0x09
    /// Start or stop recording (a device's button, or the app).
    case record = 0x0A
    /// Wi-Fi handover of several recordings at once (protocol version 2): the device queues the plans and uploads
    /// them one after another, reporting each like an `upload`.
    case uploadBatch = 0x0B
    /// Sent by the device unasked (recording started/stopped, storage levels, battery, upload progress).
    case event = 0x20
}

/// Audio formats a device stores.
public enum AudioCodec: UInt8, Sendable, CaseIterable {
    /// Opus in Ogg (RFC 7845), 16 kHz mono: what a device records by default.
    case opus = 1
    /// 16-bit PCM WAV.
    case wav = 2

    /// The file extension the platform expects for it.
    public var fileExtension: String {
        switch self {
        case .opus: "ogg"
        case .wav: "wav"
        }
    }
}
