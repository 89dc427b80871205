import EarshotAPI
import EarshotDevice
import EarshotRecorder
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotKit

/// The sync engine over the real protocol: a running recorder (in this process) behind its TCP link with BLE
/// frames, found through its discovery file by ``StreamDeviceTransport``; the platform is the in-memory one.
@Suite struct DeviceLinkSyncTests {
    struct Card {
        let directory: URL
        let recorder: Recorder
        let link: Task<Void, any Error>
        let port: Int
        let secret: [UInt8]
        let owner = "acme/ada"

        /// A bound card with `count` recordings of a tone, served on loopback at `rate` bytes per second.
        static func start(count: Int, rate: Int = 0) async throws -> Card {
            let directory = try TestEnvironment.makeTemporaryDirectory("device-link")
            var configuration = Recorder.Configuration(
                identity: RecorderIdentity(serial: "ES1-LINK01", capacity: 8 << 20), directory: directory)
            configuration.bindCodeFile = directory.appendingPathComponent("bind-code")
            let recorder = try Recorder(configuration: configuration)
            for take in 0..<count {
                try await recorder.startRecording()
                let samples = (0..<(16_000 * (4 + take))).map { Float(sin(Double($0) * 0.03 * Double(take + 1)) * 0.3) }
                try await recorder.record(samples)
                try await recorder.stopRecording()
            }
            var session = Recorder.Session(linkFrameSize: 244)
            _ = await recorder.handle(.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "t")), session: &session)
            let code = try #require(await recorder.bindCode)
            guard case .bound(let secret) = await recorder.handle(.bind(code: code, owner: "acme/ada"), session: &session).first
            else { throw DeviceProtocolError(.unexpected, "bind failed") }
            var settings = RecorderLink.Configuration()
            settings.bytesPerSecond = rate
            let (ports, feed) = AsyncStream.makeStream(of: Int.self)
            let link = Task { try await RecorderLink(recorder: recorder, configuration: settings).run { feed.yield($0) } }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let advertisement = DeviceAdvertisement(
                serial: "ES1-LINK01", model: "test", host: "127.0.0.1", port: port, pid: getpid(), bound: true,
                bytesPerSecond: rate, frameSize: 244)
            try advertisement.publish(in: directory.appendingPathComponent("discovery"))
            return Card(directory: directory, recorder: recorder, link: link, port: port, secret: secret)
        }

        var transport: StreamDeviceTransport {
            StreamDeviceTransport(directory: directory.appendingPathComponent("discovery"))
        }

        /// An authenticated device over a fresh connection (what DeviceManager does with the platform's proof).
        func connect() async throws -> LinkedDevice {
            let found = try #require(try await transport.scan(timeoutSeconds: 0).first)
            let connection = try await transport.connect(to: found)
            let hello = try await connection.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "kit-tests"))
            let proof = SHA256.hmac(key: secret, message: hello.challenge)
            let device = LinkedDevice(connection: connection, serial: hello.serial, timeoutSeconds: 10)
            _ = try await device.call(.authenticate(owner: owner, proof: proof))
            return device
        }
    }

    func engine(
        _ device: LinkedDevice, _ platform: FakePlatform, state: URL, window: UInt32 = 4_096,
        events continuation: AsyncStream<DeviceSyncEvent>.Continuation? = nil
    ) -> DeviceSyncEngine {
        var options = DeviceSyncEngine.Options(stateDirectory: state)
        options.window = window
        let continuation = continuation ?? AsyncStream.makeStream(of: DeviceSyncEvent.self).continuation
        return DeviceSyncEngine(
            device: device, platform: platform, options: options, events: continuation, gate: PauseGate(),
            wifiState: WiFiUploads())
    }

    @Test func aBacklogSyncsOverTheLinkAndIsFreedOnlyOnceRegistered() async throws {
        let card = try await Card.start(count: 3)
        defer { card.link.cancel() }
        let log = SyncLog()
        let platform = FakePlatform(log: log, chunkSize: 8_192)
        let state = card.directory.appendingPathComponent("state")
        let before = await card.recorder.recordings
        let device = try await card.connect()
        let summary = try await engine(device, platform, state: state).run()
        #expect(summary.synced.map(\.id) == before.map(\.id))
        #expect(summary.synced.map(\.sha256) == before.map(\.sha256Hex))
        #expect(summary.bytesOverLink == before.reduce(0) { $0 + Int64($1.size) })
        #expect(await card.recorder.recordings.isEmpty)
        #expect(await card.recorder.status.storageUsed == 0)
        device.connection.close()
    }

    @Test func aConnectionLostMidSyncContinuesOnTheNextWhereItStopped() async throws {
        let card = try await Card.start(count: 1, rate: 4_000)
        defer { card.link.cancel() }
        let platform = FakePlatform(log: SyncLog(), chunkSize: 16_384)
        let state = card.directory.appendingPathComponent("state")
        let recording = try #require(await card.recorder.recordings.first)
        #expect(recording.size > 8_000, "\(recording.size) bytes: more than two seconds of link")

        // The app dies once it has read 4,000 bytes (about a second of link): its connection goes away mid-read.
        // Waiting for the bytes, not for a time, keeps this true on a loaded machine.
        let first = try await card.connect()
        let (events, continuation) = AsyncStream.makeStream(of: DeviceSyncEvent.self)
        let running = Task {
            try await engine(first, platform, state: state, window: 1_024, events: continuation).run()
        }
        let deadline = ContinuousClock.now + .seconds(300)
        for await event in events {
            if case .progress(let progress) = event, (progress.current?.completedBytes ?? 0) >= 4_000 { break }
            if ContinuousClock.now > deadline { break }
        }
        running.cancel()
        first.connection.close()
        _ = try? await running.value
        #expect(await card.recorder.recordings.count == 1, "nothing freed by an interrupted sync")

        let second = try await card.connect()
        let summary = try await engine(second, platform, state: state, window: 1_024).run()
        #expect(summary.synced.map(\.id) == [recording.id] && summary.synced[0].resumed)
        #expect(summary.bytesOverLink <= Int64(recording.size) - 3_000, "read \(summary.bytesOverLink) bytes again")
        #expect(await card.recorder.recordings.isEmpty)
        second.connection.close()
    }

    @Test func aLinkLostWithAPipelinedReadInFlightFreesNothingUnregisteredAndResumesAtTheFirstMissingByte()
        async throws
    {
        // 8,000 B/s and 2 KiB windows: every window is a quarter second of link, and while one is spooled the next is
        // already asked for, so the link goes away with a read in flight.
        let card = try await Card.start(count: 3, rate: 8_000)
        defer { card.link.cancel() }
        let platform = FakePlatform(log: SyncLog(), chunkSize: 64 << 10)
        let state = card.directory.appendingPathComponent("state")
        let backlog = await card.recorder.recordings
        let first = try await card.connect()
        let (events, continuation) = AsyncStream.makeStream(of: DeviceSyncEvent.self)
        let running = Task {
            try await engine(first, platform, state: state, window: 2_048, events: continuation).run()
        }
        // Lose the link (without cancelling the sync) 3,000 bytes into the second recording.
        let deadline = ContinuousClock.now + .seconds(300)
        for await event in events {
            if case .progress(let progress) = event, let current = progress.current, current.id == backlog[1].id,
                current.completedBytes >= 3_000
            {
                break
            }
            if ContinuousClock.now > deadline { break }
        }
        first.connection.close()
        await #expect(throws: EarshotError.self) { try await running.value }

        // Nothing the server does not hold was freed; what was read is journalled, whole windows in order.
        let left = await card.recorder.recordings
        for recording in backlog where !left.contains(recording) {
            #expect(platform.registered.withLock { $0[Int64(recording.id)]?.sha256 } == recording.sha256Hex)
        }
        var unread: Int64 = 0
        for recording in left where platform.registered.withLock({ $0[Int64(recording.id)] == nil }) {
            let url = DeviceSyncJournal.location(
                in: state, baseURL: platform.baseURL, serial: first.serial, recording: recording.id,
                sha256: recording.sha256Hex)
            guard let journal = DeviceSyncJournal.load(from: url) else {
                unread += Int64(recording.size)
                continue
            }
            guard journal.stage == .uploading else { continue }
            let spooled = journal.spoolPart == nil ? 0 : PartSpool(url: DeviceSyncJournal.spool(for: url)).count
            if recording.id == backlog[1].id { #expect(spooled >= 2_048, "the second recording was being read") }
            unread += Int64(recording.size) - journal.storedBytes - spooled
        }

        // The next sync reads exactly the bytes not yet stored, and the server checks every digest.
        let second = try await card.connect()
        let summary = try await engine(second, platform, state: state, window: 2_048).run()
        #expect(summary.bytesOverLink == unread, "read \(summary.bytesOverLink) bytes, \(unread) were missing")
        #expect(summary.synced.map(\.id) == left.map(\.id))
        #expect(await card.recorder.recordings.isEmpty)
        #expect(platform.registered.withLock { $0.count } == backlog.count, "each recording registered once")
        second.connection.close()
    }

    @Test func scanIgnoresAdvertisementsOfDevicesThatAreGone() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("device-scan")
        defer { try? FileManager.default.removeItem(at: directory) }
        try DeviceAdvertisement(
            serial: "ES1-ALIVE1", model: "m", host: "127.0.0.1", port: 1, pid: getpid(), bound: false,
            bytesPerSecond: 32_000, frameSize: 244
        ).publish(in: directory)
        try DeviceAdvertisement(
            serial: "ES1-GONE01", model: "m", host: "127.0.0.1", port: 2, pid: Int32.max - 1, bound: false,
            bytesPerSecond: 32_000, frameSize: 244
        ).publish(in: directory)
        try Data("not json".utf8).write(to: directory.appendingPathComponent("junk.json"))
        let found = try await StreamDeviceTransport(directory: directory).scan(timeoutSeconds: 0)
        #expect(found.map(\.serial) == ["ES1-ALIVE1"])
        #expect(found.first?.address == "127.0.0.1:1" && found.first?.bytesPerSecond == 32_000)
        await #expect(throws: EarshotError.self) {
            _ = try await StreamDeviceTransport(directory: directory).connect(to: found[0])
        }
    }
}
