import EarshotAPI
import EarshotCore
import EarshotKit
import EarshotServer
import Foundation

enum NotesAddCommand: Command {
    static let name = "notes add"
    static let spec = CommandSpec(
        name: "earshot notes add",
        abstract: "Add audio files to the library as notes: transcribed, optionally summarised and translated.",
        discussion: """
            Each FILE becomes a record (title: --title or the file's name), is transcribed (with speakers when \
            --speakers is given), summarised with --summarize and translated with --translate; the note is printed \
            as Markdown (--format for another export). Without --server the command works on the local data \
            directory that 'earshot serve' uses (--data-dir, default ./data; no server needs to run, and a running \
            one sees the notes at once), as the partner --partner (created if missing). With --server URL it talks \
            to that server with --token (a partner or user token, or an API key; EARSHOT_SERVER, EARSHOT_TOKEN). \
            Progress goes to stderr: a bar with the time left on a terminal, a line per step otherwise. A step that \
            fails ends with exit 1 and says why (a translation the language model cannot do fails with \
            LOW_QUALITY_OUTPUT and what to configure); warnings are printed with the note.
            """,
        options: ServerConfiguration.commandLineOptions.filter { ["config", "data-dir", "database"].contains($0.name) }
            + [
                .init("title", valueName: "TITLE", help: "The note's title (one FILE only)."),
                .init("tags", valueName: "A,B", help: "Tags, comma-separated."),
                .init("translate", valueName: "LANG", help: "Translate into LANG (repeatable).", repeatable: true),
                .init("model", valueName: "asr-fast|asr-pro", help: "Speech tier (default asr-fast)."),
                .init("language", valueName: "CODE", help: "Spoken language (default: detect)."),
                .init(
                    "speakers", valueName: "TEMPLATE",
                    help: "Label speakers, {n} is the number (e.g. \"Speaker {n}\", \"发言人 {n}\")."),
                .init("format", valueName: "md|txt|srt|vtt|json", help: "What to print (default md)."),
                .init("partner", valueName: "NAME|ID", help: "Local mode: the partner (default \"local\")."),
                .init("user", valueName: "USER_ID", help: "Local mode: the user who owns the notes."),
                .init("server", valueName: "URL", help: "An Earshot server (or EARSHOT_SERVER)."),
                .init("token", valueName: "TOKEN", help: "With --server: a token or API key (or EARSHOT_TOKEN)."),
            ],
        flags: [.init("summarize", help: "Summarise each note (offline task 1).")],
        positionals: [.init("FILE", help: "Audio file(s) to add.", variadic: true)])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard !arguments.positionals.isEmpty else { throw ArgumentError(command: spec.name, "FILE is required") }
        let files = arguments.positionals.map { URL(fileURLWithPath: $0) }
        if let missing = files.first(where: { !FileManager.default.fileExists(atPath: $0.path) }) {
            throw ArgumentError(command: spec.name, "no such file: \(missing.path)")
        }
        if arguments.value("title") != nil, files.count > 1 {
            throw ArgumentError(command: spec.name, "--title names one note; give one FILE or leave --title out")
        }
        let format = arguments.value("format") ?? "md"
        guard ["md", "txt", "srt", "vtt", "json"].contains(format) else {
            throw ArgumentError(command: spec.name, "--format must be md, txt, srt, vtt or json")
        }
        let tags = (arguments.value("tags") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let translate = arguments.values("translate").flatMap { $0.split(separator: ",").map(String.init) }
        if let label = arguments.value("speakers"), !label.contains("{n}") {
            throw ArgumentError(command: spec.name, "--speakers needs {n} where the number goes, e.g. \"Speaker {n}\"")
        }
        let request = LocalLibrary.NoteRequest(
            title: arguments.value("title"), tags: tags, model: arguments.value("model") ?? "asr-fast",
            language: arguments.value("language"), speakerLabel: arguments.value("speakers"),
            summarize: arguments.flag("summarize"), translate: translate, userID: arguments.value("user"))
        let environment = ProcessInfo.processInfo.environment
        let display = ProgressDisplay()
        if let server = arguments.value("server") ?? environment["EARSHOT_SERVER"] {
            for local in ["partner", "user", "data-dir", "database", "config"] where arguments.value(local) != nil {
                throw ArgumentError(command: spec.name, "--\(local) is for local mode; leave it out with --server")
            }
            guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else {
                throw ArgumentError(command: spec.name, "--server needs the http(s) URL of an Earshot server")
            }
            guard let token = arguments.value("token") ?? environment["EARSHOT_TOKEN"], !token.isEmpty else {
                throw ArgumentError(
                    command: spec.name, "--token needs a token or API key ('earshot token' or 'earshot keys create')")
            }
            let remote = RemoteNotes(client: EarshotClient(configuration: .init(baseURL: base, token: token)))
            return await each(files, display: display) { file in
                let (recordID, warnings) = try await remote.add(file, request, progress: display.update)
                return (try await remote.export(recordID, format: format), warnings, recordID)
            }
        }
        if arguments.value("token") != nil {
            throw ArgumentError(command: spec.name, "--token goes with --server; local mode needs none")
        }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(arguments: arguments, environment: environment)
        } catch {
            writeError("earshot notes add: \(error)")
            return 78  // EX_CONFIG
        }
        LogSink.shared.bootstrap(level: .warning, format: configuration.logFormat)
        let library = try await LocalLibrary.open(configuration)
        let code: Int32
        do {
            let partner = try await library.partner(arguments.value("partner") ?? "local", create: true)
            code = await each(files, display: display) { file in
                let detail = try await library.addNote(file, partnerID: partner, request) { progress in
                    display.update(progress.step, progress.fraction)
                }
                let text = try await library.export(detail.record.recordID, partnerID: partner, format: format)
                return (text, Self.warnings(detail), detail.record.recordID)
            }
        } catch {
            await library.close()
            throw error
        }
        await library.close()
        return code
    }

    /// Adds each file in turn, printing its note; returns 0 when every one succeeded, else 1.
    static func each(
        _ files: [URL], display: ProgressDisplay,
        _ add: (URL) async throws -> (text: String, warnings: [String], recordID: String)
    ) async -> Int32 {
        var failed = 0
        for file in files {
            do {
                let (text, warnings, recordID) = try await add(file)
                display.finish()
                print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
                fflush(nil)
                for warning in warnings { writeError("earshot notes add: \(file.lastPathComponent): warning: \(warning)") }
                writeError("earshot notes add: \(file.lastPathComponent): saved as \(recordID)")
            } catch {
                display.finish()
                writeError("earshot notes add: \(file.lastPathComponent): \(error)")
                failed += 1
            }
        }
        return failed == 0 ? 0 : 1
    }

    /// Every warning of a note: its transcript's, summary's and translations'.
    static func warnings(_ detail: RecordDetail) -> [String] {
        (detail.transcript?.warnings ?? []) + (detail.summary?.warnings ?? [])
            + detail.translations.keys.sorted().flatMap { language in
                (detail.translations[language]?.warnings ?? []).map { "\(language) translation: \($0)" }
            }
    }
}

