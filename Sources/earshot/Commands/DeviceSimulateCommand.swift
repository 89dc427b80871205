import EarshotCore
import EarshotRecorder
import Foundation

enum DeviceSimulateCommand: Command {
    static let name = "device simulate"
    static let spec = CommandSpec(
        name: "earshot device simulate",
        abstract: "Run a simulated recorder device that speaks the device protocol over a BLE-like link.",
        discussion: """
            The device keeps its card in --dir (state and Opus recordings survive restarts and kills), shows its \
            bind code on stdout and in DIR/bind-code, serves one app at a time on 127.0.0.1 with the link's frame \
            size and rate, and advertises itself in the discovery directory ($EARSHOT_DEVICE_DIR, else \
            $EARSHOT_HOME/devices) so apps on this machine find it. --microphone plays a WAV/MP3 file \
            into it: each of --recordings plays becomes one recording. A handed-over upload plan (Wi-Fi) is PUT \
            straight to its presigned URLs. Stop it with Ctrl-C. The protocol: \
            docs/device-protocol.md.
            """,
        options: [
            .init("dir", valueName: "DIR", help: "The device's card (created when new)."),
            .init("serial", valueName: "SERIAL", help: "Serial number of a new card (default: ES1- and 6 hex digits)."),
            .init("port", valueName: "PORT", help: "TCP port of the link on 127.0.0.1 (default 0: any free port)."),
            .init("rate", valueName: "BYTES_PER_SECOND", help: "Link rate (default 32000, BLE's; 0: unlimited)."),
            .init("frame-size", valueName: "BYTES", help: "Largest frame on the link (default 244: ATT MTU 247 − 3)."),
            .init("capacity", valueName: "SIZE", help: "Storage of a new card (default 64MiB)."),
            .init("microphone", valueName: "FILE", help: "Audio the device hears (WAV, MP3…)."),
            .init("recordings", valueName: "N", help: "How many times to record --microphone (default 1)."),
            .init("speed", valueName: "X", help: "Microphone speed against real time (default 1)."),
            .init("wifi-rate", valueName: "BYTES_PER_SECOND", help: "Wi-Fi upload rate (default 0: unlimited)."),
        ],
        flags: [.init("no-wifi", help: "A device without Wi-Fi: handed-over uploads are refused (busy).")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let dir = arguments.value("dir"), !dir.isEmpty else {
            throw ArgumentError(command: spec.name, "--dir needs the directory of the device's card")
        }
        let directory = URL(fileURLWithPath: dir)
        var identity = RecorderIdentity(serial: arguments.value("serial") ?? Self.newSerial())
        if let capacity = arguments.value("capacity") {
            guard let bytes = ByteSize.parse(capacity), bytes > 0 else {
                throw ArgumentError(command: spec.name, "--capacity needs a size like 64MiB")
            }
            identity.capacity = UInt64(bytes)
        }
        var linkSettings = RecorderLink.Configuration()
        linkSettings.port = try integer(arguments, "port", default: 0, in: 0...65_535)
        linkSettings.bytesPerSecond = try integer(arguments, "rate", default: 32_000, in: 0...1_000_000_000)
        linkSettings.frameSize = try integer(arguments, "frame-size", default: 244, in: 20...65_547)
        let link = linkSettings
        let recordings = try integer(arguments, "recordings", default: 1, in: 0...10_000)
        let speed = Double(arguments.value("speed") ?? "1") ?? 0
        guard speed > 0 else { throw ArgumentError(command: spec.name, "--speed needs a positive number") }
        let microphone = arguments.value("microphone").map { Microphone(file: URL(fileURLWithPath: $0), speed: speed) }
        if let microphone, !FileManager.default.fileExists(atPath: microphone.file.path) {
            throw ArgumentError(command: spec.name, "no such file '\(microphone.file.path)'")
        }

        var configuration = Recorder.Configuration(identity: identity, directory: directory)
        configuration.bindCodeFile = directory.appendingPathComponent("bind-code")
        if arguments.flag("no-wifi") {
            configuration.wifi = nil
        } else {
            configuration.wifi?.bytesPerSecond = try integer(arguments, "wifi-rate", default: 0, in: 0...10_000_000_000)
        }
        let recorder = try Recorder(configuration: configuration)
        let device = await recorder.identity
        let discovery = DeviceAdvertisement.directory()
        if let code = await recorder.bindCode {
            print("bind code \(code)")
        } else {
            print("bound to \(await recorder.owner ?? "?")")
        }
        fflush(nil)
        try await SignalHandling.runUntilTerminated {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await RecorderLink(recorder: recorder, configuration: link).run { port in
                        let advertisement = DeviceAdvertisement(
                            serial: device.serial, model: device.model, host: link.host, port: port,
                            pid: getpid(), bound: false, bytesPerSecond: link.bytesPerSecond,
                            frameSize: link.frameSize)
                        _ = try? advertisement.publish(in: discovery)
                        print("device \(device.serial) listening on \(link.host):\(port)")
                        fflush(nil)
                    }
                }
                if let microphone {
                    for _ in 0..<recordings {
                        if case .recorded(let recording) = try await microphone.record(into: recorder) {
                            print("recorded \(recording.id): \(recording.durationMs) ms, \(recording.size) bytes")
                            fflush(nil)
                        }
                    }
                }
                try await group.next()
            }
        }
        try? FileManager.default.removeItem(at: discovery.appendingPathComponent("\(device.serial).json"))
        return 0
    }

    private static func integer(
        _ arguments: ParsedArguments, _ name: String, default value: Int, in range: ClosedRange<Int>
    ) throws -> Int {
        guard let text = arguments.value(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw ArgumentError(
                command: spec.name, "--\(name) needs a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    private static func newSerial() -> String {
        "ES1-" + String((0..<6).map { _ in "0123456789ABCDEF".randomElement()! })
    }
}
