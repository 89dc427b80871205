import EarshotAPI
import EarshotDevice
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

@testable import EarshotKit

/// The sync engine's guarantees, with an in-memory device and platform: acknowledge only after the server
/// registered the digest; a restart continues from the first byte it lacks (never from zero); nothing is uploaded
/// twice; Wi-Fi handover completes with the device's ETags and falls back to the link.
@Suite struct DeviceSyncEngineTests {
    struct Rig {
        let log = SyncLog()
        let device: FakeDevice
        let platform: FakePlatform
        let state: URL

        init(recordings: [UInt32: Int], chunkSize: Int = 1_000) throws {
            var generator = SplitMix64(seed: 16)
            device = FakeDevice(
                log: log,
                recordings: recordings.mapValues { size in (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) } })
            platform = FakePlatform(log: log, chunkSize: chunkSize)
            state = try TestEnvironment.makeTemporaryDirectory("device-sync")
        }

        func engine(
            window: UInt32 = 256, wifi: DeviceManager.WiFiPolicy = .never, gate: PauseGate = PauseGate(),
            wifiState: WiFiUploads = WiFiUploads(), wifiStallSeconds: Double = 5
        ) -> (DeviceSyncEngine, AsyncStream<DeviceSyncEvent>) {
            var options = DeviceSyncEngine.Options(stateDirectory: state)
            options.window = window
            options.wifi = wifi
            options.wifiStallSeconds = wifiStallSeconds
            let (events, continuation) = AsyncStream.makeStream(of: DeviceSyncEvent.self)
            return (
                DeviceSyncEngine(
                    device: device, platform: platform, options: options, events: continuation, gate: gate,
                    wifiState: wifiState), events
            )
        }

