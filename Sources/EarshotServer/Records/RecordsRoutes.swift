import EarshotAPI
import EarshotHTTP

/// The records routes (partner or user token; the token decides the scope): create, list, search, detail,
/// update, delete, audio, export, offline tasks.
struct RecordsRoutes: Sendable {
    let records: RecordsService

    func register(on api: APIRoutes) {
        api.post(APIPath.records, .partnerOrUser(.recordsWrite)) { request, _, caller in
            try .json(
                try await records.create(for: caller, try request.decode(RecordCreateRequest.self)), status: .created)
        }
        api.get(APIPath.records, .partnerOrUser(.recordsRead)) { request, _, caller in
            let query = request.query
            var hasTranscript: Bool?
            switch query["has_transcript"]?.lowercased() {
            case nil: hasTranscript = nil
            case "true", "1": hasTranscript = true
            case "false", "0": hasTranscript = false
            case let other?:
                throw PlatformError.invalidArgument("has_transcript \"\(other.prefix(16))\" must be true or false")
            }
            // A source as records carry it (`live` too, which only live sessions make), or `device` for every device's.
            if let source = query["source"], source != "device", source != "live" {
                _ = try RecordsService.source(source)
            }
            let filters = RecordsService.Filters(
                tag: query["tag"], from: try RecordsService.date(query["from"], name: "from"),
                to: try RecordsService.date(query["to"], name: "to", endOfDay: true), source: query["source"],
                hasTranscript: hasTranscript, userID: try TokenService.userFilter(query))
            return try .json(
                try await records.list(
                    for: caller, cursor: query["cursor"], limit: try query.get("limit", as: Int.self),
                    filters: filters))
        }
        api.get(APIPath.recordSearch, .partnerOrUser(.recordsRead)) { request, _, caller in
            try .json(
                try await records.search(
                    for: caller, query: request.query["q"], limit: try request.query.get("limit", as: Int.self),
                    offset: try request.query.get("offset", as: Int.self), userID: try TokenService.userFilter(request.query)))
        }
        api.get(APIPath.record, .partnerOrUser(.recordsRead)) { _, context, caller in
            try .json(try await records.detail(for: caller, id: try context.parameters.require("record_id")))
        }
        api.patch(APIPath.record, .partnerOrUser(.recordsWrite)) { request, context, caller in
            try .json(
                try await records.update(
                    for: caller, id: try context.parameters.require("record_id"),
                    try request.decode(RecordUpdateRequest.self)))
        }
        api.delete(APIPath.record, .partnerOrUser(.recordsWrite)) { _, context, caller in
            try await records.delete(for: caller, id: try context.parameters.require("record_id"))
            return Response(status: .noContent)
        }
        api.get(APIPath.recordAudio, .partnerOrUser(.recordsRead)) { _, context, caller in
            try await records.audio(for: caller, id: try context.parameters.require("record_id"))
        }
        api.get(APIPath.recordExport, .partnerOrUser(.recordsRead)) { request, context, caller in
            try await records.export(
                for: caller, id: try context.parameters.require("record_id"), format: request.query["format"])
        }
        api.post(APIPath.recordTasks, .partnerOrUser(.recordsWrite)) { request, context, caller in
            let record = try await records.record(for: caller, id: try context.parameters.require("record_id"))
            let body = try request.decode(RecordTaskRequest.self)
            return try .json(try await records.tasks.create(for: caller, record: record, body), status: .created)
        }
        api.get(APIPath.recordTasks, .partnerOrUser(.recordsRead)) { _, context, caller in
            let record = try await records.record(for: caller, id: try context.parameters.require("record_id"))
            return try .json(RecordTaskList(tasks: try await records.tasks.list(for: caller, recordID: record.id)))
        }
        api.get(APIPath.recordTask, .partnerOrUser(.recordsRead)) { _, context, caller in
            let record = try await records.record(for: caller, id: try context.parameters.require("record_id"))
            return try .json(
                try await records.tasks.task(
                    for: caller, recordID: record.id, taskID: try context.parameters.require("task_id")))
        }
    }
}
