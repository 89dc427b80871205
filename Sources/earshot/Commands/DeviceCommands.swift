import EarshotAPI
import EarshotCore
import EarshotDevice
import EarshotKit
import Foundation

/// What every `earshot device …` client command shares: the server and user token, the discovery directory, the
/// sync journal, output helpers.
enum DeviceCommandSupport {
    static let serverOptions: [CommandSpec.Option] = [
        .init("server", valueName: "URL", help: "Earshot server base URL (or EARSHOT_SERVER)."),
        .init("token", valueName: "TOKEN", help: "The user's access token (or EARSHOT_TOKEN)."),
    ]
    static let deviceOptions: [CommandSpec.Option] = [
        .init(
            "device-dir", valueName: "DIR",
            help: "Discovery directory (default $EARSHOT_DEVICE_DIR, else $EARSHOT_HOME/devices)."),
        .init(
            "state-dir", valueName: "DIR",
            help: "Sync journal: what an interrupted sync resumes from (default $EARSHOT_HOME/device-sync)."),
    ]

    static func transport(_ arguments: ParsedArguments) -> StreamDeviceTransport {
        StreamDeviceTransport(
            directory: arguments.value("device-dir").map { URL(fileURLWithPath: $0) }
                ?? StreamDeviceTransport.defaultDirectory())
    }

    static func manager(_ arguments: ParsedArguments, command: String, wifi: DeviceManager.WiFiPolicy = .never)
        throws -> DeviceManager
    {
        let environment = ProcessInfo.processInfo.environment
        guard let server = arguments.value("server") ?? environment["EARSHOT_SERVER"],
            let base = URL(string: server), base.scheme == "http" || base.scheme == "https"
        else { throw ArgumentError(command: command, "--server needs the http(s) URL of an Earshot server") }
        guard let token = arguments.value("token") ?? environment["EARSHOT_TOKEN"], !token.isEmpty else {
            throw ArgumentError(command: command, "--token needs the user's access token")
        }
        let state =
            arguments.value("state-dir").map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: ModelHome.resolve(environment: environment).path).appendingPathComponent(
                "device-sync")
        return DeviceManager(
            client: EarshotClient(configuration: .init(baseURL: base, token: token)),
            configuration: .init(transport: transport(arguments), stateDirectory: state, clientName: "earshot-cli", wifi: wifi))
    }

    static func serial(_ arguments: ParsedArguments, command: String) throws -> String {
        guard let serial = arguments.positionals.first, !serial.isEmpty else {
            throw ArgumentError(command: command, "SERIAL is required (see 'earshot device scan')")
        }
        return serial
    }

    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// `1.2 MiB`, `340 KiB`, `912 B`.
    static func size(_ bytes: Int64) -> String {
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return String(format: "%.0f KiB", Double(bytes) / Double(1 << 10)) }
        return "\(bytes) B"
    }

    /// `1:05`, `0:09`, `?`.
    static func seconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "?" }
        let whole = Int(value.rounded(.up))
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}

