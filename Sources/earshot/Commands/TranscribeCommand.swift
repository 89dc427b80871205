import EarshotCore
import EarshotDiarization
import EarshotSpeech
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

enum TranscribeCommand: Command {
    static let name = "transcribe"
    static let spec = CommandSpec(
        name: "earshot transcribe",
        abstract:
            "Transcribe audio files (wav, mp3, m4a/aac, flac, ogg/opus, webm, raw s16le) with the Whisper engine.",
        discussion: """
            --model takes a tier (asr-fast: greedy, asr-pro: beam 5) or an alias of one (whisper-1, ikho-asr-fast, \
            ikho-asr-pro), a model name from 'earshot models list', or the path of a whisper.cpp ggml file. Without \
            --output the transcript goes to stdout, each segment as soon as it is decoded (txt, srt, vtt, tsv; also \
            to a pipe), unless --diarize or --jobs above 1 holds it until the file is done. --jobs files are \
            decoded at once. VAD (Silero) is on; a progress bar with the time left is drawn on stderr when it is a \
            terminal. Warnings (a converted WAV, an uncertain language, speech with no words recognised) go to \
            stderr. \
            --diarize labels speakers (Speaker 1, 2, … in order of first appearance, or --speaker-label's template) \
            and splits segments where the speaker changes; --voiceprint NAME=FILE enrols a voice from FILE so that a \
            matching speaker is called NAME (repeatable; by convention "Me" for the device wearer).
            """,
        options: [
            .init(
                "model", valueName: "asr-fast|asr-pro|NAME|PATH",
                help: "Model tier, name or ggml file (default asr-fast)."),
            .init("language", valueName: "CODE", help: "Spoken language (en, de, …); default: detect."),
            .init("task", valueName: "transcribe|translate", help: "Transcribe, or translate to English."),
            .init("format", valueName: "txt|srt|vtt|json|tsv", help: "Output format (default txt)."),
            .init("output", valueName: "DIR", help: "Write <file stem>.<format> into DIR instead of stdout."),
            .init("prompt", valueName: "TEXT", help: "Initial prompt (names, spelling, style)."),
            .init("hotword", valueName: "WORD", help: "A word to favour.", repeatable: true),
            .init("beam-size", valueName: "N", help: "Beam width (overrides the tier; 1 = greedy)."),
            .init("jobs", valueName: "N", help: "Files decoded at once (default 1)."),
            .init("threads", valueName: "N", help: "Compute threads per decode (default: cores / jobs)."),
            .init("speakers", valueName: "N", help: "With --diarize: the exact number of speakers."),
            .init("min-speakers", valueName: "N", help: "With --diarize: fewest speakers to find."),
            .init("max-speakers", valueName: "N", help: "With --diarize: most speakers to find."),
            .init(
                "speaker-label", valueName: "TEMPLATE",
                help: "With --diarize: speaker label, {n} is the number (default \"Speaker {n}\")."),
            .init(
                "voiceprint", valueName: "NAME=FILE", help: "With --diarize: name the speaker whose voice FILE holds.",
                repeatable: true),
        ],
        flags: [
            .init("diarize", help: "Label speakers (who spoke when), splitting segments at speaker changes."),
            .init("word-timestamps", help: "Per-word times and probabilities (JSON)."),
            .init("no-vad", help: "Decode silence too (not recommended: invites hallucinations)."),
            .init("raw-numbers", help: "Keep Whisper's number spelling (no `at 745` → `at 7:45` rewriting)."),
        ],
        positionals: [.init("FILE", help: "Audio file(s) to transcribe.", variadic: true)])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let plan: Plan
        do { plan = try Plan(arguments) } catch let error as ArgumentError {
            writeError(error.description)
            return 64
        }
        let transcriber = FileTranscriber(
            configuration: .init(concurrentDecodes: plan.jobs, threadsPerDecode: plan.threads))
        let (engine, options, _) = try await transcriber.engine(for: plan.model, options: plan.options)
        let progress = ProgressLine(enabled: isatty(2) != 0, files: plan.files.count)
        // Speaker attribution: the model is loaded once; voiceprints are enrolled before any file is transcribed.
        let speakers: (attribution: SpeakerAttribution, options: SpeakerAttribution.Options)?
        if var attributionOptions = plan.diarization {
            let attribution = SpeakerAttribution(embedder: try ResemblyzerEmbedder())
            for (name, file) in plan.voiceprints {
                let audio = try await transcriber.prepareAudio(URL(fileURLWithPath: file))
                attributionOptions.voiceprints.append(
                    try await attribution.voiceprint(named: name, samples: audio.samples))
            }
            speakers = (attribution, attributionOptions)
        } else {
            speakers = nil
        }
        let decodeOptions = speakers == nil ? options : SpeakerAttribution.prepare(options)
        // Segments go out as they are decoded when nothing reorders or relabels them afterwards.
        let streaming = plan.outputDirectory == nil && plan.formatter.streams && speakers == nil && plan.jobs == 1

