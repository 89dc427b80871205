import EarshotHTTP
import Testing

/// The frame codec against RFC 6455's own examples (section 5.7) and the rules of sections 5.2–5.5 and 7.4.
@Suite struct WebSocketCodecTests {
    static let hello = Array("Hello".utf8)
    static let maskedHello: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]

    static func frames(_ bytes: [UInt8], role: WebSocketFrameParser.Role, max: Int = 1 << 20)
        throws(WebSocketViolation) -> [WebSocketFrame]
    {
        var parser = WebSocketFrameParser(role: role, maxFramePayload: max)
        parser.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try parser.next() { frames.append(frame) }
        return frames
    }

    @Test func singleFrameUnmaskedTextMessage() throws {
        let wire: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(try Self.frames(wire, role: .client) == [WebSocketFrame(opcode: .text, payload: Self.hello)])
        #expect(WebSocketFrame(opcode: .text, payload: Self.hello).encoded() == wire)
    }

    @Test func singleFrameMaskedTextMessage() throws {
        #expect(try Self.frames(Self.maskedHello, role: .server) == [WebSocketFrame(opcode: .text, payload: Self.hello)])
        let encoded = WebSocketFrame(opcode: .text, payload: Self.hello).encoded(maskingKey: [0x37, 0xfa, 0x21, 0x3d])
        #expect(encoded == Self.maskedHello)
    }

    @Test func fragmentedUnmaskedTextMessage() throws {
        let wire: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]
        let frames = try Self.frames(wire, role: .client)
        #expect(frames.map(\.fin) == [false, true])
        #expect(frames.map(\.opcode) == [.text, .continuation])
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        #expect(try assembler.push(frames[0]) == nil)
        #expect(try assembler.push(frames[1]) == .message(.text("Hello")))
    }

    @Test func pingAndMaskedPong() throws {
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(try Self.frames(ping, role: .client) == [WebSocketFrame(opcode: .ping, payload: Self.hello)])
        let pong: [UInt8] = [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(try Self.frames(pong, role: .server) == [WebSocketFrame(opcode: .pong, payload: Self.hello)])
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        #expect(try assembler.push(WebSocketFrame(opcode: .ping, payload: Self.hello)) == .ping(Self.hello))
    }

    @Test(arguments: [(256, [0x82, 0x7E, 0x01, 0x00] as [UInt8]), (65536, [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])])
    func extendedLengths(count: Int, header: [UInt8]) throws {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let wire = WebSocketFrame(opcode: .binary, payload: payload).encoded()
        #expect(Array(wire.prefix(header.count)) == header)
        #expect(wire.count == header.count + count)
        #expect(try Self.frames(wire, role: .client) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }

    @Test func framesArriveByteByByte() throws {
        var parser = WebSocketFrameParser(role: .server, maxFramePayload: 100)
        var frames: [WebSocketFrame] = []
        for byte in Self.maskedHello + Self.maskedHello {
            parser.append([byte])
            while let frame = try parser.next() { frames.append(frame) }
        }
        #expect(frames.count == 2)
        #expect(frames.allSatisfy { $0.payload == Self.hello })
    }

    @Test func unmaskedClientFrameIsAProtocolError() {
        #expect(throws: WebSocketViolation.self) { try Self.frames([0x81, 0x05] + Self.hello, role: .server) }
        #expect(Self.violation([0x81, 0x05] + Self.hello, role: .server)?.code == .protocolError)
        #expect(Self.violation(Self.maskedHello, role: .client)?.code == .protocolError)
    }

    @Test func reservedBitsOpcodesAndLongControlFramesAreProtocolErrors() {
        let masked: (UInt8, [UInt8]) -> [UInt8] = { first, payload in
            var frame = WebSocketFrame(opcode: .init(rawValue: first & 0x0F), payload: payload)
            frame.fin = first & 0x80 != 0
            var wire = frame.encoded(maskingKey: [1, 2, 3, 4])
            wire[0] = first
            return wire
        }
        #expect(Self.violation(masked(0xC1, Self.hello), role: .server)?.code == .protocolError)  // RSV1
        #expect(Self.violation(masked(0x83, Self.hello), role: .server)?.code == .protocolError)  // opcode 3
        #expect(Self.violation(masked(0x09, Self.hello), role: .server)?.code == .protocolError)  // fragmented ping
        let long = Array(repeating: UInt8(0x61), count: 126)
        #expect(Self.violation(masked(0x89, long), role: .server)?.code == .protocolError)
        // A 64-bit length with its most significant bit set.
        #expect(Self.violation([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1], role: .server)?.code == .protocolError)
    }

    @Test func anOversizedFrameIsRefusedFromItsHeader() {
        // Only the header has arrived: the limit is enforced before the payload is buffered.
        let header: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0, 0x40, 0, 0, 0]
        #expect(Self.violation(header, role: .server, max: 1 << 20)?.code == .messageTooBig)
    }

    @Test func fragmentRulesAndMessageLimit() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 8)
        #expect(throws: WebSocketViolation(.protocolError, "a continuation frame without a message to continue")) {
            try assembler.push(WebSocketFrame(opcode: .continuation, payload: [1]))
        }
        #expect(try assembler.push(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3])) == nil)
        // A control frame may come between fragments.
        #expect(try assembler.push(WebSocketFrame(opcode: .ping)) == .ping([]))
        let newMessage = Self.assemblerViolation(&assembler, WebSocketFrame(opcode: .text, payload: [0x61]))
        #expect(newMessage?.code == .protocolError)
        var small = WebSocketMessageAssembler(maxMessageSize: 8)
        _ = try small.push(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3, 4, 5]))
        let tooBig = Self.assemblerViolation(&small, WebSocketFrame(opcode: .continuation, payload: [6, 7, 8, 9]))
        #expect(tooBig?.code == .messageTooBig)
    }

    @Test func invalidUTF8IsAnInvalidPayload() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        let bad = Self.assemblerViolation(&assembler, WebSocketFrame(opcode: .text, payload: [0xCE, 0xBA, 0xE1, 0xBD]))
        #expect(bad?.code == .invalidPayload)
        // Valid UTF-8 split inside a character across two fragments is fine.
        var split = WebSocketMessageAssembler(maxMessageSize: 100)
        #expect(try split.push(WebSocketFrame(fin: false, opcode: .text, payload: [0xCE, 0xBA, 0xE1])) == nil)
        #expect(try split.push(WebSocketFrame(opcode: .continuation, payload: [0xBD, 0xB9])) == .message(.text("κό")))
    }

    @Test func closeFramesCarryACodeAndAUTF8Reason() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        let close = WebSocketFrame.close(.goingAway, reason: "bye")
        #expect(close.payload == [0x03, 0xE9] + Array("bye".utf8))
        #expect(try assembler.push(close) == .close(.goingAway, "bye"))
        #expect(try assembler.push(WebSocketFrame(opcode: .close)) == .close(nil, ""))
        let one = Self.assemblerViolation(&assembler, WebSocketFrame(opcode: .close, payload: [0x03]))
        #expect(one?.code == .protocolError)
        let reserved = Self.assemblerViolation(&assembler, WebSocketFrame(opcode: .close, payload: [0x03, 0xED]))
        #expect(reserved?.code == .protocolError)  // 1005 may not be sent
        let badReason = Self.assemblerViolation(&assembler, WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF]))
        #expect(badReason?.code == .invalidPayload)
        // A long reason is cut on a character boundary to fit the 125-byte control-frame limit.
        let long = WebSocketFrame.close(.normal, reason: String(repeating: "é", count: 100))
        #expect(long.payload.count <= 125)
        #expect(String(validating: long.payload.dropFirst(2), as: UTF8.self) != nil)
    }

    static func violation(_ bytes: [UInt8], role: WebSocketFrameParser.Role, max: Int = 1 << 20)
        -> WebSocketViolation?
    {
        do throws(WebSocketViolation) {
            _ = try frames(bytes, role: role, max: max)
            return nil
        } catch {
            return error
        }
    }

    static func assemblerViolation(_ assembler: inout WebSocketMessageAssembler, _ frame: WebSocketFrame)
        -> WebSocketViolation?
    {
        do throws(WebSocketViolation) {
            _ = try assembler.push(frame)
            return nil
        } catch {
            return error
        }
    }
}