/// `earshot notes add --server`: the same steps through the platform API (EarshotKit).
struct RemoteNotes {
    let client: EarshotClient

    func add(
        _ file: URL, _ request: LocalLibrary.NoteRequest, progress: @escaping @Sendable (String, Double) -> Void
    ) async throws -> (String, [String]) {
        let upload = try FileUploader(client: client).prepare(fileAt: file)
        async let result = upload.run()
        for await step in upload.progress { progress("uploading", step.fractionCompleted) }
        let stored = try await result
        let records = RecordsClient(client: client)
        let record = try await records.create(
            RecordCreateRequest(
                fileID: stored.fileID, title: request.title ?? file.deletingPathExtension().lastPathComponent,
                tags: request.tags.isEmpty ? nil : request.tags, language: request.language, source: "import"))
        let id = record.record.recordID
        var steps: [(String, RecordTaskRequest)] = [
            (
                "transcribing",
                RecordTaskRequest(
                    taskType: 0, model: request.model,
                    diarization: request.speakerLabel.map { .init(enabled: true, labelTemplate: $0) })
            )
        ]
        if request.summarize { steps.append(("summarizing", RecordTaskRequest(taskType: 1))) }
        for target in request.translate {
            steps.append(("translating to \(target)", RecordTaskRequest(taskType: 2, targetLanguage: target)))
        }
        for (step, taskRequest) in steps {
            var task = try await records.run(taskRequest, on: id)
            while !task.status.isFinal {
                progress(step, Double(task.progress) / 100)
                try await Task.sleep(for: .milliseconds(500))
                task = try await records.task(task.taskID, of: id)
            }
            progress(step, 1)
            guard task.status == .success else {
                throw EarshotError(
                    .taskFailed,
                    "\(step) failed" + (task.errorCode.map { " (\($0))" } ?? "") + ": \(task.error ?? "\(task.status)")"
                        + "; the record \(id) keeps what was done")
            }
        }
        return (id, NotesAddCommand.warnings(try await records.get(id)))
    }

    func export(_ recordID: String, format: String) async throws -> String {
        String(decoding: try await RecordsClient(client: client).export(recordID, as: format), as: UTF8.self)
    }
}