enum DeviceScanCommand: Command {
    static let name = "device scan"
    static let spec = CommandSpec(
        name: "earshot device scan",
        abstract: "List recorder devices in reach (on this machine: running simulators).",
        discussion: """
            One line per device: serial, model, address, link rate and frame size. Devices are found through the \
            discovery directory the simulator writes (docs/devices.md); a file whose process is gone is ignored.
            """,
        options: [DeviceCommandSupport.deviceOptions[0]],
        flags: [.init("json", help: "Print the devices as JSON.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let found = try await DeviceCommandSupport.transport(arguments).scan(timeoutSeconds: 0)
        if arguments.flag("json") {
            try DeviceCommandSupport.printJSON(found)
            return 0
        }
        if found.isEmpty { DeviceCommandSupport.say("no devices found") }
        for device in found {
            let rate = device.bytesPerSecond.map { $0 == 0 ? "unlimited" : "\($0) B/s" } ?? "?"
            DeviceCommandSupport.say(
                "\(device.serial)  \(device.model)  \(device.address)  link \(rate), frames \(device.frameSize) B")
        }
        return 0
    }
}

enum DeviceBindCommand: Command {
    static let name = "device bind"
    static let spec = CommandSpec(
        name: "earshot device bind",
        abstract: "Bind a device to your account with the code it shows.",
        discussion: """
            The platform registers the device for the token's user (BIND_OCCUPIED when another user holds it), the \
            device checks the one-time code, and its binding secret goes to the platform (never stored here).
            """,
        options: DeviceCommandSupport.serverOptions + DeviceCommandSupport.deviceOptions + [
            .init("code", valueName: "CODE", help: "The 6-digit code the device shows (the simulator: DIR/bind-code)."),
            .init("name", valueName: "NAME", help: "A display name (default: model and serial)."),
            .init("home", valueName: "HOME_ID", help: "The home to put it in (default: your current home)."),
        ],
        flags: [.init("json", help: "Print the registry's device as JSON.")],
        positionals: [.init("SERIAL", help: "The device (see 'earshot device scan').")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let serial = try DeviceCommandSupport.serial(arguments, command: spec.name)
        guard let code = arguments.value("code"), !code.isEmpty else {
            throw ArgumentError(command: spec.name, "--code needs the code the device shows")
        }
        let manager = try DeviceCommandSupport.manager(arguments, command: spec.name)
        let device = try await manager.find(serial)
        let bound = try await manager.bind(
            device, code: code, name: arguments.value("name"), homeID: arguments.value("home"))
        if arguments.flag("json") {
            try DeviceCommandSupport.printJSON(bound)
        } else {
            DeviceCommandSupport.say("bound \(bound.serial) (\(bound.name)) to \(bound.owner) in home \(bound.homeID)")
        }
        return 0
    }
}

enum DeviceListCommand: Command {
    static let name = "device list"
    static let spec = CommandSpec(
        name: "earshot device list",
        abstract: "List your devices, or the recordings on one device.",
        discussion: """
            Without SERIAL: your devices in the registry (online state, battery and storage as last reported). With \
            SERIAL: connects to the device and lists the recordings still on it (id, start time UTC, duration, size, \
            codec, SHA-256), oldest first, after its status.
            """,
        options: DeviceCommandSupport.serverOptions + DeviceCommandSupport.deviceOptions,
        flags: [.init("json", help: "Print JSON.")],
        positionals: [.init("SERIAL", help: "A device to look into.", optional: true)])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let manager = try DeviceCommandSupport.manager(arguments, command: spec.name)
        guard let serial = arguments.positionals.first else {
            let devices = try await manager.devices()
            if arguments.flag("json") {
                try DeviceCommandSupport.printJSON(DeviceList(devices: devices))
                return 0
            }
            if devices.isEmpty { DeviceCommandSupport.say("no devices bound") }
            for device in devices {
                var line = "\(device.serial)  \(device.name)  \(device.online ? "online" : "offline")  \(device.state)"
                if let report = device.report {
                    line +=
                        "  battery \(report.battery)%  storage \(DeviceCommandSupport.size(report.storageUsed))"
                        + " of \(DeviceCommandSupport.size(report.storageTotal))  \(report.recordingCount) recordings"
                }
                DeviceCommandSupport.say(line)
            }
            return 0
        }
        let (status, recordings) = try await manager.inspect(try await manager.find(serial))
        if arguments.flag("json") {
            struct Listed: Encodable {
                var id: UInt32
                var startedAtMs: UInt64
                var durationMs: UInt32
                var size: UInt64
                var codec: String
                var sha256: String
                enum CodingKeys: String, CodingKey {
                    case id, size, codec, sha256
                    case startedAtMs = "started_at_ms"
                    case durationMs = "duration_ms"
                }
            }
            try DeviceCommandSupport.printJSON(
                recordings.map {
                    Listed(
                        id: $0.id, startedAtMs: $0.startedAtMs, durationMs: $0.durationMs, size: $0.size,
                        codec: $0.codec == .wav ? "wav" : "opus", sha256: $0.sha256Hex)
                })
            return 0
        }
        DeviceCommandSupport.say(
            "\(serial): battery \(status.batteryPercent)%, storage \(DeviceCommandSupport.size(Int64(status.storageUsed)))"
                + " of \(DeviceCommandSupport.size(Int64(status.storageTotal))), \(recordings.count) recordings"
                + (status.recording ? ", recording now" : ""))
        for recording in recordings {
            DeviceCommandSupport.say(
                "\(recording.id)  \(RecordsCommandSupport.time(Int64(recording.startedAtMs)))  "
                    + "\(RecordsCommandSupport.clock(Int(recording.durationMs)))  "
                    + "\(DeviceCommandSupport.size(Int64(recording.size)))  \(recording.codec == .wav ? "wav" : "opus")  "
                    + String(recording.sha256Hex.prefix(16)))
        }
        return 0
    }
}

enum DeviceSyncCommand: Command {
    static let name = "device sync"
    static let spec = CommandSpec(
        name: "earshot device sync",
        abstract: "Sync a device's recordings to Earshot, with progress; resumes an interrupted sync.",
        discussion: """
            Each recording is read from the device, uploaded, checked by the server against the device's SHA-256, \
            made a record, and only then freed on the device. Prints a progress line about once a second (overall \
            and the current recording: bytes and time left), a line per synced recording, and storage alerts. An \
            interrupted sync (Ctrl-C, a crash, the device gone) continues from the journal in --state-dir. With \
            --wifi the device uploads large backlogs itself over Wi-Fi (auto: 8 MiB or more).
            """,
        options: DeviceCommandSupport.serverOptions + DeviceCommandSupport.deviceOptions + [
            .init("wifi", valueName: "auto|always|never", help: "Hand the upload to the device's Wi-Fi (default auto)."),
            .init("window", valueName: "BYTES", help: "Bytes per read request (default 32768)."),
        ],
        flags: [.init("json", help: "Print the summary as JSON at the end.")],
        positionals: [.init("SERIAL", help: "The device.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let serial = try DeviceCommandSupport.serial(arguments, command: spec.name)
        let wifi: DeviceManager.WiFiPolicy
        switch arguments.value("wifi") ?? "auto" {
        case "auto": wifi = .automatic(minimumBacklogBytes: 8 << 20)
        case "always": wifi = .always
        case "never": wifi = .never
        default: throw ArgumentError(command: spec.name, "--wifi must be auto, always or never")
        }
        var manager = try DeviceCommandSupport.manager(arguments, command: spec.name, wifi: wifi)
        if let text = arguments.value("window") {
            guard let window = Int(text), (1_024...1_048_576).contains(window) else {
                throw ArgumentError(command: spec.name, "--window needs a number of bytes in 1024…1048576")
            }
            var configuration = manager.configuration
            configuration.readWindow = window
            manager = DeviceManager(client: manager.client, configuration: configuration)
        }
        let sync = manager.sync(try await manager.find(serial))
        let printer = Task {
            var lastLine = 0.0
            for await event in sync.events {
                switch event {
                case .progress(let progress):
                    let now = ProcessInfo.processInfo.systemUptime
                    let boundary = progress.current.map { $0.completedBytes == $0.size } ?? true
                    guard now - lastLine >= 1 || boundary else { continue }
                    lastLine = now
                    DeviceCommandSupport.say(line(progress))
                case .synced(let recording):
                    DeviceCommandSupport.say(
                        "synced \(recording.id) → \(recording.recordID) (\(recording.size) bytes, SHA-256 "
                            + "\(recording.sha256.prefix(12))…, \(recording.viaWiFi ? "Wi-Fi" : "link")"
                            + (recording.resumed ? ", resumed" : "") + "); freed \(recording.freedBytes) bytes on the device")
                case .failed(let recording, let error):
                    DeviceCommandSupport.say("failed \(recording): \(error.message) (kept on the device)")
                case .storage(let alert):
                    DeviceCommandSupport.say(
                        alert.full
                            ? "storage full: \(DeviceCommandSupport.size(alert.usedBytes)) of "
                                + "\(DeviceCommandSupport.size(alert.totalBytes)); the device stopped recording"
                            : "storage \(alert.percent)%: \(DeviceCommandSupport.size(alert.usedBytes)) of "
                                + "\(DeviceCommandSupport.size(alert.totalBytes)) used")
                case .batteryLow(let percent):
                    DeviceCommandSupport.say("battery low: \(percent)%")
                case .recorded(let id, let durationMs, let size):
                    DeviceCommandSupport.say("recorded \(id): \(durationMs) ms, \(size) bytes (next sync)")
                }
            }
        }
        let summary: DeviceSyncSummary
        do {
            summary = try await SignalHandling.cancellingOnInterrupt { try await sync.run() }
        } catch {
            await printer.value
            throw error
        }
        await printer.value
        if arguments.flag("json") {
            struct Summary: Encodable {
                var synced: [String]
                var failed: [String: String]
                var bytesOverLink: Int64
                var bytesOverWiFi: Int64
                var seconds: Double
                enum CodingKeys: String, CodingKey {
                    case synced, failed, seconds
                    case bytesOverLink = "bytes_over_link"
                    case bytesOverWiFi = "bytes_over_wifi"
                }
            }
            try DeviceCommandSupport.printJSON(
                Summary(
                    synced: summary.synced.map(\.recordID),
                    failed: Dictionary(uniqueKeysWithValues: summary.failed.map { (String($0.key), $0.value) }),
                    bytesOverLink: summary.bytesOverLink, bytesOverWiFi: summary.bytesOverWiFi, seconds: summary.seconds))
        } else {
            let rate = summary.seconds > 0 ? Double(summary.bytesOverLink) / summary.seconds : 0
            DeviceCommandSupport.say(
                "done: \(summary.synced.count) synced, \(summary.failed.count) failed; \(summary.bytesOverLink) bytes "
                    + "over the link, \(summary.bytesOverWiFi) over Wi-Fi in "
                    + String(format: "%.1f s (%.0f B/s)", summary.seconds, rate))
        }
        return summary.failed.isEmpty ? 0 : 1
    }

    /// `sync 40% 224 KiB of 549 KiB, 2/3 recordings, 0:10 left · recording 3: 38 KiB of 183 KiB, 0:05 left`
    static func line(_ progress: DeviceSyncProgress) -> String {
        var text =
            "sync \(Int(progress.fractionCompleted * 100))% \(progress.completedBytes) of \(progress.totalBytes) bytes, "
            + "\(progress.completedRecordings)/\(progress.totalRecordings) recordings, "
            + "\(DeviceCommandSupport.seconds(progress.secondsLeft)) left"
        if let current = progress.current {
            text +=
                " · recording \(current.id): \(current.completedBytes) of \(current.size) bytes, "
                + "\(DeviceCommandSupport.seconds(current.secondsLeft)) left" + (current.viaWiFi ? " (Wi-Fi)" : "")
        }
        return text
    }
}

enum DeviceUnbindCommand: Command {
    static let name = "device unbind"
    static let spec = CommandSpec(
        name: "earshot device unbind",
        abstract: "Unbind a device from your account (with --clear, erase its recordings first).",
        discussion: """
            The device forgets its owner (and with --clear erases every recording, synced or not), then the \
            registry forgets the device. Without --clear, recordings not yet synced stay on the device for its \
            next owner: sync first to keep them.
            """,
        options: DeviceCommandSupport.serverOptions + DeviceCommandSupport.deviceOptions,
        flags: [.init("clear", help: "Erase every recording on the device.")],
        positionals: [.init("SERIAL", help: "The device.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let serial = try DeviceCommandSupport.serial(arguments, command: spec.name)
        let manager = try DeviceCommandSupport.manager(arguments, command: spec.name)
        try await manager.unbind(try await manager.find(serial), clear: arguments.flag("clear"))
        DeviceCommandSupport.say("unbound \(serial)" + (arguments.flag("clear") ? "; its recordings were erased" : ""))
        return 0
    }
}

enum DeviceRenameCommand: Command {
    static let name = "device rename"
    static let spec = CommandSpec(
        name: "earshot device rename",
        abstract: "Rename one of your devices.",
        options: DeviceCommandSupport.serverOptions,
        flags: [.init("json", help: "Print the device as JSON.")],
        positionals: [.init("SERIAL", help: "The device."), .init("NAME", help: "Its new name.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let serial = try DeviceCommandSupport.serial(arguments, command: spec.name)
        guard arguments.positionals.count == 2, !arguments.positionals[1].isEmpty else {
            throw ArgumentError(command: spec.name, "NAME is required")
        }
        let manager = try DeviceCommandSupport.manager(arguments, command: spec.name)
        let device = try await manager.rename(serial, to: arguments.positionals[1])
        if arguments.flag("json") {
            try DeviceCommandSupport.printJSON(device)
        } else {
            DeviceCommandSupport.say("renamed \(device.serial) to \(device.name)")
        }
        return 0
    }
}

/// The automatic-task settings `device defaults` and `device settings` share.
enum DeviceSettingOptions {
    static let options: [CommandSpec.Option] = [
        .init("auto-transcribe", valueName: "on|off", help: "Transcribe each synced recording."),
        .init("auto-summarize", valueName: "on|off", help: "Summarise it once transcribed."),
        .init("language", valueName: "CODE", help: "The recordings' language (an ISO code such as en), or auto."),
        .init("transcription-model", valueName: "TIER", help: "asr-fast (low latency) or asr-pro (high accuracy)."),
    ]

    static func toggle(_ arguments: ParsedArguments, _ name: String, command: String) throws -> Bool? {
        guard let value = arguments.value(name) else { return nil }
        switch value.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw ArgumentError(command: command, "--\(name) takes on or off (got \(value))")
        }
    }

    static func describe(
        autoTranscribe: Bool, autoSummarize: Bool, language: String, transcriptionModel: String
    ) -> String {
        "transcribe \(autoTranscribe ? "on" : "off"), summarize \(autoSummarize ? "on" : "off"), "
            + "language \(language), model \(transcriptionModel)"
    }
}

enum DeviceDefaultsCommand: Command {
    static let name = "device defaults"
    static let spec = CommandSpec(
        name: "earshot device defaults",
        abstract: "Show or change what your devices do with synced recordings.",
        discussion: """
            Your defaults for every device without its own setting: transcribe each synced recording (default on), \
            summarise it (default off), its language (default auto: detected) and the speech tier (default \
            asr-fast). Without options, prints them; with options, changes those and prints the result. A device's \
            own setting ('earshot device settings') wins.
            """,
        options: DeviceCommandSupport.serverOptions + DeviceSettingOptions.options,
        flags: [.init("json", help: "Print the defaults as JSON.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let manager = try DeviceCommandSupport.manager(arguments, command: spec.name)
        let registry = DevicesClient(client: manager.client)
        let update = DeviceDefaultsUpdateRequest(
            autoTranscribe: try DeviceSettingOptions.toggle(arguments, "auto-transcribe", command: spec.name),
            autoSummarize: try DeviceSettingOptions.toggle(arguments, "auto-summarize", command: spec.name),
            language: arguments.value("language"), transcriptionModel: arguments.value("transcription-model"))
        let defaults =
            update == DeviceDefaultsUpdateRequest()
            ? try await registry.defaults() : try await registry.updateDefaults(update)
        if arguments.flag("json") {
            try DeviceCommandSupport.printJSON(defaults)
        } else {
            DeviceCommandSupport.say(
                "defaults for \(defaults.userID): "
                    + DeviceSettingOptions.describe(
                        autoTranscribe: defaults.autoTranscribe, autoSummarize: defaults.autoSummarize,
                        language: defaults.language, transcriptionModel: defaults.transcriptionModel))
        }
        return 0
    }
}

enum DeviceSettingsCommand: Command {
    static let name = "device settings"
    static let spec = CommandSpec(
        name: "earshot device settings",
        abstract: "Show or change one device's own automatic-task settings.",
        discussion: """
            Without options, prints what the device does with synced recordings (its own settings, else your \
            defaults). With options, sets them for this device only; --follow-defaults forgets its own settings so \
            it follows 'earshot device defaults' again.
            """,
        options: DeviceCommandSupport.serverOptions + DeviceSettingOptions.options,
        flags: [
            .init("follow-defaults", help: "Forget this device's own settings: follow your defaults."),
            .init("json", help: "Print the device as JSON."),
        ],
        positionals: [.init("SERIAL", help: "The device.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let serial = try DeviceCommandSupport.serial(arguments, command: spec.name)
        let manager = try DeviceCommandSupport.manager(arguments, command: spec.name)
        let registry = DevicesClient(client: manager.client)
        let update = DeviceUpdateRequest(
            autoTranscribe: try DeviceSettingOptions.toggle(arguments, "auto-transcribe", command: spec.name),
            autoSummarize: try DeviceSettingOptions.toggle(arguments, "auto-summarize", command: spec.name),
            language: arguments.value("language"), transcriptionModel: arguments.value("transcription-model"),
            followDefaults: arguments.flag("follow-defaults") ? true : nil)
        let device =
            update == DeviceUpdateRequest() ? try await registry.get(serial) : try await registry.update(serial, update)
        if arguments.flag("json") {
            try DeviceCommandSupport.printJSON(device)
        } else {
            DeviceCommandSupport.say(
                "\(device.serial) (\(device.name)): "
                    + DeviceSettingOptions.describe(
                        autoTranscribe: device.autoTranscribe, autoSummarize: device.autoSummarize,
                        language: device.language, transcriptionModel: device.transcriptionModel))
        }
        return 0
    }
}