        var failures = 0
        try await withThrowingTaskGroup(of: (Int, Result<Transcript, any Error>).self) { group in
            var next = 0
            var outputs: [Int: Result<Transcript, any Error>] = [:]
            var printed = 0
            func start(_ index: Int) {
                let file = plan.files[index]
                group.addTask {
                    do {
                        let audio = try await transcriber.prepareAudio(URL(fileURLWithPath: file))
                        for warning in audio.warnings {
                            progress.clear()
                            writeError("earshot transcribe: \(file): warning: \(warning)")
                        }
                        var transcript: Transcript?
                        var printed = 0
                        if streaming { plan.emit(plan.formatter.streamHeader(), progress: progress) }
                        for try await event in engine.transcribe(samples: audio.samples, options: decodeOptions) {
                            switch event {
                            case .progress(let fraction): progress.update(index, fraction)
                            case .segment(let segment) where streaming:
                                plan.emit(plan.formatter.piece(segment, index: printed), progress: progress)
                                printed += 1
                            case .completed(let result): transcript = result
                            default: break
                            }
                        }
                        for warning in transcript?.warnings ?? [] {
                            progress.clear()
                            writeError("earshot transcribe: \(file): warning: \(warning)")
                        }
                        if let speakers, let words = transcript {
                            transcript = try await speakers.attribution.attribute(
                                words, samples: audio.samples, options: speakers.options)
                        }
                        progress.update(index, 1)
                        return (index, .success(transcript!))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            while next < min(plan.jobs, plan.files.count) {
                start(next)
                next += 1
            }
            for try await (index, result) in group {
                if next < plan.files.count {
                    start(next)
                    next += 1
                }
                outputs[index] = result
                // Print in input order.
                while let result = outputs[printed] {
                    outputs[printed] = nil
                    if !plan.write(result, of: plan.files[printed], progress: progress, streamed: streaming) {
                        failures += 1
                    }
                    printed += 1
                }
            }
        }
        progress.finish()
        return failures == 0 ? 0 : 1
    }

    /// The parsed command line.
    struct Plan: Sendable {
        var files: [String]
        var model: String
        var options: TranscriptionOptions
        var formatter: TranscriptFormatter
        var outputDirectory: String?
        var jobs: Int
        var threads: Int
        /// Speaker attribution settings when --diarize is given.
        var diarization: SpeakerAttribution.Options?
        /// --voiceprint NAME=FILE pairs.
        var voiceprints: [(name: String, file: String)] = []

        init(_ arguments: ParsedArguments) throws {
            let command = "earshot transcribe"
            files = arguments.positionals
            model = arguments.value("model") ?? "asr-fast"
            options = TranscriptionOptions()
            if let language = arguments.value("language"), language != "auto" {
                guard SpeechModel.isKnownLanguage(language) else {
                    throw ArgumentError(
                        command: command, "unknown language '\(language)': use an ISO code such as en, de, zh")
                }
                options.language = language
            }
            if let task = arguments.value("task") {
                guard let parsed = TranscriptionOptions.Task(rawValue: task) else {
                    throw ArgumentError(command: command, "--task must be transcribe or translate, not '\(task)'")
                }
                options.task = parsed
            }
            let formatName = arguments.value("format") ?? "txt"
            guard let format = TranscriptFormatter.Format(rawValue: formatName) else {
                throw ArgumentError(
                    command: command, "--format must be one of txt, srt, vtt, json, tsv, not '\(formatName)'")
            }
            formatter = TranscriptFormatter(format: format)
            outputDirectory = arguments.value("output")
            options.initialPrompt = arguments.value("prompt")
            options.hotwords = arguments.values("hotword")
            options.wordTimestamps = arguments.flag("word-timestamps")
            if arguments.flag("no-vad") { options.voiceActivity = nil }
            if arguments.flag("raw-numbers") { options.numberForms = false }
            func positive(_ name: String) throws -> Int? {
                guard let text = arguments.value(name) else { return nil }
                guard let value = Int(text), value >= 1 else {
                    throw ArgumentError(command: command, "--\(name) must be a positive integer, not '\(text)'")
                }
                return value
            }
            if let beam = try positive("beam-size") { options.beamSize = beam }
            jobs = min(try positive("jobs") ?? 1, max(1, files.count))
            let speakerOptions = ["speakers", "min-speakers", "max-speakers", "speaker-label"]
            if arguments.flag("diarize") {
                var diarization = SpeakerAttribution.Options(
                    speakers: try positive("speakers"), minSpeakers: try positive("min-speakers"),
                    maxSpeakers: try positive("max-speakers"), keepWords: options.wordTimestamps)
                if let label = arguments.value("speaker-label") { diarization.labelTemplate = label }
                do {
                    _ = try diarization.diarizerConfiguration()
                } catch {
                    throw ArgumentError(command: command, error.message.replacingOccurrences(of: "_", with: "-"))
                }
                self.diarization = diarization
                for pair in arguments.values("voiceprint") {
                    guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex,
                        pair.index(after: equals) != pair.endIndex
                    else {
                        throw ArgumentError(command: command, "--voiceprint must be NAME=FILE, not '\(pair)'")
                    }
                    let name = String(pair[..<equals]), file = String(pair[pair.index(after: equals)...])
                    guard FileManager.default.fileExists(atPath: file) else {
                        throw ArgumentError(command: command, "--voiceprint \(name): no such file '\(file)'")
                    }
                    voiceprints.append((name, file))
                }
            } else if let given = (speakerOptions + ["voiceprint"]).first(where: { !arguments.values($0).isEmpty }) {
                throw ArgumentError(command: command, "--\(given) needs --diarize")
            }
            threads = try positive("threads") ?? max(1, ProcessInfo.processInfo.activeProcessorCount / jobs)
        }

        /// Prints `text` to stdout at once (also through a pipe), clearing the progress bar first.
        func emit(_ text: String, progress: ProgressLine) {
            guard !text.isEmpty else { return }
            progress.clear()
            print(text, terminator: "")
            fflush(nil)
        }

        /// Writes one file's result (unless its segments were already `streamed`); false if it failed.
        func write(
            _ result: Result<Transcript, any Error>, of file: String, progress: ProgressLine, streamed: Bool
        ) -> Bool {
            switch result {
            case .failure(let error):
                progress.clear()
                writeError("earshot transcribe: \(file): \(error)")
                return false
            case .success(let transcript):
                if streamed { return true }
                let text = formatter.string(for: transcript)
                if let outputDirectory {
                    let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                    let url = URL(fileURLWithPath: outputDirectory).appendingPathComponent(
                        "\(stem).\(formatter.format.fileExtension)")
                    do {
                        try FileManager.default.createDirectory(
                            atPath: outputDirectory, withIntermediateDirectories: true)
                        try text.write(to: url, atomically: true, encoding: .utf8)
                    } catch {
                        progress.clear()
                        writeError("earshot transcribe: cannot write \(url.path): \(error.localizedDescription)")
                        return false
                    }
                } else {
                    progress.clear()
                    print(text, terminator: "")
                    fflush(nil)
                }
                return true
            }
        }
    }
}

/// A one-line progress bar on stderr with the time left (only when stderr is a terminal).
final class ProgressLine: @unchecked Sendable {
    // SAFETY: all state is behind `lock`.
    private let lock = NSLock()
    private let enabled: Bool
    private var fractions: [Double]
    private var lastDrawn = ""
    private let started = ContinuousClock.now

    init(enabled: Bool, files: Int) {
        self.enabled = enabled
        self.fractions = Array(repeating: 0, count: files)
    }

    func update(_ index: Int, _ fraction: Double) {
        guard enabled else { return }
        lock.withLock {
            fractions[index] = fraction
            let total = fractions.reduce(0, +) / Double(fractions.count)
            let done = fractions.filter { $0 >= 1 }.count
            let line =
                ProgressDisplay.bar("transcribing", fraction: total, elapsed: ContinuousClock.now - started)
                + (fractions.count > 1 ? " (\(done)/\(fractions.count) files)" : "")
            guard line != lastDrawn else { return }
            lastDrawn = line
            draw("\r\u{1B}[K" + line)
        }
    }

    func clear() {
        guard enabled else { return }
        lock.withLock {
            guard !lastDrawn.isEmpty else { return }
            draw("\r\u{1B}[K")
            lastDrawn = ""
        }
    }

    func finish() { clear() }

    private func draw(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
