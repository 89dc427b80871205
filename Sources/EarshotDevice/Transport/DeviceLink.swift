/// What carries the protocol's frames between a client and a device: a TCP stream (``StreamSocket``), a BLE GATT
/// link (the SDK's CoreBluetooth transport), a serial line.
///
/// A ``DeviceConnection`` runs one reader thread that calls ``receive(maximum:)`` in a loop, and sends from any
/// task. Implementations must be thread-safe: ``send(_:)`` and ``close()`` may be called from any thread while
/// ``receive(maximum:)`` blocks on another.
public protocol DeviceLink: AnyObject, Sendable {
    /// Sends whole frames, back to back (a link that carries one frame per write, like BLE, splits them with
    /// ``Frame/split(_:)``).
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` when the link is gone.
    func send(_ bytes: [UInt8]) throws(DeviceProtocolError)
    /// Waits for bytes and returns at most `maximum` of them; empty when the link closed.
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` on a reset.
    func receive(maximum: Int) throws(DeviceProtocolError) -> [UInt8]
    /// Closes the link; wakes a blocked ``receive(maximum:)``.
    func close()
}

extension StreamSocket: DeviceLink {}

extension Frame {
    /// Cuts encoded frames sent back to back into single frames by their length fields (for links that carry one
    /// frame per write, such as a BLE characteristic). Bytes after the last whole frame are returned as a last,
    /// short element, so nothing is silently dropped.
    public static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            guard bytes.count - start >= 8 else { break }
            let length = Int(bytes[start + 5]) | Int(bytes[start + 6]) << 8
            let end = start + length + overhead
            guard end <= bytes.count else { break }
            frames.append(Array(bytes[start..<end]))
            start = end
        }
        if start < bytes.count { frames.append(Array(bytes[start...])) }
        return frames
    }
}
