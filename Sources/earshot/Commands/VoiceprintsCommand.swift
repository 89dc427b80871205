import EarshotAPI
import EarshotCore
import EarshotKit
import Foundation

enum VoiceprintsCommand: Command {
    static let name = "voiceprints"
    static let spec = CommandSpec(
        name: "earshot voiceprints",
        abstract: "Enrol, list and delete named speakers (voiceprints) on an Earshot server.",
        discussion: """
            ACTION is one of: enroll NAME FILE (uploads FILE, 10–30 s of that person speaking, and enrols its \
            dominant voice as NAME; enrolling a name again replaces it), list, delete VOICEPRINT_ID. Later \
            transcriptions with diarization of that user's recordings call a matching speaker NAME; by convention \
            "Me" is the person wearing the recording device. --token is a partner token (then --user is required) \
            or a user token (its own user). For local files use 'earshot transcribe --diarize --voiceprint NAME=FILE'.
            """,
        options: [
            .init("server", valueName: "URL", help: "The Earshot server (http or https)."),
            .init("token", valueName: "TOKEN", help: "A partner token (with --user) or a user token."),
            .init("user", valueName: "USER_ID", help: "The partner's user the voiceprints belong to."),
        ],
        flags: [.init("json", help: "Print JSON instead of text.")],
        positionals: [
            .init("ACTION", help: "enroll, list or delete."),
            .init("ARGUMENT", help: "NAME FILE (enroll) or VOICEPRINT_ID (delete).", optional: true, variadic: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let server = arguments.value("server"), let base = URL(string: server),
            base.scheme == "http" || base.scheme == "https", base.host != nil
        else { throw ArgumentError(command: spec.name, "--server needs the http(s) URL of an Earshot server") }
        guard let token = arguments.value("token"), !token.isEmpty else {
            throw ArgumentError(command: spec.name, "--token needs a partner token (with --user) or a user token")
        }
        let client = EarshotClient(configuration: .init(baseURL: base, token: token))
        let voiceprints = VoiceprintClient(client: client)
        let user = arguments.value("user")
        let json = arguments.flag("json")
        let action = arguments.positionals[0]
        let rest = Array(arguments.positionals.dropFirst())
        switch action {
        case "enroll", "enrol":
            guard rest.count == 2 else { throw ArgumentError(command: spec.name, "enroll needs NAME and FILE") }
            let file = URL(fileURLWithPath: rest[1])
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw ArgumentError(command: spec.name, "no such file '\(rest[1])'")
            }
            let upload = try await FileUploader(client: client).upload(fileAt: file)
            let voiceprint = try await voiceprints.enrol(name: rest[0], fileID: upload.fileID, userID: user)
            try show([voiceprint], json: json)
        case "list":
            guard rest.isEmpty else { throw ArgumentError(command: spec.name, "list takes no argument") }
            try show(try await voiceprints.list(userID: user), json: json)
        case "delete":
            guard rest.count == 1 else { throw ArgumentError(command: spec.name, "delete needs a VOICEPRINT_ID") }
            try show([try await voiceprints.delete(rest[0])], json: json)
        default:
            throw ArgumentError(command: spec.name, "unknown action '\(action)'; use enroll, list or delete")
        }
        return 0
    }

    private static func show(_ voiceprints: [SpeakerVoiceprint], json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(voiceprints), as: UTF8.self))
            return
        }
        for voiceprint in voiceprints {
            print(
                "\(voiceprint.voiceprintID)  \(voiceprint.userID)  \(voiceprint.name)  "
                    + String(format: "%.1f s of speech", Double(voiceprint.speechMs) / 1000))
        }
    }
}
