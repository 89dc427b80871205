import EarshotAPI
import EarshotCore
import EarshotKit
import Foundation

/// What every `earshot records …` command shares: the server, the token, JSON output.
enum RecordsCommandSupport {
    static let options: [CommandSpec.Option] = [
        .init("server", valueName: "URL", help: "Earshot server base URL (or EARSHOT_SERVER)."),
        .init("token", valueName: "TOKEN", help: "A user token (own records) or partner token (or EARSHOT_TOKEN)."),
    ]
    static let flags: [CommandSpec.Flag] = [.init("json", help: "Print the server's JSON answer.")]

    static func client(_ arguments: ParsedArguments, command: String) throws -> RecordsClient {
        let environment = ProcessInfo.processInfo.environment
        guard let server = arguments.value("server") ?? environment["EARSHOT_SERVER"],
            let base = URL(string: server), base.scheme == "http" || base.scheme == "https"
        else { throw ArgumentError(command: command, "--server needs the http(s) URL of an Earshot server") }
        guard let token = arguments.value("token") ?? environment["EARSHOT_TOKEN"], !token.isEmpty else {
            throw ArgumentError(command: command, "--token needs a user or partner access token")
        }
        return RecordsClient(client: EarshotClient(configuration: .init(baseURL: base, token: token)))
    }

    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func recordID(_ arguments: ParsedArguments, command: String) throws -> String {
        guard let id = arguments.positionals.first else {
            throw ArgumentError(command: command, "RECORD_ID is required")
        }
        return id
    }

    /// Polls `task` until it is final, showing its progress on stderr as `step` (a bar with the time left on a
    /// terminal, a line when it starts and ends otherwise).
    ///
    /// - Throws: ``EarshotError`` `taskFailed` with the task's `error_code` and reason when it did not succeed.
    static func wait(for task: RecordTask, _ step: String, client: RecordsClient) async throws {
        let display = ProgressDisplay()
        defer { display.finish() }
        var current = task
        while !current.status.isFinal {
            display.update(step, Double(current.progress) / 100)
            try await Task.sleep(for: .milliseconds(500))
            current = try await client.task(task.taskID, of: task.recordID)
        }
        display.update(step, 1)
        guard current.status == .success else {
            throw EarshotError(
                .taskFailed,
                "\(step) failed" + (current.errorCode.map { " (\($0))" } ?? "") + ": "
                    + (current.error ?? "\(current.status)"))
        }
    }

