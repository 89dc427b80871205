import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 16's end to end: the simulator, the server and the CLI (EarshotKit's DeviceManager) as separate processes.
/// Bind (a second user gets BIND_OCCUPIED), record three files, sync with progress, the transcripts appear as
/// records, a recording over the card's Wi-Fi, and unbind with clear empties the device.
@Suite(.serialized, .exclusive("speech decoding")) struct DeviceSyncEndToEndTests {
    static let ready = TestEnvironment.exist(TestEnvironment.jfk, TestEnvironment.asrFastModel)
    static let serial = "ES1-E2E016"

    struct Stack {
        let server: ServeProcess
        let directory: URL
        let discovery: URL
        let card: URL

        /// The CLI's shared options for `token`.
        func options(_ token: String, state: String = "state") -> [String] {
            [
                "--server", server.base, "--token", token, "--device-dir", discovery.path, "--state-dir",
                directory.appendingPathComponent(state).path,
            ]
        }

        func userToken(_ user: String) async throws -> String {
            let partner = try await server.partnerToken()
            return try #require(
                try await call(server.base, "POST", "/open/partner/user-token", token: partner, json: ["user_id": user])[
                    "access_token"] as? String)
        }

        func startDevice(_ extra: [String] = []) async throws -> ChildProcess {
            let child = try Program.earshot.start(
                ["device", "simulate", "--dir", card.path, "--serial", DeviceSyncEndToEndTests.serial] + extra,
                environment: ["EARSHOT_DEVICE_DIR": discovery.path])
            _ = try await child.waitForLine(containing: "listening on", on: .stdout)
            return child
        }
    }

    @Test(.enabled(if: ready, "needs the setup's models and test audio (make setup)"))
    func bindSyncTranscribeAndUnbindAcrossProcesses() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("device-e2e")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServeProcess.start(
            partner: "Devices", dataDirectory: directory.appendingPathComponent("data").path)
        defer { server.stop() }
        let stack = Stack(
            server: server, directory: directory, discovery: directory.appendingPathComponent("discovery"),
            card: directory.appendingPathComponent("card"))
        let (ada, bob) = (try await stack.userToken("ada"), try await stack.userToken("bob"))

        // The card records three files (JFK, at 50× real time) before anyone binds it.
        var device = try await stack.startDevice(
            ["--microphone", TestEnvironment.jfk.path, "--recordings", "3", "--speed", "50"])
        defer { device.stop() }
        _ = try await device.waitForLine(containing: "recorded 3:", on: .stdout)
        let code = try String(contentsOf: stack.card.appendingPathComponent("bind-code"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let scan = try await Program.earshot.run(["device", "scan", "--device-dir", stack.discovery.path])
        #expect(scan.status == 0 && scan.stdout.contains(Self.serial), "\(scan)")

        // Bind to ada; bob is refused with BIND_OCCUPIED (the registry), and a wrong code is the device's refusal.
        let bound = try await Program.earshot.run(
            ["device", "bind", Self.serial, "--code", code, "--name", "Ada's card"] + stack.options(ada))
        #expect(bound.status == 0, "\(bound)\n\(server.diagnostics)\n\(device.diagnostics)")
        #expect(bound.stdout.contains("bound \(Self.serial) (Ada's card)"), "\(bound.stdout)")
        let occupied = try await Program.earshot.run(
            ["device", "bind", Self.serial, "--code", code] + stack.options(bob, state: "bob"))
        #expect(occupied.status == 1 && occupied.stderr.contains("BIND_OCCUPIED"), "\(occupied)")

        // Transcribe what it syncs; rename it; list its three recordings.
        _ = try await call(
            server.base, "PATCH", "/open/partner/devices/\(Self.serial)", token: ada, json: ["auto_transcribe": true])
        let renamed = try await Program.earshot.run(
            ["device", "rename", Self.serial, "Kitchen card", "--server", server.base, "--token", ada])
        #expect(renamed.status == 0 && renamed.stdout.contains("Kitchen card"), "\(renamed)")
        // Ada's device defaults: her recordings are in English; the card has no language of its own, so it follows.
        let defaults = try await Program.earshot.run(
            ["device", "defaults", "--language", "en", "--server", server.base, "--token", ada])
        #expect(defaults.status == 0 && defaults.stdout.contains("defaults for ada:"), "\(defaults)")
        #expect(defaults.stdout.contains("transcribe on") && defaults.stdout.contains("language en"), "\(defaults)")
        let settings = try await Program.earshot.run(
            ["device", "settings", Self.serial, "--server", server.base, "--token", ada])
        #expect(settings.status == 0 && settings.stdout.contains("language en, model asr-fast"), "\(settings)")
        let listed = try await Program.earshot.run(["device", "list", Self.serial] + stack.options(ada))
        #expect(listed.status == 0 && listed.stdout.contains("3 recordings"), "\(listed)")
        let registry = try await Program.earshot.run(["device", "list"] + stack.options(ada))
        #expect(registry.stdout.contains("Kitchen card") && registry.stdout.contains("online"), "\(registry)")

        // Sync with progress: a progress line, each recording synced and freed, a summary.
        let sync = try await Program.earshot.run(
            ["device", "sync", Self.serial] + stack.options(ada), timeout: .seconds(120))
        #expect(sync.status == 0, "\(sync)\n\(server.diagnostics)")
        #expect(sync.stdout.contains("sync ") && sync.stdout.contains(" left"), "\(sync.stdout)")
        for id in 1...3 { #expect(sync.stdout.contains("synced \(id) → rec_"), "\(sync.stdout)") }
        #expect(sync.stdout.contains("done: 3 synced, 0 failed"), "\(sync.stdout)")
        let empty = try await Program.earshot.run(["device", "list", Self.serial] + stack.options(ada))
        #expect(empty.stdout.contains("0 recordings"), "\(empty)")
        // A second sync finds nothing to do.
        let again = try await Program.earshot.run(["device", "sync", Self.serial] + stack.options(ada))
        #expect(again.status == 0 && again.stdout.contains("done: 0 synced"), "\(again)")

        // The three recordings are records from the device, transcribed automatically.
        let deadline = ContinuousClock.now + .seconds(300)
        var records: [[String: Any]] = []
        while true {
            records = try await call(
                server.base, "GET", "/open/partner/records?source=device:\(Self.serial)", token: ada)["records"]
                as? [[String: Any]] ?? []
            if records.count == 3, records.allSatisfy({ $0["has_transcript"] as? Bool == true }) { break }
            try #require(ContinuousClock.now < deadline, "transcripts did not arrive: \(records)\n\(server.diagnostics)")
            try await Task.sleep(for: .seconds(1))
        }
        #expect(records.allSatisfy { $0["language"] as? String == "en" }, "the defaults' language: \(records)")
        let first = try #require(records.first?["record_id"] as? String)
        let show = try await Program.earshot.run(["records", "show", first, "--server", server.base, "--token", ada])
        #expect(show.stdout.lowercased().contains("country"), "\(show.stdout)")

        // A fourth recording goes over the card's Wi-Fi: the device PUTs it to the plan the platform made.
        device.stop()
        device = try await stack.startDevice(["--microphone", TestEnvironment.jfk.path, "--speed", "50"])
        _ = try await device.waitForLine(containing: "recorded 4:", on: .stdout)
        let wifi = try await Program.earshot.run(
            ["device", "sync", Self.serial, "--wifi", "always"] + stack.options(ada), timeout: .seconds(120))
        #expect(wifi.status == 0 && wifi.stdout.contains("synced 4 → rec_"), "\(wifi)\n\(device.diagnostics)")
        #expect(wifi.stdout.contains("Wi-Fi)") && wifi.stdout.contains("0 bytes over the link"), "\(wifi.stdout)")

        // A fifth recording, not synced, then unbind with clear: the card is empty and unbound.
        device.stop()
        device = try await stack.startDevice(["--microphone", TestEnvironment.jfk.path, "--speed", "50"])
        _ = try await device.waitForLine(containing: "recorded 5:", on: .stdout)
        let unbind = try await Program.earshot.run(
            ["device", "unbind", Self.serial, "--clear"] + stack.options(ada))
        #expect(unbind.status == 0 && unbind.stdout.contains("erased"), "\(unbind)")
        let recordings = try FileManager.default.contentsOfDirectory(
            atPath: stack.card.appendingPathComponent("recordings").path)
        #expect(recordings.isEmpty, "\(recordings)")
        #expect(FileManager.default.fileExists(atPath: stack.card.appendingPathComponent("bind-code").path))
        let after = try await Program.earshot.run(["device", "list"] + stack.options(ada))
        #expect(after.stdout.contains("no devices bound"), "\(after)")
        // Now bob can bind it with the new code.
        let newCode = try String(contentsOf: stack.card.appendingPathComponent("bind-code"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let rebound = try await Program.earshot.run(
            ["device", "bind", Self.serial, "--code", newCode] + stack.options(bob, state: "bob"))
        #expect(rebound.status == 0, "\(rebound)")
    }

    @Test func badArgumentsAreClearErrors() async throws {
        let noServer = try await Program.earshot.run(["device", "sync", "ES1-X"])
        #expect(noServer.status == 64 && noServer.stderr.contains("--server"), "\(noServer)")
        let noCode = try await Program.earshot.run(
            ["device", "bind", "ES1-X", "--server", "http://127.0.0.1:1", "--token", "t"])
        #expect(noCode.status == 64 && noCode.stderr.contains("--code"), "\(noCode)")
        let missing = try await Program.earshot.run(
            [
                "device", "sync", "ES1-NOWHERE", "--server", "http://127.0.0.1:1", "--token", "t", "--device-dir",
                "/nonexistent",
            ])
        #expect(missing.status == 1 && missing.stderr.contains("DEVICE_NOT_FOUND"), "\(missing)")
        let scan = try await Program.earshot.run(["device", "scan", "--device-dir", "/nonexistent"])
        #expect(scan.status == 0 && scan.stdout.contains("no devices found"), "\(scan)")
        let toggle = try await Program.earshot.run(
            ["device", "defaults", "--auto-transcribe", "maybe", "--server", "http://127.0.0.1:1", "--token", "t"])
        #expect(toggle.status == 64 && toggle.stderr.contains("on or off"), "\(toggle)")
    }
}
