import EarshotAudio
import EarshotCore
import EarshotKit
import EarshotLive
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `earshot live FILE`: streams a file to a server's live transcription endpoint as if it were being recorded, and
/// prints partials and finals as they come.
enum LiveCommand: Command {
    static let name = "live"
    static let spec = CommandSpec(
        name: "earshot live",
        abstract: "Stream an audio file to a server's live transcription and print the text as it comes.",
        discussion: """
            Decodes FILE (any format earshot transcribe reads), resamples it to 24 kHz PCM16 and sends it to \
            GET /v1/realtime in 100 ms chunks at real-time pace (--speed 4: four times faster; --speed max: as fast \
            as the connection goes). Server VAD ends turns at pauses (--silence: how long; --manual: one commit at the end). Partials are \
            printed as they change (on a terminal the current line is rewritten, the words not yet stable dimmed \
            after the stable ones; plain '… text' lines of stable words otherwise), \
            finals as they settle with their times on the session's audio clock, '[start → end] text', translations \
            (--translate-to) as '  → text'. At the end it waits for the last finals (--timeout), closes the session \
            and prints 'record <id>': the session is a record on the server. --json prints every server event as \
            one JSON line instead. Exits 1 when the server refuses the session, an item fails or finals are missing.

            --dialogue makes it a face-to-face dialogue (GET /v1/realtime?intent=dialogue): the files are turns, \
            spoken alternately by side 0 and side 1 (FILE on 0, the next on 1, the next on 0 …), --languages \
            names each side's language (en,es). Each final is printed with its side and language, its translation \
            into the other side's language as '→ es: text', and the translation spoken to the other side as \
            '♪ to 1 (es): 3.4 s'; --audio-out DIR keeps that speech as WAV files (NN-to-SIDE.wav).
            """,
        options: RecordsCommandSupport.options + [
            .init("speed", valueName: "N|max", help: "Stream N times faster than real time, or 'max' (default 1)."),
            .init("language", valueName: "LANG", help: "The spoken language (ISO 639-1; detected when omitted)."),
            .init("model", valueName: "MODEL", help: "asr-fast (default), asr-pro, whisper-1, …"),
            .init("prompt", valueName: "TEXT", help: "Words and names to expect."),
            .init("translate-to", valueName: "LANG", help: "Also translate each final into LANG (ISO 639-1)."),
            .init("silence", valueName: "MS", help: "Server VAD: the pause that ends a turn (default 500)."),
            .init(
                "final-window-ms", valueName: "MS",
                help: "Decode each final after the items before it, MS in all (0: alone; default: the server's)."),
            .init("timeout", valueName: "SECONDS", help: "Wait at most this long for the last finals (default 300)."),
            .init("languages", valueName: "A,B", help: "--dialogue: side 0's and side 1's languages (ISO 639-1)."),
            .init("voices", valueName: "A,B", help: "--dialogue: the voices speaking to side 0 and 1 (default alloy,nova)."),
            .init("mute", valueName: "SIDE", help: "--dialogue: do not speak translations to this side (0 or 1)."),
            .init("audio-out", valueName: "DIR", help: "--dialogue: write the spoken translations there as WAV files."),
        ],
        flags: [
            .init("manual", help: "No server VAD: commit the whole file as one item at the end."),
            .init("json", help: "Print the server's events as JSON lines."),
            .init("dialogue", help: "A face-to-face dialogue: the files are turns of side 0 and side 1 in turn."),
        ],
        positionals: [
            .init("FILE", help: "The audio file to stream."),
            .init("MORE", help: "--dialogue: the next turns' files.", optional: true, variadic: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        var planned = try Plan(arguments)
        let terminal = isatty(1) != 0
        // A terminal's progress line shows the words not yet stable too, greyed; a pipe gets stable text only.
        planned.settings.interim = terminal && !planned.json
        let plan = planned
        var decoded: [Data] = []
        for file in plan.files { decoded.append(try await pcm24(file)) }
        let turns = decoded
        let client = EarshotClient(configuration: .init(baseURL: plan.server, token: plan.token))
        let session = try await LiveSession.connect(client: client, settings: plan.settings)
        let printer = LivePrinter(
            json: plan.json, terminal: terminal, dialogue: plan.settings.dialogue, audioOut: plan.audioOut,
            outputRate: plan.settings.outputFormat.sampleRate)
        let bytesPerChunk = 24_000 * 2 / 10
        let outcome = try await withThrowingTaskGroup(of: LivePrinter.Outcome?.self) { group in
            group.addTask { await printer.print(session.events) }
            group.addTask {
                let start = Date()
                var sent = 0
                var chunk = 0
                for (turn, audio) in turns.enumerated() {
                    // A dialogue's turns alternate sides; a transcription has one file and no channel.
                    let channel = plan.settings.dialogue == nil ? nil : turn % 2
                    var offset = 0
                    while offset < audio.count {
                        let end = min(audio.count, offset + bytesPerChunk)
                        try await session.append(audio: audio.subdata(in: offset..<end), channel: channel)
                        sent += end - offset
                        offset = end
                        printer.audioSent(ms: sent / 48)
                        chunk += 1
                        if let speed = plan.speed {
                            let due = Double(chunk) * 0.1 / speed - Date().timeIntervalSince(start)
                            if due > 0 { try await Task.sleep(nanoseconds: UInt64(due * 1e9)) }
                        }
                    }
                }
                let settled = await session.finish(timeout: plan.timeout)
                if !settled, !session.isClosed {
                    writeError("earshot live: not every item got its final text within \(Int(plan.timeout)) s")
                }
                return nil
            }
            var outcome: LivePrinter.Outcome?
            for try await result in group { if let result { outcome = result } }
            return outcome
        }
        guard let outcome else { return 1 }
        if let id = session.recordID, !plan.json { print("record \(id)") }
        return outcome.ok ? 0 : 1
    }

    /// The file as 24 kHz mono PCM16 little-endian.
    static func pcm24(_ path: String) async throws -> Data {
        let decoder = try await AudioDecoder.open(contentsOf: URL(fileURLWithPath: path))
        let samples = try await decoder.decodeAll()
        let resampler = try PCMResampler(inputRate: AudioDecoder.sampleRate, outputRate: 24_000)
        let resampled = try resampler.convert(pcm16(samples)) + resampler.flush()
        return Data(pcm16(resampled))
    }

    private static func pcm16(_ samples: [Float]) -> [UInt8] {
        samples.map(Int16.init(pcmSample:)).littleEndianBytes
    }

    /// `--final-window-ms MS` (`earshot live`, `earshot eval --live`): the session's `final_window_ms`, or nil.
    static func finalWindowMs(_ arguments: ParsedArguments, command: String) throws -> Int? {
        guard let text = arguments.value("final-window-ms") else { return nil }
        let limit = RealtimeTranscriptionSession.maximumFinalWindowMs
        guard let value = Int(text), (0...limit).contains(value) else {
            throw ArgumentError(
                command: command, "--final-window-ms must be whole milliseconds from 0 to \(limit), not '\(text)'")
        }
        return value
    }

    struct Plan {
        var files: [String]
        var audioOut: URL?
        var server: URL
        var token: String
        var speed: Double?
        var timeout: TimeInterval
        var json: Bool
        var settings: LiveSession.Settings

        init(_ arguments: ParsedArguments) throws {
            let command = LiveCommand.spec.name
            guard !arguments.positionals.isEmpty else {
                throw ArgumentError(command: command, "FILE is required")
            }
            let dialogue = arguments.flag("dialogue")
            guard dialogue || arguments.positionals.count == 1 else {
                throw ArgumentError(command: command, "one FILE, or several turns with --dialogue")
            }
            for file in arguments.positionals where !FileManager.default.fileExists(atPath: file) {
                throw ArgumentError(command: command, "no such file: \(file)")
            }
            files = arguments.positionals
            let environment = ProcessInfo.processInfo.environment
            guard let server = arguments.value("server") ?? environment["EARSHOT_SERVER"],
                let base = URL(string: server), base.scheme == "http" || base.scheme == "https"
            else { throw ArgumentError(command: command, "--server needs the http(s) URL of an Earshot server") }
            guard let token = arguments.value("token") ?? environment["EARSHOT_TOKEN"], !token.isEmpty else {
                throw ArgumentError(command: command, "--token needs a user or partner access token")
            }
            self.server = base
            self.token = token
            switch arguments.value("speed") {
            case nil: speed = 1
            case "max": speed = nil
            case let value?:
                guard let number = Double(value), number > 0, number.isFinite else {
                    throw ArgumentError(command: command, "--speed must be a positive number or 'max', not '\(value)'")
                }
                speed = number
            }
            if let value = arguments.value("timeout") {
                guard let seconds = Double(value), seconds > 0 else {
                    throw ArgumentError(command: command, "--timeout must be a positive number of seconds")
                }
                timeout = seconds
            } else {
                timeout = 300
            }
            var vad = LiveSession.ServerVAD()
            if let value = arguments.value("silence") {
                guard let milliseconds = Int(value), (100...10_000).contains(milliseconds) else {
                    throw ArgumentError(command: command, "--silence must be 100 to 10000 milliseconds, not '\(value)'")
                }
                vad.silenceDurationMs = milliseconds
            }
            let finalWindowMs = try LiveCommand.finalWindowMs(arguments, command: command)
            json = arguments.flag("json")
            settings = LiveSession.Settings(
                model: arguments.value("model"), language: arguments.value("language"),
                prompt: arguments.value("prompt"), translateTo: arguments.value("translate-to"),
                serverVAD: arguments.flag("manual") ? nil : vad, inputFormat: .pcm16(sampleRate: 24_000),
                finalWindowMs: finalWindowMs)
            let dialogueOnly = ["languages", "voices", "mute", "audio-out"].filter { arguments.value($0) != nil }
            guard dialogue else {
                if let option = dialogueOnly.first {
                    throw ArgumentError(command: command, "--\(option) goes with --dialogue")
                }
                return
            }
            settings.dialogue = try Self.sides(arguments, command: command)
            if let directory = arguments.value("audio-out") {
                audioOut = URL(fileURLWithPath: directory, isDirectory: true)
                try FileManager.default.createDirectory(at: audioOut!, withIntermediateDirectories: true)
            }
        }

        /// `--languages A,B`, `--voices A,B` and `--mute SIDE` as the dialogue's two sides.
        static func sides(_ arguments: ParsedArguments, command: String) throws -> [LiveSession.DialogueChannel] {
            if arguments.value("language") != nil || arguments.value("translate-to") != nil {
                throw ArgumentError(
                    command: command, "--dialogue takes each side's language from --languages, not --language or "
                        + "--translate-to")
            }
            func pair(_ option: String, _ fallback: [String]?) throws -> [String] {
                guard let value = arguments.value(option) else {
                    guard let fallback else { throw ArgumentError(command: command, "--dialogue needs --\(option) A,B") }
                    return fallback
                }
                let parts = value.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces).lowercased()
                }
                guard parts.count == 2, !parts.contains(where: \.isEmpty) else {
                    throw ArgumentError(command: command, "--\(option) takes two values, side 0's and side 1's: A,B")
                }
                return parts
            }
            let languages = try pair("languages", nil)
            let voices = try pair("voices", ["alloy", "nova"])
            var muted: Int?
            if let value = arguments.value("mute") {
                guard let side = Int(value), side == 0 || side == 1 else {
                    throw ArgumentError(command: command, "--mute takes a side: 0 or 1, not '\(value)'")
                }
                muted = side
            }
            return (0..<2).map { LiveSession.DialogueChannel(language: languages[$0], voice: voices[$0], speak: muted != $0) }
        }
    }
}