    /// `2026-11-29 19:50` (UTC).
    static func time(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// `MM:SS` or `H:MM:SS`.
    static func clock(_ milliseconds: Int) -> String {
        let seconds = max(0, milliseconds) / 1000
        let mmss = String(format: "%02d:%02d", seconds / 60 % 60, seconds % 60)
        return seconds >= 3600 ? "\(seconds / 3600):" + mmss : mmss
    }

    /// A search snippet for a terminal: hits in `[…]`, HTML entities decoded.
    static func plain(_ snippet: String) -> String {
        snippet.replacingOccurrences(of: "<em>", with: "[").replacingOccurrences(of: "</em>", with: "]")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func line(_ record: RecordSummaryItem) -> String {
        var flags = record.hasTranscript ? "T" : "-"
        flags += record.hasSummary ? "S" : "-"
        let translations = record.translations.isEmpty ? "" : " →" + record.translations.joined(separator: ",")
        let tags = record.tags.isEmpty ? "" : "  #" + record.tags.joined(separator: " #")
        return
            "\(record.recordID)  \(time(record.recordTimeMs))  \(clock(record.durationMs))  \(flags)\(translations)  "
            + record.title + tags
    }
}

enum RecordsListCommand: Command {
    static let name = "records list"
    static let spec = CommandSpec(
        name: "earshot records list",
        abstract: "List records on a server, newest first.",
        discussion: """
            One line per record: id, record time (UTC), duration, T (transcribed) S (summarized), translation \
            languages, title and tags. Prints the cursor of the next page last when there is one.
            """,
        options: RecordsCommandSupport.options + [
            .init("limit", valueName: "N", help: "Records per page (1-200, default 50)."),
            .init("cursor", valueName: "CURSOR", help: "Continue after a previous page."),
            .init("tag", valueName: "TAG", help: "Only records with this tag."),
            .init("from", valueName: "DATE", help: "Recorded at or after (2026-11-29, ISO 8601 or Unix ms)."),
            .init("to", valueName: "DATE", help: "Recorded at or before (a date means the end of that day)."),
            .init("source", valueName: "SOURCE", help: "import, phone or device:<serial>."),
        ],
        flags: RecordsCommandSupport.flags + [
            .init("transcribed", help: "Only transcribed records."),
            .init("untranscribed", help: "Only records without a transcript."),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let client = try RecordsCommandSupport.client(arguments, command: spec.name)
        var limit: Int?
        if let value = arguments.value("limit") {
            guard let parsed = Int(value) else { throw ArgumentError(command: spec.name, "--limit must be a number") }
            limit = parsed
        }
        if arguments.flag("transcribed") && arguments.flag("untranscribed") {
            throw ArgumentError(command: spec.name, "--transcribed and --untranscribed exclude each other")
        }
        let filters = RecordsClient.Filters(
            tag: arguments.value("tag"), from: arguments.value("from"), to: arguments.value("to"),
            source: arguments.value("source"),
            hasTranscript: arguments.flag("transcribed") ? true : arguments.flag("untranscribed") ? false : nil)
        let page = try await client.list(cursor: arguments.value("cursor"), limit: limit, filters: filters)
        if arguments.flag("json") {
            try RecordsCommandSupport.printJSON(page)
            return 0
        }
        for record in page.records { print(RecordsCommandSupport.line(record)) }
        if let next = page.nextCursor { print("next: --cursor \(next)") }
        return 0
    }
}

enum RecordsSearchCommand: Command {
    static let name = "records search"
    static let spec = CommandSpec(
        name: "earshot records search",
        abstract: "Search records by title, tags and transcript (English and Chinese).",
        discussion: """
            Every word must occur in the record. Prints the records best first, each with its matching sentences \
            (start time, hits in [brackets]).
            """,
        options: RecordsCommandSupport.options + [
            .init("limit", valueName: "N", help: "Records to show (1-100, default 20).")
        ],
        flags: RecordsCommandSupport.flags,
        positionals: [.init("QUERY", help: "Words to find.", variadic: true)])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let client = try RecordsCommandSupport.client(arguments, command: spec.name)
        let query = arguments.positionals.joined(separator: " ")
        guard !query.isEmpty else { throw ArgumentError(command: spec.name, "QUERY is required") }
        let results = try await client.search(query, limit: arguments.value("limit").flatMap { Int($0) })
        if arguments.flag("json") {
            try RecordsCommandSupport.printJSON(results)
            return 0
        }
        if results.hits.isEmpty { print("no records match \"\(query)\"") }
        for hit in results.hits {
            print(RecordsCommandSupport.line(hit.record))
            for match in hit.matches {
                let at = match.startMs.map { "[\(RecordsCommandSupport.clock($0))] " } ?? "(\(match.field)) "
                print("    " + at + RecordsCommandSupport.plain(match.snippet))
            }
        }
        return 0
    }
}

enum RecordsShowCommand: Command {
    static let name = "records show"
    static let spec = CommandSpec(
        name: "earshot records show",
        abstract: "Print a record as a Markdown note, a transcript format, or JSON.",
        discussion: "The note has the title, details, summary with key points, the transcript and translations.",
        options: RecordsCommandSupport.options + [
            .init("format", valueName: "md|txt|srt|vtt|json", help: "Export format (default md).")
        ],
        flags: RecordsCommandSupport.flags,
        positionals: [.init("RECORD_ID", help: "The record (rec_…).")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let client = try RecordsCommandSupport.client(arguments, command: spec.name)
        let id = try RecordsCommandSupport.recordID(arguments, command: spec.name)
        if arguments.flag("json") {
            try RecordsCommandSupport.printJSON(try await client.get(id))
            return 0
        }
        let data = try await client.export(id, as: arguments.value("format") ?? "md")
        FileHandle.standardOutput.write(data)
        return 0
    }
}

enum RecordsSummarizeCommand: Command {
    static let name = "records summarize"
    static let spec = CommandSpec(
        name: "earshot records summarize",
        abstract: "Summarize a transcribed record (offline task 1) and print the summary.",
        discussion: """
            Waits for the task, showing its progress on stderr; exits 1 with the server's reason and error code when \
            it fails.
            """,
        options: RecordsCommandSupport.options,
        flags: RecordsCommandSupport.flags + [.init("no-wait", help: "Print the queued task and return.")],
        positionals: [.init("RECORD_ID", help: "The record (rec_…).")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let client = try RecordsCommandSupport.client(arguments, command: spec.name)
        let id = try RecordsCommandSupport.recordID(arguments, command: spec.name)
        let task = try await client.run(RecordTaskRequest(taskType: 1), on: id)
        if arguments.flag("no-wait") {
            try RecordsCommandSupport.printJSON(task)
            return 0
        }
        try await RecordsCommandSupport.wait(for: task, "summarizing", client: client)
        let detail = try await client.get(id)
        guard let summary = detail.summary else { throw ArgumentError(command: spec.name, "the record has no summary") }
        if arguments.flag("json") {
            try RecordsCommandSupport.printJSON(summary)
            return 0
        }
        print(summary.abstract)
        if !summary.keyPoints.isEmpty { print("\nKey points:") }
        for point in summary.keyPoints { print("  [\(RecordsCommandSupport.clock(point.startMs))] \(point.text)") }
        if !summary.actionItems.isEmpty { print("\nAction items:") }
        for point in summary.actionItems { print("  [\(RecordsCommandSupport.clock(point.startMs))] \(point.text)") }
        print("\n(\(summary.method)\(summary.model.map { ", " + $0 } ?? ""))")
        for warning in summary.warnings { print("note: \(warning)") }
        return 0
    }
}

enum RecordsTranslateCommand: Command {
    static let name = "records translate"
    static let spec = CommandSpec(
        name: "earshot records translate",
        abstract: "Translate a record (offline task 2) and print the translation sentence by sentence.",
        discussion: """
            --speech translates the audio to English with Whisper (no language model needed; --to must be en). \
            Otherwise the transcript is translated by the server's language model.
            """,
        options: RecordsCommandSupport.options + [
            .init("to", valueName: "LANG", help: "Target: zh en ja ko fr de es ru it pt th vi ar hi."),
            .init("model", valueName: "asr-fast|asr-pro", help: "Speech tier for --speech (default asr-fast)."),
        ],
        flags: RecordsCommandSupport.flags + [
            .init("speech", help: "Translate the speech with Whisper (English only)."),
            .init("no-wait", help: "Print the queued task and return."),
        ],
        positionals: [.init("RECORD_ID", help: "The record (rec_…).")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let client = try RecordsCommandSupport.client(arguments, command: spec.name)
        let id = try RecordsCommandSupport.recordID(arguments, command: spec.name)
        guard let target = arguments.value("to") else {
            throw ArgumentError(command: spec.name, "--to LANG is required")
        }
        let task = try await client.run(
            RecordTaskRequest(
                taskType: 2, targetLanguage: target, model: arguments.value("model"),
                source: arguments.flag("speech") ? "speech" : nil), on: id)
        if arguments.flag("no-wait") {
            try RecordsCommandSupport.printJSON(task)
            return 0
        }
        try await RecordsCommandSupport.wait(for: task, "translating to \(target)", client: client)
        guard let translation = try await client.get(id).translations[target] else {
            throw ArgumentError(command: spec.name, "the record has no \(target) translation")
        }
        if arguments.flag("json") {
            try RecordsCommandSupport.printJSON(translation)
            return 0
        }
        for warning in translation.warnings { writeError("earshot records translate: warning: \(warning)") }
        for sentence in translation.sentences {
            print("[\(RecordsCommandSupport.clock(sentence.startMs))] \(sentence.text)")
        }
        return 0
    }
}
