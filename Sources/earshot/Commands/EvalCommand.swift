import EarshotAPI
import EarshotCore
import EarshotDiarization
import EarshotEval
import EarshotKit
import EarshotLive
import EarshotSpeech
import Foundation

enum EvalCommand: Command {
    static let name = "eval"
    static let spec = CommandSpec(
        name: "earshot eval",
        abstract: "Perfusion test: transcribe a directory of audio and score it against reference texts.",
        discussion: """
            Each audio file in --audio is paired with the .txt file of the same name in --refs (one reference \
            sentence per line) and, with --rttm, the .rttm file of the same name (speaker turns, for DER). Files \
            run through the same pipeline as 'earshot transcribe': WAVs are checked against the compliance tiers \
            (refused ones are reported with the conversion command). Exits 3 when --max-wer is exceeded and 1 when \
            any file failed. With --server and --token (a partner token) each file is uploaded to that Earshot \
            server and transcribed by a task there instead of locally. With --rttm the transcripts are diarized \
            (as 'earshot transcribe --diarize', or a task with diarization on) and DER is reported, and cpWER when \
            the references are speaker-attributed ('speaker<TAB>text' lines). For text-only scoring see \
            'earshot eval text'. With --live each file is also replayed through the live transcription path \
            (the session /v1/realtime runs, in-process: 100 ms appends at real-time pace, or --speed N times \
            faster, server VAD): the streamed finals are scored and reported next to the offline WER of the same \
            files, with the latency from each utterance's speech start to its first partial and from its end to its \
            final (p50/p95).
            """,
        options: [
            .init("audio", valueName: "DIR", help: "Directory of audio files."),
            .init("refs", valueName: "DIR", help: "Directory of reference .txt files."),
            .init("rttm", valueName: "DIR", help: "Directory of reference .rttm files (speaker turns)."),
            .init("model", valueName: "asr-fast|asr-pro|NAME|PATH", help: "Model (default asr-fast)."),
            .init("language", valueName: "CODE", help: "Spoken language and normalisation rules (default en)."),
            .init("server", valueName: "URL", help: "Transcribe through a running Earshot server (with --token)."),
            .init("token", valueName: "TOKEN", help: "Partner access token for --server."),
            .init("speed", valueName: "N", help: "With --live: replay N times faster than real time (default 1)."),
            .init(
                "final-window-ms", valueName: "MS",
                help: "With --live: the session's final_window_ms (0: each item alone; default 25000, as a server's)."),
        ] + EvalOutput.options,
        flags: [
            .init("live", help: "Also replay the files through the live path; report streamed vs offline WER.")
        ])

    /// Recognition through the production file pipeline.
    struct LocalRecognizer: Recognizer {
        let transcriber: FileTranscriber
        let engine: SpeechEngine
        let options: TranscriptionOptions
        /// Speaker attribution, when reference turns (--rttm) ask for it.
        let speakers: SpeakerAttribution?

        func recognize(_ file: URL) async throws -> RecognizedFile {
            let clock = ContinuousClock()
            let started = clock.now
            let audio = try await transcriber.prepareAudio(file)
            var transcript = try await engine.transcript(
                of: audio.samples, options: speakers == nil ? options : SpeakerAttribution.prepare(options))
            if let speakers {
                transcript = try await speakers.attribute(transcript, samples: audio.samples, options: .init())
            }
            let info = audio.info
            return RecognizedFile(
                segments: transcript.segments.map {
                    HypothesisSegment(
                        text: $0.text, speaker: $0.speaker, startMilliseconds: $0.startMs, endMilliseconds: $0.endMs)
                },
                audio: .milliseconds(audio.samples.count / 16), elapsed: clock.now - started, warnings: audio.warnings,
                audioFormat: "\(info.container) \(info.codec) \(info.sampleRate) Hz \(info.channels) ch")
        }
    }

    /// Recognition through a running server: presigned upload, a transcription task, polling until it ends.
    struct ServerRecognizer: Recognizer {
        let client: EarshotClient
        let model: String
        let language: String
        let diarize: Bool

