import EarshotAPI
import EarshotCore
import EarshotDiarization
import EarshotEval
import EarshotKit
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
            'earshot eval text'.
            """,
        options: [
            .init("audio", valueName: "DIR", help: "Directory of audio files."),
            .init("refs", valueName: "DIR", help: "Directory of reference .txt files."),
            .init("rttm", valueName: "DIR", help: "Directory of reference .rttm files (speaker turns)."),
            .init("model", valueName: "asr-fast|asr-pro|NAME|PATH", help: "Model (default asr-fast)."),
            .init("language", valueName: "CODE", help: "Spoken language and normalisation rules (default en)."),
            .init("server", valueName: "URL", help: "Transcribe through a running Earshot server (with --token)."),
            .init("token", valueName: "TOKEN", help: "Partner access token for --server."),
        ] + EvalOutput.options)

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

        let result = outcome.result
        for document in result.documents {
            print(document.name + String(format: "  WER %.4f", document.words.errorRate))
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
        for (name, notes) in outcome.warnings.sorted(by: { $0.key < $1.key }) {
            for note in notes { writeError("earshot eval: \(name): warning: \(note)") }
        }
        for failure in outcome.failures { writeError("earshot eval: \(failure.name): \(failure.message)") }
        if let gated = try output.finish(result) { return gated }
        return outcome.failures.isEmpty ? 0 : 1
    }
}
