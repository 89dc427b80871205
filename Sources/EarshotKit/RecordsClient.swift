public import EarshotAPI
public import Foundation

/// The records library: list, search, read, update and delete records, run offline tasks (transcribe,
/// summarize, translate) and export them. Works with a user token (the user's own records) or a partner token
/// (every record of the tenant).
///
/// ```swift
/// let records = RecordsClient(client: EarshotClient(baseURL: url, tokenProvider: tokens.provider))
/// let found = try await records.search("iPhone 发布会")          // hits with snippets and start_ms
/// let task = try await records.run(.init(taskType: 1), on: found.hits[0].record.recordID)
/// let done = try await records.wait(for: task)                    // SUCCESS, or throws with the reason
/// let note = try await records.export(done.recordID, as: "md")
/// ```
public struct RecordsClient: Sendable {
    public let client: EarshotClient

    public init(client: EarshotClient) {
        self.client = client
    }

    /// Filters of ``list(cursor:limit:filters:)``; nil fields do not filter.
    public struct Filters: Sendable, Hashable {
        public var tag: String?
        /// Unix milliseconds, an ISO 8601 date-time or a date (`2026-11-29`).
        public var from: String?
        public var to: String?
        /// `import`, `phone` or `device:<serial>`.
        public var source: String?
        public var hasTranscript: Bool?
        /// Partner tokens: one user's records.
        public var userID: String?

        public init(
            tag: String? = nil, from: String? = nil, to: String? = nil, source: String? = nil,
            hasTranscript: Bool? = nil, userID: String? = nil
        ) {
            self.tag = tag
            self.from = from
            self.to = to
            self.source = source
            self.hasTranscript = hasTranscript
            self.userID = userID
        }
    }

    /// One page of records, newest `record_time_ms` first; pass the answer's `nextCursor` for the next page.
    public func list(cursor: String? = nil, limit: Int? = nil, filters: Filters = Filters()) async throws -> RecordList
    {
        var query: [URLQueryItem] = []
        func add(_ name: String, _ value: String?) {
            if let value { query.append(URLQueryItem(name: name, value: value)) }
        }
        add("cursor", cursor)
        add("limit", limit.map(String.init))
        add("tag", filters.tag)
        add("from", filters.from)
        add("to", filters.to)
        add("source", filters.source)
        add("has_transcript", filters.hasTranscript.map { $0 ? "true" : "false" })
        add("user_id", filters.userID)
        return try await client.send(.get(Self.withQuery(APIPath.records, query)))
    }

    /// Records matching every word of `query` in their title, tags or transcript, best first.
    public func search(_ query: String, limit: Int? = nil, offset: Int? = nil) async throws -> RecordSearchResults {
        var items = [URLQueryItem(name: "q", value: query)]
        if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let offset { items.append(URLQueryItem(name: "offset", value: String(offset))) }
        return try await client.send(.get(Self.withQuery(APIPath.recordSearch, items)))
    }

    /// Creates a record of an uploaded file (`FileId` from complete-upload).
    public func create(_ request: RecordCreateRequest) async throws -> RecordDetail {
        try await client.send(try .post(APIPath.records, json: request))
    }

    /// Everything about a record.
    public func get(_ recordID: String) async throws -> RecordDetail {
        try await client.send(.get(client.path(APIPath.record, ["record_id": recordID])))
    }

    /// Changes the title, tags or speaker names.
    public func update(_ recordID: String, _ request: RecordUpdateRequest) async throws -> RecordDetail {
        var call = try APIRequest.post(client.path(APIPath.record, ["record_id": recordID]), json: request)
        call.method = "PATCH"
        return try await client.send(call)
    }

    /// Deletes the record with its audio.
    public func delete(_ recordID: String) async throws {
        _ = try await client.sendRaw(
            APIRequest(method: "DELETE", path: client.path(APIPath.record, ["record_id": recordID])))
    }

    /// Starts an offline task on the record.
    public func run(_ request: RecordTaskRequest, on recordID: String) async throws -> RecordTask {
        try await client.send(try .post(client.path(APIPath.recordTasks, ["record_id": recordID]), json: request))
    }

    /// One task of a record.
    public func task(_ taskID: String, of recordID: String) async throws -> RecordTask {
        try await client.send(.get(client.path(APIPath.recordTask, ["record_id": recordID, "task_id": taskID])))
    }

    /// The record's tasks, newest first.
    public func tasks(of recordID: String) async throws -> RecordTaskList {
        try await client.send(.get(client.path(APIPath.recordTasks, ["record_id": recordID])))
    }

    /// Polls until `task` finishes.
    ///
    /// - Throws: ``EarshotError`` ``EarshotError/Code/taskFailed`` (with the task's reason),
    ///   ``EarshotError/Code/taskRevoked``, ``EarshotError/Code/unavailable`` after `policy.timeout`.
    public func wait(for task: RecordTask, policy: PollPolicy = PollPolicy()) async throws -> RecordTask {
        try await policy.wait(for: "task \(task.taskID)", status: \.status, failure: \.error) {
            try await self.task(task.taskID, of: task.recordID)
        }
    }

    /// The record as `txt`, `srt`, `vtt`, `json` or `md` (a Markdown note).
    public func export(_ recordID: String, as format: String) async throws -> Data {
        var items = [URLQueryItem(name: "format", value: format)]
        items.removeAll { $0.value == nil }
        return try await client.sendRaw(
            .get(Self.withQuery(client.path(APIPath.recordExport, ["record_id": recordID]), items))
        ).0
    }

    private static func withQuery(_ path: String, _ items: [URLQueryItem]) -> String {
        var components = URLComponents()
        components.queryItems = items.isEmpty ? nil : items
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