        func recognize(_ file: URL) async throws -> RecognizedFile {
            let clock = ContinuousClock()
            let started = clock.now
            let upload = try await FileUploader(client: client).upload(fileAt: file)
            let tasks = TranscriptionClient(client: client)
            let created = try await tasks.create(
                TranscriptionTaskRequest(
                    fileURL: upload.downloadURL, model: model, language: language,
                    diarization: diarize ? .init(enabled: true) : nil))
            let task = try await tasks.wait(for: created.taskID)
            return RecognizedFile(
                segments: (task.segments ?? []).map {
                    HypothesisSegment(
                        text: $0.text, speaker: $0.speaker, startMilliseconds: $0.startMs, endMilliseconds: $0.endMs)
                },
                audio: .milliseconds(task.durationMs ?? 0), elapsed: clock.now - started,
                audioFormat: file.pathExtension.lowercased())
        }
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let audio = arguments.value("audio"), let refs = arguments.value("refs") else {
            throw ArgumentError(command: spec.name, "--audio DIR and --refs DIR are required")
        }
        let languageCode = arguments.value("language") ?? "en"
        guard let language = TextNormalizer.Language(rawValue: languageCode) else {
            throw ArgumentError(command: spec.name, "--language must be en or zh for scoring, not '\(languageCode)'")
        }
        let output = try EvalOutput(arguments, command: spec.name)
        let model = arguments.value("model") ?? "asr-fast"
        if arguments.flag("live") {
            return try await runLive(arguments, language: language, model: model, output: output)
        }
        guard arguments.value("speed") == nil, arguments.value("final-window-ms") == nil else {
            throw ArgumentError(
                command: spec.name, "--speed and --final-window-ms are for the --live replay; add --live")
        }
        let recognizer: any Recognizer
        let conditions: TestConditions
        if let server = arguments.value("server") {
            guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https",
                let token = arguments.value("token")
            else {
                throw ArgumentError(command: spec.name, "--server needs an http(s) URL and --token a partner token")
            }
            recognizer = ServerRecognizer(
                client: EarshotClient(configuration: .init(baseURL: base, token: token)), model: model,
                language: languageCode, diarize: arguments.value("rttm") != nil)
            conditions = TestConditions(
                model: "\(model) on \(server)",
                settings: ["language": languageCode, "normalisation": language.rawValue],
                machine: "server \(server)")
        } else {
            let transcriber = FileTranscriber()
            var options = TranscriptionOptions()
            options.language = languageCode
            let (engine, tuned, resolved) = try await transcriber.engine(for: model, options: options)
            let speakers =
                arguments.value("rttm") == nil ? nil : SpeakerAttribution(embedder: try ResemblyzerEmbedder())
            recognizer = LocalRecognizer(transcriber: transcriber, engine: engine, options: tuned, speakers: speakers)
            conditions = TestConditions(
                model: "\(model) (\(URL(fileURLWithPath: resolved.path).lastPathComponent))",
                settings: [
                    "beam size": "\(tuned.beamSize)", "language": languageCode, "temperature": "\(tuned.temperature)",
                    "VAD": tuned.voiceActivity == nil ? "off" : "Silero", "normalisation": language.rawValue,
                    "diarization": speakers == nil ? "off" : "\(SpeakerAttribution.embedderName), energy VAD regions",
                ],
                machine: TestConditions.currentMachine())
        }
        let run = PerfusionRun(evaluation: TextEvaluation(configuration: .init(language: language)))
        let outcome = try await run.run(
            audio: URL(fileURLWithPath: audio), references: URL(fileURLWithPath: refs),
            rttm: arguments.value("rttm").map { URL(fileURLWithPath: $0) },
            recognizer: recognizer, conditions: conditions)

        return try report(outcome, output: output)
    }

    /// Prints the scores (per file, totals, speakers, and the live figures when there are any), the warnings and
    /// failures, writes the requested files and returns the exit status.
    static func report(_ outcome: PerfusionRun.Outcome, output: EvalOutput) throws -> Int32 {
        let result = outcome.result
        let offline = Dictionary(
            (result.live?.documents ?? []).map { ($0.name, $0.offlineWordErrorRate) }, uniquingKeysWith: { a, _ in a })
        for document in result.documents {
            let line = document.name + String(format: "  WER %.4f", document.words.errorRate)
            print(line + (offline[document.name].map { String(format: "  (offline %.4f)", $0) } ?? ""))
        }
        let words = result.words
        let realTime = result.timing?.realTimeFactor.map { String(format: "%.3f", $0) } ?? "-"
        print(
            String(
                format: "total  WER %.4f  CER %.4f  accuracy %.4f  (ref words %d: S %d D %d I %d)",
                result.wordErrorRate, result.characterErrorRate, result.accuracy, words.referenceLength,
                words.substitutions, words.deletions, words.insertions) + "  RTF \(realTime)")
        if let diarization = result.diarization {
            print(String(format: "DER %.4f", diarization.errorRate))
        }
        if let permutation = result.permutationWER {
            print(String(format: "cpWER %.4f", permutation.errorRate))
        }
        if let live = result.live {
            func figure(_ summary: LiveFigures.Summary?) -> String {
                summary.map { String(format: "p50 %.2f s  p95 %.2f s  (%d)", $0.p50, $0.p95, $0.count) } ?? "none"
            }
            print(
                String(
                    format: "live  streamed WER %.4f  offline WER %.4f  difference %+.4f  speed %gx",
                    live.streamedWordErrorRate, live.offlineWordErrorRate, live.werDifference, live.speed))
            print("live  speech start -> first partial  " + figure(live.firstPartial))
            print("live  speech end -> final  " + figure(live.final))
        }
        for (name, notes) in outcome.warnings.sorted(by: { $0.key < $1.key }) {
            for note in notes { writeError("earshot eval: \(name): warning: \(note)") }
        }
        for failure in outcome.failures { writeError("earshot eval: \(failure.name): \(failure.message)") }
        if let gated = try output.finish(result) { return gated }
        return outcome.failures.isEmpty ? 0 : 1
    }

