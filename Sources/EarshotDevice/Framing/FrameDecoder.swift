/// Turns a byte stream (or a series of BLE notifications) into frames, checking each one's CRC.
///
/// Feed whatever arrived with ``append(_:)``, then call ``next()`` until it returns nil (more bytes needed). A bad
/// frame — a header or frame CRC that does not match, another layout version, a length over the limit — throws, and
/// the decoder resynchronises at the next magic byte, so one corrupted frame never costs the frames after it. The
/// header's own check byte means a corrupted length is caught at once rather than waited for. Bytes before a magic byte are
/// skipped and counted in ``discardedBytes``.
public struct FrameDecoder: Sendable {
    /// The largest frame accepted, header and CRC included; larger lengths are refused without waiting for them.
    public var maximumFrameSize: Int
    /// Bytes skipped while looking for a frame start (garbage, or the rest of a corrupted frame).
    public private(set) var discardedBytes = 0

    private var buffer: [UInt8] = []
    private var start = 0

    /// A decoder accepting frames of up to `maximumFrameSize` bytes.
    public init(maximumFrameSize: Int = Frame.maximumSize) {
        self.maximumFrameSize = min(max(maximumFrameSize, Frame.minimumSize), Frame.maximumSize)
    }

    /// Bytes received and not yet part of a returned frame.
    public var bufferedBytes: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    ///
    /// - Throws: ``DeviceProtocolError`` — `badChecksum`, `unsupportedVersion` or `tooLarge` — for a bad frame,
    ///   which is dropped; call again for the frames after it.
    public mutating func next() throws(DeviceProtocolError) -> Frame? {
        while true {
            skipToMagic()
            guard bufferedBytes >= Frame.headerSize else { return nil }
            let header = start
            guard CRC8.checksum(buffer[header..<header + 7]) == buffer[header + 7] else {
                dropMagic()
                throw DeviceProtocolError(.badChecksum, "a frame header's check byte does not match")
            }
            let version = buffer[header + 1] >> 4
            let length = Int(buffer[header + 5]) | Int(buffer[header + 6]) << 8
            let size = Frame.overhead + length
            if version != Frame.version {
                dropMagic()
                throw DeviceProtocolError(
                    .unsupportedVersion, "a frame of layout version \(version); this side speaks \(Frame.version)")
            }
            if size > maximumFrameSize {
                dropMagic()
                throw DeviceProtocolError(
                    .tooLarge, "a frame of \(size) bytes; the limit on this link is \(maximumFrameSize)")
            }
            guard bufferedBytes >= size else { return nil }
            let body = buffer[header..<header + Frame.headerSize + length]
            let tail = header + Frame.headerSize + length
            let sent =
                UInt32(buffer[tail]) | UInt32(buffer[tail + 1]) << 8 | UInt32(buffer[tail + 2]) << 16
                | UInt32(buffer[tail + 3]) << 24
            guard CRC32.checksum(body) == sent else {
                dropMagic()
                throw DeviceProtocolError(.badChecksum, "a frame's CRC-32 does not match its \(size) bytes")
            }
            let frame = Frame(
                type: buffer[header + 2], flags: Frame.Flags(rawValue: buffer[header + 1]),
                sequence: UInt16(buffer[header + 3]) | UInt16(buffer[header + 4]) << 8,
                payload: Array(buffer[header + Frame.headerSize..<tail]))
            start += size
            return frame
        }
    }

    private mutating func skipToMagic() {
        let found = buffer[start...].firstIndex(of: Frame.magic) ?? buffer.count
        discardedBytes += found - start
        start = found
    }

    /// Steps past a bad frame's magic byte so the search resumes inside it: its length may be the corrupted part.
    private mutating func dropMagic() {
        start += 1
        discardedBytes += 1
    }
}