/// Prints a live session's events: partials as they change, finals as they settle (or the raw events with --json).
final class LivePrinter: Sendable {
    struct Outcome: Sendable {
        var ok: Bool
    }

    let json: Bool
    let terminal: Bool
    /// A dialogue's sides (finals are printed with their side and language).
    let dialogue: [LiveSession.DialogueChannel]?
    /// Where a dialogue's spoken translations are written as WAV files.
    let audioOut: URL?
    /// The rate of a dialogue's spoken PCM16.
    let outputRate: Int
    /// Audio sent so far, in ms (the end of a manual item).
    private let sentMs = Mutex(0)

    init(
        json: Bool, terminal: Bool, dialogue: [LiveSession.DialogueChannel]? = nil, audioOut: URL? = nil,
        outputRate: Int = 24_000
    ) {
        self.json = json
        self.terminal = terminal
        self.dialogue = dialogue
        self.audioOut = audioOut
        self.outputRate = outputRate
    }

    func audioSent(ms: Int) {
        sentMs.withLock { $0 = ms }
    }

    /// Prints until the stream ends; the outcome says whether everything went well.
    func print(_ events: AsyncStream<LiveEvent>) async -> Outcome {
        var transcript = LiveTranscript()
        var ok = true
        var partialShown = false
        var committedSpan: [String: (start: Int, end: Int)] = [:]
        var lastEnd = 0
        var finalsWritten: Set<String> = []
        var speech: [String: [UInt8]] = [:]
        var spokenCount = 0
        for await event in events {
            defer { fflush(nil) }  // a line at a time, also into a pipe
            if json {
                if case .closed(let code, let reason) = event.kind {
                    let line = try? JSONSerialization.data(
                        withJSONObject: ["type": "closed", "code": code, "reason": reason], options: [.sortedKeys])
                    Swift.print(String(decoding: line ?? Data(), as: UTF8.self))
                } else {
                    Swift.print(String(decoding: event.json, as: UTF8.self))
                }
            }
            if case .committed(let id, _) = event.kind {
                // The span a commit covers when the server gave no VAD times: from the previous commit to the audio
                // sent so far.
                let now = sentMs.withLock { $0 }
                committedSpan[id] = (lastEnd, now)
                lastEnd = now
            }
            switch event.kind {
            case .error(let error):
                clear(&partialShown)
                writeError("earshot live: the server refused an event: \(error)")
                if error.code == "RATE_LIMITED" { ok = false }
            case .transcriptionFailed(_, let error):
                clear(&partialShown)
                writeError("earshot live: an item could not be transcribed: \(error)")
                ok = false
            case .translationFailed(_, let language, let error):
                clear(&partialShown)
                writeError("earshot live: no translation into \(language): \(error)")
            case .audioDelta(let id, _, let audio):
                speech[id, default: []] += audio
            case .audioFailed(_, let channel, let error):
                clear(&partialShown)
                writeError("earshot live: the translation could not be spoken to side \(channel): \(error)")
            case .closed(let code, let reason) where code != 1000:
                clear(&partialShown)
                writeError("earshot live: the server closed the session: \(code) \(reason)")
                ok = false
            default:
                break
            }
            guard let item = transcript.apply(event), !json else { continue }
            switch event.kind {
            case .transcriptionDelta, .transcriptionInterim:
                let text = item.text.trimmingCharacters(in: .whitespaces)
                if terminal {
                    Swift.print("\r\u{1B}[K" + Self.progressLine(stable: text, interim: item.interim), terminator: "")
                    fflush(nil)
                    partialShown = true
                } else if case .transcriptionDelta = event.kind {
                    Swift.print("… \(text)")
                }
            case .transcriptionCompleted:
                clear(&partialShown)
                guard !finalsWritten.contains(item.id) else { continue }
                finalsWritten.insert(item.id)
                let start = item.startMs ?? committedSpan[item.id]?.start ?? 0
                let end = item.endMs ?? committedSpan[item.id]?.end ?? sentMs.withLock { $0 }
                let side = item.channel.flatMap { channel in
                    dialogue.map { "[\(channel) \($0[channel].language)] " }
                } ?? ""
                Swift.print("\(side)[\(Self.clock(start)) → \(Self.clock(end))] \(item.text)")
            case .translationCompleted(_, let language, _):
                clear(&partialShown)
                Swift.print("  → " + (dialogue == nil ? "" : "\(language): ") + (item.translation ?? ""))
            case .audioDone(let id, let channel, let language, _, let milliseconds):
                clear(&partialShown)
                spokenCount += 1
                var line = "  ♪ to \(channel) (\(language)): " + String(format: "%.1f s", Double(milliseconds) / 1000)
                if let audioOut, let bytes = speech.removeValue(forKey: id) {
                    let file = audioOut.appendingPathComponent(String(format: "%02d-to-%d.wav", spokenCount, channel))
                    do {
                        let writer = try WAVWriter(url: file, sampleRate: outputRate)
                        try writer.write(pcm16: bytes)
                        try writer.close()
                        line += " → \(file.path)"
                    } catch {
                        writeError("earshot live: cannot write \(file.path): \(error)")
                        ok = false
                    }
                }
                speech[id] = nil
                Swift.print(line)
            default:
                break
            }
        }
        clear(&partialShown)
        return Outcome(ok: ok)
    }

    private func clear(_ partialShown: inout Bool) {
        guard partialShown else { return }
        Swift.print("\r\u{1B}[K", terminator: "")
        fflush(nil)
        partialShown = false
    }

    /// A terminal's line for an item still being spoken: its stable words, then its interim words dimmed (SGR 2),
    /// at most `width` characters of them, the last ones (an ellipsis marks the cut).
    static func progressLine(stable: String, interim: String, width: Int = 100) -> String {
        let interim = interim.isEmpty || stable.isEmpty ? interim : " " + interim
        let excess = stable.count + interim.count - width
        let cut = excess > 0 ? excess + 1 : 0
        let kept = (cut > 0 ? "…" : "") + stable.dropFirst(min(cut, stable.count))
        let dim = interim.dropFirst(max(0, cut - stable.count))
        return "… " + kept + (dim.isEmpty ? "" : "\u{1B}[2m\(dim)\u{1B}[0m")
    }

    /// `MM:SS.s`.
    static func clock(_ milliseconds: Int) -> String {
        let tenths = max(0, milliseconds) / 100
        return String(format: "%02d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
    }
}
