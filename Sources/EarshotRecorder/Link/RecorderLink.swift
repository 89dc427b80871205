internal import EarshotCore
internal import EarshotDevice
internal import Foundation
internal import Synchronization

/// Serves a ``Recorder`` over the stream transport with a real BLE link's limits: frames no larger than the link's
/// (``Configuration/frameSize``) and a sustained rate (``Configuration/bytesPerSecond``, about 32 KB/s by default,
/// what public BLE recorders reach).
///
/// Like a BLE peripheral it serves one central at a time: a new connection replaces the old one (a phone that
/// reconnects after the app was killed gets the device at once).
public struct RecorderLink: Sendable {
    /// The link's limits and address.
    public struct Configuration: Sendable {
        /// Where to listen; loopback by default.
        public var host = "127.0.0.1"
        /// The port; 0 for any free one.
        public var port = 0
        /// Sustained bytes per second from the device (0: unlimited).
        public var bytesPerSecond = 32_000
        /// The largest frame the link carries: BLE's ATT MTU (247 with data length extension) minus 3.
        public var frameSize = 244

        public init() {}
    }

    let recorder: Recorder
    let configuration: Configuration
    private let logger = Logger(label: "recorder-link")

    /// A link for `recorder`.
    public init(recorder: Recorder, configuration: Configuration = Configuration()) {
        self.recorder = recorder
        self.configuration = configuration
    }

    /// Listens and serves connections until cancelled; `onListening` gets the port once listening.
    ///
    /// - Throws: ``DeviceProtocolError`` `disconnected` when the address cannot be used.
    public func run(onListening: @Sendable (Int) -> Void = { _ in }) async throws {
        let listener = try StreamListener(host: configuration.host, port: configuration.port)
        let (connections, continuation) = AsyncStream.makeStream(of: StreamSocket.self)
        let acceptor = Thread {
            while let socket = try? listener.accept() { continuation.yield(socket) }
            continuation.finish()
        }
        acceptor.name = "recorder-accept"
        acceptor.start()
        onListening(listener.port)
        logger.notice("device link listening", metadata: ["port": "\(listener.port)"])
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                var current: StreamSocket?
                for await socket in connections {
                    current?.close()  // the newest central wins
                    current = socket
                    group.addTask { await serve(socket) }
                }
                current?.close()
            }
        } onCancel: {
            listener.close()
        }
    }

    /// Serves one connection until it closes.
    private func serve(_ socket: StreamSocket) async {
        let writer = PacedWriter(socket: socket, bytesPerSecond: configuration.bytesPerSecond)
        let (incoming, feed) = AsyncStream.makeStream(of: [UInt8].self)
        let reader = Thread {
            while let bytes = try? socket.receive(maximum: 4_096), !bytes.isEmpty { feed.yield(bytes) }
            feed.finish()
        }
        reader.name = "recorder-read"
        reader.start()
        let (subscription, events) = await recorder.subscribe()
        var session = Recorder.Session(linkFrameSize: configuration.frameSize)
        let frameSize = FrameSizeBox(Frame.minimumSize)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var sequence: UInt16 = 0
                for await event in events {
                    sequence &+= 1
                    writer.send(event.envelope(sequence: sequence).encoded(maximumFrameSize: frameSize.value))
                }
            }
            var decoder = FrameDecoder(maximumFrameSize: configuration.frameSize)
            var assembler = MessageAssembler(maximumMessageSize: 64 << 10)
            for await bytes in incoming {
                decoder.append(bytes)
                while true {
                    let envelope: Envelope
                    do {
                        guard let frame = try decoder.next() else { break }
                        guard let whole = try assembler.add(frame) else { continue }
                        envelope = whole
                    } catch {
                        logger.info("bad frame dropped", metadata: ["error": "\(error)"])
                        continue
                    }
                    let responses: [DeviceResponse]
                    let opcode: Opcode
                    do throws(DeviceProtocolError) {
                        let request = try DeviceRequest(envelope)
                        opcode = request.opcode
                        responses = await recorder.handle(request, session: &session)
                        frameSize.value = session.maximumFrameSize
                    } catch {
                        // An undecodable request still gets an answer naming the problem, if its type is known.
                        guard let known = Opcode(rawValue: envelope.type) else { continue }
                        opcode = known
                        responses = [.failed(error)]
                    }
                    for response in responses {
                        writer.send(
                            response.envelope(to: opcode, sequence: envelope.sequence)
                                .encoded(maximumFrameSize: frameSize.value))
                    }
                }
            }
            await recorder.unsubscribe(subscription)
            group.cancelAll()
        }
        socket.close()
    }
}

/// The frame size a connection negotiated: set by its request loop, read by its event sender.
private final class FrameSizeBox: Sendable {
    private let storage: Mutex<Int>
    init(_ value: Int) { storage = Mutex(value) }
    var value: Int {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// Sends frames in order on a thread of its own at no more than the link's rate.
private final class PacedWriter: Sendable {
    private let socket: StreamSocket
    private let bytesPerSecond: Int
    private let queue = DispatchQueue(label: "recorder-link-write")
    private let clock = Mutex<(start: ContinuousClock.Instant, sent: Int)?>(Optional.none)

    init(socket: StreamSocket, bytesPerSecond: Int) {
        self.socket = socket
        self.bytesPerSecond = bytesPerSecond
    }

    func send(_ bytes: [UInt8]) {
        queue.async { [self] in
            do { try socket.send(bytes) } catch { return }
            guard bytesPerSecond > 0 else { return }
            // Sleep until the bytes sent so far fit the rate. A link that fell behind its budget (idle) starts a new
            // one now: idle time is never credited, so no burst ever exceeds the rate.
            let now = ContinuousClock.now
            let rate = Int64(bytesPerSecond)
            let wait: Duration = clock.withLock { state in
                var current = state ?? (now, 0)
                if current.start + .nanoseconds(Int64(current.sent) * 1_000_000_000 / rate) < now {
                    current = (now, 0)
                }
                current.sent += bytes.count
                state = current
                let due = current.start + .nanoseconds(Int64(current.sent) * 1_000_000_000 / rate)
                return due > now ? due - now : .zero
            }
            if wait > .zero {
                Thread.sleep(forTimeInterval: wait.seconds)
            }
        }
    }
}