    /// `--live`: the files through the offline pipeline and then through the live path (``LiveReplayRecognizer``),
    /// the streamed result reported with the offline WER and the latencies beside it.
    static func runLive(
        _ arguments: ParsedArguments, language: TextNormalizer.Language, model: String, output: EvalOutput
    ) async throws -> Int32 {
        guard arguments.value("server") == nil, arguments.value("rttm") == nil else {
            throw ArgumentError(
                command: spec.name, "--live replays through the live path in-process; it takes neither --server nor --rttm")
        }
        var speed = 1.0
        if let text = arguments.value("speed") {
            guard let value = Double(text), value >= 0.5, value <= 100 else {
                throw ArgumentError(command: spec.name, "--speed must be a number from 0.5 to 100, not '\(text)'")
            }
            speed = value
        }
        let finalWindowMs =
            try LiveCommand.finalWindowMs(arguments, command: spec.name)
            ?? Int(RealtimeTranscriptionSession.Configuration().finalWindow / .milliseconds(1))
        guard let audio = arguments.value("audio"), let refs = arguments.value("refs") else {
            throw ArgumentError(command: spec.name, "--audio DIR and --refs DIR are required")
        }
        let languageCode = arguments.value("language") ?? "en"
        let transcriber = FileTranscriber()
        var options = TranscriptionOptions()
        options.language = languageCode
        let (engine, tuned, resolved) = try await transcriber.engine(for: model, options: options)
        var settings: [String: String] = [
            "beam size": "\(tuned.beamSize)", "language": languageCode, "temperature": "\(tuned.temperature)",
            "VAD": tuned.voiceActivity == nil ? "off" : "Silero", "normalisation": language.rawValue,
        ]
        let conditions = TestConditions(
            model: "\(model) (\(URL(fileURLWithPath: resolved.path).lastPathComponent))", settings: settings,
            machine: TestConditions.currentMachine())
        let run = PerfusionRun(evaluation: TextEvaluation(configuration: .init(language: language)))
        let (audioDirectory, refsDirectory) = (URL(fileURLWithPath: audio), URL(fileURLWithPath: refs))
        let offline = try await run.run(
            audio: audioDirectory, references: refsDirectory,
            recognizer: LocalRecognizer(transcriber: transcriber, engine: engine, options: tuned, speakers: nil),
            conditions: conditions)
        let replay = LiveReplayRecognizer(
            transcriber: transcriber, engine: engine, options: tuned,
            settings: TranscriptionSettings(model: model, language: languageCode), speed: speed,
            finalWindow: .milliseconds(finalWindowMs))
        settings["live"] =
            "in-process RealtimeTranscriptionSession, server VAD (OpenAI defaults), 100 ms PCM16 appends at "
            + (speed == 1 ? "real-time pace" : "\(speed)x real time")
            + ", final_window_ms \(finalWindowMs)"
        var outcome = try await run.run(
            audio: audioDirectory, references: refsDirectory, recognizer: replay,
            conditions: TestConditions(
                model: conditions.model, settings: settings, machine: conditions.machine),
            title: "Earshot live perfusion report")
        outcome.result.live = LiveFigures(
            streamed: outcome.result, offline: offline.result, utterances: replay.utterances, speed: speed)
        for failure in offline.failures { writeError("earshot eval: \(failure.name) (offline): \(failure.message)") }
        let status = try report(outcome, output: output)
        return status == 0 && !offline.failures.isEmpty ? 1 : status
    }
}
