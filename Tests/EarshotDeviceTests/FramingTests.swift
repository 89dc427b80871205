import EarshotDevice
import Testing

/// Frames on the wire: the CRC against published check values, the layout byte by byte, fragmentation at a BLE MTU,
/// and a reader that survives garbage, corruption and frames split anywhere.
@Suite struct FramingTests {
    /// The CRC-32 check values published for the IEEE 802.3 / zlib polynomial.
    @Test(arguments: [
        ("", 0x0000_0000 as UInt32), ("a", 0xE8B7_BE43), ("123456789", 0xCBF4_3926),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func checksumsMatchThePublishedCheckValues(text: String, expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
        var incremental = CRC32()
        for byte in text.utf8 { incremental.update([byte]) }
        #expect(incremental.value == expected)
    }

    /// CRC-8/SMBUS's published check value, and a header check that changes with every header bit.
    @Test func theHeaderCheckIsCRC8() {
        #expect(CRC8.checksum(Array("123456789".utf8)) == 0xF4)
        #expect(CRC8.checksum([]) == 0)
        let header: [UInt8] = [0xEA, 0x10, 0x02, 0x01, 0x00, 0x00, 0x00]
        let check = CRC8.checksum(header)
        for bit in 0..<(header.count * 8) {
            var flipped = header
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(CRC8.checksum(flipped) != check)
        }
    }

    @Test func aFrameIsLaidOutAsDocumented() {
        let frame = Frame(type: 0x07, flags: [.response, .more], sequence: 0x0102, payload: [0xAA, 0xBB])
        let bytes = frame.encoded()
        #expect(bytes.count == Frame.overhead + 2)
        let header: [UInt8] = [0xEA, 0x13, 0x07, 0x02, 0x01, 0x02, 0x00]
        #expect(Array(bytes.prefix(10)) == header + [CRC8.checksum(header), 0xAA, 0xBB])
        let crc = CRC32.checksum(bytes.prefix(10))
        #expect(
            Array(bytes.suffix(4)) == [
                UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24),
            ])
    }

    @Test func aMessageIsCutIntoFramesThatFitTheLinkAndPutBackTogether() throws {
        let payload = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let message = Envelope(type: 0x06, flags: .response, sequence: 42, payload: payload)
        // BLE's default ATT MTU of 23 leaves 20 bytes per notification: 8 of payload per frame.
        let frames = message.frames(maximumFrameSize: Frame.minimumSize)
        #expect(frames.count == 125)
        #expect(frames.allSatisfy { $0.encoded().count <= Frame.minimumSize })
        #expect(frames.dropLast().allSatisfy { $0.flags.contains(.more) } && !frames.last!.flags.contains(.more))
        var assembler = MessageAssembler()
        var completed: [Envelope] = []
        for frame in frames { if let whole = try assembler.add(frame) { completed.append(whole) } }
        #expect(completed == [message])
        #expect(message.frames(maximumFrameSize: 247).count == 5)  // a negotiated 247-byte MTU
        #expect(Envelope(type: 2, flags: [], sequence: 1, payload: []).frames(maximumFrameSize: 20).count == 1)
    }

    @Test func framesSplitAnywhereInTheStreamAreDecoded() throws {
        let messages = (0..<20).map { n in
            Envelope(
                type: 0x07, flags: .response, sequence: UInt16(n), payload: Array(repeating: UInt8(n), count: n * 13))
        }
        let stream = messages.flatMap { $0.encoded(maximumFrameSize: 64) }
        for piece in [1, 3, 20, 64, 1_000] {
            var decoder = FrameDecoder(maximumFrameSize: 64)
            var assembler = MessageAssembler()
            var received: [Envelope] = []
            for start in stride(from: 0, to: stream.count, by: piece) {
                decoder.append(stream[start..<min(start + piece, stream.count)])
                while let frame = try decoder.next() {
                    if let message = try assembler.add(frame) { received.append(message) }
                }
            }
            #expect(received == messages, "delivered in pieces of \(piece) bytes")
            #expect(decoder.discardedBytes == 0 && decoder.bufferedBytes == 0)
        }
    }