        var journals: [URL] {
            ((try? FileManager.default.contentsOfDirectory(at: state, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "json" }
        }
    }

    @Test func everyRecordingIsAcknowledgedOnlyAfterTheServerRegisteredIt() async throws {
        let rig = try Rig(recordings: [1: 2_500, 2: 700, 3: 1_000])
        let (engine, events) = rig.engine()
        let summary = try await engine.run()
        #expect(summary.synced.map(\.id) == [1, 2, 3])
        #expect(summary.synced.map(\.recordID) == ["rec_1", "rec_2", "rec_3"])
        #expect(summary.bytesOverLink == 4_200)
        #expect(rig.device.stored.withLock { $0.isEmpty }, "every recording freed")
        let log = rig.log.all
        for id in 1...3 {
            let registered = try #require(log.firstIndex(of: "registered \(id)"))
            let acknowledged = try #require(log.firstIndex(of: "ack \(id)"))
            #expect(registered < acknowledged, "\(log)")
        }
        #expect(rig.journals.isEmpty, "journals are removed once acknowledged")
        // Progress: bytes never go down and end at the total.
        var last: Int64 = -1
        var sawCurrent = false
        for await case .progress(let progress) in events {
            #expect(progress.completedBytes >= last)
            last = progress.completedBytes
            if let current = progress.current {
                sawCurrent = true
                #expect(current.completedBytes <= current.size)
            }
            if progress.completedRecordings == 3 { break }
        }
        #expect(last == 4_200)
        #expect(sawCurrent)
    }

    @Test func aServerThatIsDownMeansNoAcknowledgementAndTheNextRunOnlyRegisters() async throws {
        let rig = try Rig(recordings: [1: 1_800])
        rig.platform.registerFailure.withLock { $0 = EarshotError(.unavailable, "down", status: 503) }
        await #expect(throws: EarshotError.self) { try await rig.engine().0.run() }
        #expect(!rig.log.all.contains("ack 1"))
        #expect(rig.device.stored.withLock { $0[1] != nil }, "nothing freed before the server had it")
        let journal = try #require(rig.journals.first.flatMap(DeviceSyncJournal.load))
        #expect(journal.stage == .completed)

        rig.platform.registerFailure.withLock { $0 = nil }
        let putsBefore = rig.platform.puts.withLock { $0.count }
        let readsBefore = rig.device.reads.withLock { $0.count }
        let summary = try await rig.engine().0.run()
        #expect(summary.synced.map(\.id) == [1] && summary.synced[0].resumed)
        #expect(rig.platform.puts.withLock { $0.count } == putsBefore, "no part sent again")
        #expect(rig.device.reads.withLock { $0.count } == readsBefore, "nothing read again")
        #expect(rig.log.all.filter { $0.hasPrefix("plan") }.count == 1)
    }

    @Test func aDroppedLinkResumesAtTheFirstByteNotYetStoredNeverFromZero() async throws {
        // 3,500 bytes in parts of 1,000; the link drops after 2,300 bytes: parts 1–2 on the server, 300 bytes of
        // part 3 in the spool.
        let rig = try Rig(recordings: [7: 3_500])
        rig.device.budget.withLock { $0 = 2_300 }
        await #expect(throws: EarshotError.self) { try await rig.engine(window: 100).0.run() }
        let journal = try #require(rig.journals.first.flatMap(DeviceSyncJournal.load))
        #expect(journal.etags.keys.sorted() == [1, 2])
        #expect(journal.spoolPart == 3)
        #expect(rig.platform.puts.withLock { $0 } == [1, 2])

        // A new process: a fresh engine on the same state directory.
        rig.device.budget.withLock { $0 = nil }
        rig.device.reads.withLock { $0 = [] }
        let summary = try await rig.engine(window: 100).0.run()
        #expect(summary.synced.map(\.id) == [7] && summary.synced[0].resumed)
        let firstRead = try #require(rig.device.reads.withLock { $0.first })
        #expect(firstRead.1 == 2_300, "continued at byte 2,300, not at 0 or at the part's start")
        #expect(summary.bytesOverLink == 1_200)
        #expect(rig.platform.puts.withLock { $0 } == [1, 2, 3, 4])
        #expect(rig.platform.registered.withLock { $0.count } == 1)
        #expect(rig.device.stored.withLock { $0.isEmpty })
    }

    @Test func aRecordingTheServerAlreadyHoldsIsOnlyAcknowledged() async throws {
        let rig = try Rig(recordings: [1: 900, 2: 900])
        // A previous run registered recording 1 and died before acknowledging it (its journal is gone too).
        let first = try await rig.device.recordings()[0]
        rig.platform.registered.withLock {
            $0[1] = .init(recordingID: 1, sha256: first.sha256Hex, recordID: "rec_1", storedAtMs: 0)
        }
        let summary = try await rig.engine().0.run()
        #expect(summary.synced.map(\.id) == [1, 2])
        #expect(rig.log.all.filter { $0.hasPrefix("plan") }.count == 1, "only recording 2 is uploaded")
        #expect(rig.log.all.first == "ack 1")
    }

    @Test func aRefusedDigestKeepsTheRecordingOnTheDeviceAndTheSyncGoesOn() async throws {
        let rig = try Rig(recordings: [1: 900, 2: 900])
        let first = try await rig.device.recordings()[0]
        // The server holds another file under recording 1's id: never free the device's copy.
        rig.platform.registered.withLock {
            $0[1] = .init(recordingID: 1, sha256: String(repeating: "0", count: 64), recordID: "rec_x", storedAtMs: 0)
        }
        let summary = try await rig.engine().0.run()
        #expect(summary.synced.map(\.id) == [2])
        #expect(summary.failed.keys.sorted() == [1])
        #expect(rig.device.stored.withLock { $0[1] } != nil)
        #expect(!rig.log.all.contains("ack 1"))
        _ = first
    }

    @Test func aFileWhoseDigestIsNotTheDevicesIsNeverAcknowledgedAndIsUploadedAgainNextTime() async throws {
        let rig = try Rig(recordings: [1: 1_500])
        rig.platform.corruptNextPut.withLock { $0 = true }
        let first = try await rig.engine().0.run()
        #expect(first.synced.isEmpty && first.failed.keys.sorted() == [1])
        #expect(!rig.log.all.contains("ack 1"))
        #expect(rig.device.stored.withLock { $0[1] } != nil)
        #expect(rig.journals.isEmpty, "the refused upload is forgotten")
        let second = try await rig.engine().0.run()
        #expect(second.synced.map(\.id) == [1])
        #expect(rig.log.all.filter { $0.hasPrefix("plan") }.count == 2)
    }

    @Test func anAcknowledgementWhoseAnswerWasLostCountsAsDone() async throws {
        let rig = try Rig(recordings: [1: 500])
        rig.device.lostAcknowledgements.withLock { $0 = true }
        let summary = try await rig.engine().0.run()
        #expect(summary.synced.map(\.freedBytes) == [0])
        #expect(rig.journals.isEmpty)
    }

    @Test func wifiHandoverUsesTheDevicesETagsAndFallsBackToTheLink() async throws {
        let rig = try Rig(recordings: [1: 2_500, 2: 1_500])
        let wifi = WiFiUploads()
        rig.device.wifi.withLock { $0 = (rig.platform, wifi) }
        let summary = try await rig.engine(wifi: .always, wifiState: wifi).0.run()
        #expect(summary.synced.map(\.viaWiFi) == [true, true])
        #expect(summary.bytesOverLink == 0)
        #expect(summary.bytesOverWiFi == 4_000)
        #expect(rig.device.reads.withLock { $0.isEmpty })

        // A device without Wi-Fi: the same policy falls back to reading over the link.
        let other = try Rig(recordings: [1: 2_500])
        let fallback = try await other.engine(wifi: .always).0.run()
        #expect(fallback.synced.map(\.viaWiFi) == [false])
        #expect(fallback.bytesOverLink == 2_500)
    }

    @Test func aWiFiBatchHandsTheRecordingsOverAtOnceAndAcknowledgesEachOnlyAfterTheServer() async throws {
        let rig = try Rig(recordings: [1: 2_500, 2: 700, 3: 1_500])
        let wifi = WiFiUploads()
        rig.device.wifi.withLock { $0 = (rig.platform, wifi) }
        rig.device.batchLimit.withLock { $0 = 16 }
        let summary = try await rig.engine(wifi: .always, wifiState: wifi).0.run()
        #expect(summary.synced.map(\.id) == [1, 2, 3])
        #expect(summary.synced.allSatisfy { $0.viaWiFi })
        #expect(summary.bytesOverWiFi == 4_700 && summary.bytesOverLink == 0)
        #expect(rig.device.reads.withLock { $0.isEmpty })
        let log = rig.log.all
        // One plan call and one message for the three, not three of each.
        #expect(log.filter { $0.hasPrefix("plans") } == ["plans 1,2,3"])
        #expect(log.filter { $0.hasPrefix("wifi") } == ["wifi batch 1,2,3"])
        for id in 1...3 {
            let registered = try #require(log.firstIndex(of: "registered \(id)"))
            let acknowledged = try #require(log.firstIndex(of: "ack \(id)"))
            #expect(registered < acknowledged, "recording \(id) freed before the server confirmed it")
        }
        #expect(rig.device.stored.withLock { $0.isEmpty } && rig.journals.isEmpty)
    }

    @Test func aFailedUploadInABatchGoesOverTheLinkAndTheOthersStillFinishOverWiFi() async throws {
        let rig = try Rig(recordings: [1: 2_500, 2: 700, 3: 1_500])
        let wifi = WiFiUploads()
        rig.device.wifi.withLock { $0 = (rig.platform, wifi) }
        rig.device.batchLimit.withLock { $0 = 16 }
        rig.device.failingUpload.withLock { $0 = 2 }
        let summary = try await rig.engine(wifi: .always, wifiState: wifi).0.run()
        #expect(summary.synced.map(\.id) == [1, 2, 3])
        #expect(summary.synced.map(\.viaWiFi) == [true, false, true])
        #expect(summary.bytesOverLink == 700 && summary.bytesOverWiFi == 4_000)
        #expect(summary.failed.isEmpty && rig.device.stored.withLock { $0.isEmpty })
    }

    @Test func aBatchWhoseAppDiedBeforeTheEventsResumesFromTheJournalsWithoutUploadingAgain() async throws {
        let rig = try Rig(recordings: [1: 2_500, 2: 700])
        let wifi = WiFiUploads()
        rig.device.wifi.withLock { $0 = (rig.platform, wifi) }
        rig.device.batchLimit.withLock { $0 = 16 }
        rig.device.silentUploads.withLock { $0 = true }
        // The device uploads every part, but the app is killed before it hears so. (No stall timeout meanwhile: on a
        // loaded machine the four PUTs can take longer than the rig's 5 s, and a stalled Wi-Fi upload falls back to
        // the link, whose own uploads are not what this test is about.)
        let first = Task { try await rig.engine(wifi: .always, wifiState: wifi, wifiStallSeconds: 600).0.run() }
        let deadline = ContinuousClock.now + .seconds(30)
        while rig.platform.puts.withLock({ $0.count }) < 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        first.cancel()
        _ = try? await first.value
        #expect(rig.platform.puts.withLock { $0.count } == 4)
        #expect(rig.device.stored.withLock { $0.count } == 2, "nothing freed before the server had it")
        #expect(rig.journals.count == 2)

        // The next run finds the parts on the server through the journals: it only completes, registers, acknowledges.
        rig.device.silentUploads.withLock { $0 = false }
        let planned = rig.log.all.filter { $0.hasPrefix("plans") || $0.hasPrefix("wifi") }.count
        let summary = try await rig.engine(wifi: .always, wifiState: WiFiUploads()).0.run()
        #expect(summary.synced.map(\.id) == [1, 2] && summary.synced.allSatisfy { $0.resumed })
        #expect(rig.log.all.filter { $0.hasPrefix("plans") || $0.hasPrefix("wifi") }.count == planned)
        #expect(rig.platform.puts.withLock { $0.count } == 4, "no part uploaded twice")
        #expect(rig.device.stored.withLock { $0.isEmpty } && rig.journals.isEmpty)
    }

    @Test func longPlansAreCutIntoSeveralMessages() {
        let url = "http://127.0.0.1:8080/" + String(repeating: "x", count: 1_000)
        let long = (1...20).map { id in
            EarshotDevice.UploadPlan(
                recording: UInt32(id), expiresAtMs: 1,
                parts: (1...4).map { .init(number: UInt16($0), offset: 0, length: 1, url: url) })
        }
        let messages = DeviceSyncEngine.messages(long)
        #expect(messages.flatMap { $0 }.map(\.recording) == long.map(\.recording))
        #expect(messages.allSatisfy { $0.count <= EarshotDevice.UploadPlan.batchLimit })
        #expect(messages.count == 3)  // 4 KB a plan: 7 fit in 32 KiB
    }

    @Test func pauseStopsReadingUntilResumed() async throws {
        let rig = try Rig(recordings: [1: 3_000])
        let gate = PauseGate()
        gate.pause()
        let (engine, _) = rig.engine(gate: gate)
        let start = ContinuousClock.now
        let running = Task { try await engine.run() }
        try await Task.sleep(for: .seconds(2))
        #expect(rig.device.reads.withLock { $0.isEmpty }, "no read while paused")
        let paused = ContinuousClock.now - start
        gate.resume()
        let summary = try await running.value
        let total = ContinuousClock.now - start
        #expect(summary.synced.count == 1)
        // Relative to this run's own clock, so a loaded machine cannot fail it: the run lasted `total`, of which at
        // least `paused` was paused; the summary counts only the rest (half a second of slack for the first await).
        let counted = Duration.seconds(summary.seconds)
        #expect(counted < total - paused + .milliseconds(500), "paused time is not counted: \(counted) of \(total)")
    }
}
