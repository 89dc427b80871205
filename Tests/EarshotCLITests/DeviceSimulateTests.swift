import EarshotCrypto
import EarshotDevice
import EarshotTestSupport
import Foundation
import Testing

/// `earshot device simulate` as a person runs it: the device records what its microphone hears, announces itself,
/// serves the protocol, and keeps its recordings (and its owner) across a graceful stop and a SIGKILL.
@Suite(.serialized) struct DeviceSimulateTests {
    struct Device {
        let child: ChildProcess
        let port: Int
        let bindCode: String?
    }

    /// Starts a device on `card`, advertising in `discovery`, and waits until it listens.
    func start(_ card: URL, discovery: URL, _ extra: [String] = []) async throws -> Device {
        let child = try Program.earshot.start(
            ["device", "simulate", "--dir", card.path, "--serial", "ES1-CLI001", "--rate", "0"] + extra,
            environment: ["EARSHOT_DEVICE_DIR": discovery.path])
        let line = try await child.waitForLine(containing: "listening on", on: .stdout)
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        // The bind status is printed before the link starts listening.
        let code = child.output(.stdout).split(separator: "\n").first { $0.hasPrefix("bind code ") }
        return Device(child: child, port: port, bindCode: code.map { String($0.dropFirst("bind code ".count)) })
    }

    @Test func aDeviceRecordsServesAndKeepsItsCardAcrossStopsAndKills() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("device-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let card = directory.appendingPathComponent("card")
        let discovery = directory.appendingPathComponent("discovery")
        var device = try await start(
            card, discovery: discovery,
            ["--microphone", TestEnvironment.jfk.path, "--recordings", "2", "--speed", "50"])
        defer { device.child.kill() }
        let code = try #require(device.bindCode)
        #expect(try String(contentsOf: card.appendingPathComponent("bind-code"), encoding: .utf8) == code + "\n")
        _ = try await device.child.waitForLine(containing: "recorded 2:", on: .stdout)

        // The advertisement names the port; a client binds with the shown code and syncs a recording.
        let advertised =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: discovery.appendingPathComponent("ES1-CLI001.json"))) as? [String: Any]
        #expect(advertised?["port"] as? Int == device.port)
        let connection = try DeviceConnection(port: device.port)
        _ = try await connection.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "cli-test"))
        guard case .bound(let secret) = try await connection.single(.bind(code: code, owner: "acme/ada")),
            case .recordings(let page) = try await connection.single(.list(after: 0, limit: 10))
        else {
            Issue.record("bind or list failed")
            return
        }
        #expect(page.recordings.map(\.id) == [1, 2])
        #expect(page.recordings.allSatisfy { (10_900...11_100).contains(Int($0.durationMs)) })
        let first = page.recordings[0]
        let bytes = try await connection.read(recording: first.id, offset: 0, length: UInt32(first.size))
        #expect(DigestAlgorithm.sha256.hash(bytes).bytes == first.sha256)
        connection.close()

        // A graceful stop removes the advertisement; the card keeps recordings and owner.
        device.child.send(SIGTERM)
        #expect(try await device.child.waitForExit(timeout: .seconds(30)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: discovery.appendingPathComponent("ES1-CLI001.json").path))

        // Killed mid-recording: the next start keeps what was recorded before the kill.
        device = try await start(
            card, discovery: discovery, ["--microphone", TestEnvironment.jfk.path, "--speed", "2"])
        #expect(device.bindCode == nil)
        try await Task.sleep(for: .seconds(4))
        device.child.kill()
        device = try await start(card, discovery: discovery)
        let again = try DeviceConnection(port: device.port)
        defer { again.close() }
        let hello = try await again.hello(HelloRequest(maximumFrameSize: 244, clockMs: 0, client: "cli-test"))
        #expect(hello.bound)
        let proof = HMAC.authenticationCode(key: secret, message: hello.challenge).bytes
        _ = try await again.single(.authenticate(owner: "acme/ada", proof: proof))
        guard case .recordings(let after) = try await again.single(.list(after: 0, limit: 10)) else {
            Issue.record("list failed")
            return
        }
        #expect(after.recordings.map(\.id) == [1, 2, 3])
        let cut = try #require(after.recordings.last)
        #expect(cut.durationMs > 0 && cut.durationMs < 11_000, "\(cut.durationMs) ms kept of the killed recording")
        device.child.send(SIGTERM)
        _ = try await device.child.waitForExit(timeout: .seconds(30))
    }

    @Test func badArgumentsAreClearErrors() async throws {
        let missing = try await Program.earshot.run(["device", "simulate"])
        #expect(missing.status == 64 && missing.stderr.contains("--dir"))
        let badRate = try await Program.earshot.run(["device", "simulate", "--dir", "/tmp/x", "--rate", "fast"])
        #expect(badRate.status == 64 && badRate.stderr.contains("--rate"))
        let noFile = try await Program.earshot.run(
            ["device", "simulate", "--dir", "/tmp/x", "--microphone", "/nonexistent.wav"])
        #expect(noFile.status == 64 && noFile.stderr.contains("no such file"))
    }
}