    @Test func garbageBeforeAFrameIsSkippedAndCounted() throws {
        var decoder = FrameDecoder()
        decoder.append([0x00, 0x13, 0x37, 0xFF])
        decoder.append(Frame(type: 2, sequence: 9).encoded())
        let frame = try #require(try decoder.next())
        #expect(frame.type == 2 && frame.sequence == 9)
        #expect(decoder.discardedBytes == 4)
    }

    @Test func aCorruptedFrameIsRefusedAndTheNextOneStillArrives() throws {
        let first = Frame(type: 7, flags: .response, sequence: 1, payload: Array(repeating: 0x55, count: 30)).encoded()
        let second = Frame(type: 7, flags: .response, sequence: 2, payload: [1, 2, 3]).encoded()
        for position in [1, 3, 5, 6, 7, 10, first.count - 1] {
            var corrupted = first
            corrupted[position] ^= 0x40
            var decoder = FrameDecoder()
            decoder.append(corrupted + second)
            var errors: [DeviceProtocolError.Code] = []
            var frames: [Frame] = []
            while true {
                do {
                    guard let frame = try decoder.next() else { break }
                    frames.append(frame)
                } catch {
                    errors.append(error.code)
                }
            }
            #expect(!errors.isEmpty, "a flipped bit at byte \(position) is noticed")
            #expect(frames.map(\.sequence) == [2], "the frame after the corrupted one (bit flipped at \(position))")
        }
    }

    @Test func aTruncatedFrameWaitsForTheRestAndAnOversizeLengthIsRefusedAtOnce() throws {
        let bytes = Frame(type: 7, sequence: 1, payload: Array(repeating: 1, count: 50)).encoded()
        var decoder = FrameDecoder()
        decoder.append(bytes.prefix(30))
        #expect(try decoder.next() == nil)
        decoder.append(bytes.dropFirst(30))
        #expect(try decoder.next()?.payload.count == 50)

        var small = FrameDecoder(maximumFrameSize: 40)
        small.append(bytes.prefix(8))  // the header alone says 62 bytes
        #expect(throws: DeviceProtocolError(.tooLarge, "a frame of 62 bytes; the limit on this link is 40")) {
            try small.next()
        }
    }

    @Test func aFrameOfAnotherLayoutVersionIsRefused() {
        var bytes = Frame(type: 1, sequence: 1).encoded()
        bytes[1] = 0x20
        bytes[7] = CRC8.checksum(bytes.prefix(7))  // a well-formed header of layout version 2
        var decoder = FrameDecoder()
        decoder.append(bytes)
        #expect {
            try decoder.next()
        } throws: { ($0 as? DeviceProtocolError)?.code == .unsupportedVersion }
    }

    @Test func aMessageCutOffByAnotherIsDroppedAndOversizeMessagesAreRefused() throws {
        var assembler = MessageAssembler(maximumMessageSize: 100)
        let long = Envelope(type: 6, flags: .response, sequence: 1, payload: Array(repeating: 1, count: 60))
        let frames = long.frames(maximumFrameSize: 40)
        #expect(try assembler.add(frames[0]) == nil)
        let other = Frame(type: 2, flags: .response, sequence: 2, payload: [7])
        #expect(try assembler.add(other)?.sequence == 2)
        #expect(assembler.droppedMessages == 1 && !assembler.isPending)

        let huge = Envelope(type: 6, flags: .response, sequence: 3, payload: Array(repeating: 1, count: 200))
        #expect {
            for frame in huge.frames(maximumFrameSize: 64) { _ = try assembler.add(frame) }
        } throws: { ($0 as? DeviceProtocolError)?.code == .tooLarge }
    }
}
