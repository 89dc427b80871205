extension APIPath {
    /// `POST` (partner or user token): create a record from an uploaded file; `GET`: list records, newest
    /// `record_time_ms` first (`?cursor=&limit=&tag=&from=&to=&source=&has_transcript=&user_id=`).
    public static let records = "/open/partner/records"
    /// `GET` (partner or user token): search titles, tags and transcripts (`?q=&limit=&offset=`).
    public static let recordSearch = "/open/partner/records/search"
    /// `GET`: a record's detail; `PATCH`: update title, tags, speaker names; `DELETE`: delete it with its file.
    public static let record = "/open/partner/records/{record_id}"
    /// `GET`: the record's audio, with `Range`.
    public static let recordAudio = "/open/partner/records/{record_id}/audio"
    /// `GET`: the record as `?format=txt|srt|vtt|json|md`.
    public static let recordExport = "/open/partner/records/{record_id}/export"
    /// `POST`: run an offline task (`task_type` 0 transcribe, 1 summarize, 2 translate); `GET`: the record's
    /// task history, newest first.
    public static let recordTasks = "/open/partner/records/{record_id}/tasks"
    /// `GET`: one offline task of the record.
    public static let recordTask = "/open/partner/records/{record_id}/tasks/{task_id}"

    /// `path` with each `{name}` replaced by its value (percent-encoding is the caller's concern: ids are URL-safe).
    public static func filled(_ path: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            result += values[name] ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
