import EarshotAPI
import EarshotDiarization
import EarshotSpeech
import EarshotStore
import Foundation

/// Display names a partner gave to the speakers of a finished transcript (`transcript_speaker_names`, migration 6).
///
/// The stored result keeps the labels diarization wrote (`Speaker 1`, or an enrolled voiceprint's name); names are
/// applied when the task is read or exported, so a rename can be changed or undone (rename a speaker to its label).
struct SpeakerNames: Sendable {
    let metadata: any MetadataStore

    /// Label → name for `taskID` (empty when nothing was renamed).
    func names(taskID: String) async throws -> [String: String] {
        let rows = try await metadata.read { db in
            try db.query("SELECT label, name FROM transcript_speaker_names WHERE job_id = ?", taskID)
        }
        var names: [String: String] = [:]
        for row in rows { names[try row.decode("label", as: String.self)] = try row.decode("name", as: String.self) }
        return names
    }

    /// `transcript` with every renamed speaker's label replaced by its name.
    static func apply(_ names: [String: String], to transcript: Transcript) -> Transcript {
        guard !names.isEmpty else { return transcript }
        var renamed = transcript
        for index in renamed.segments.indices {
            if let label = renamed.segments[index].speaker, let name = names[label] {
                renamed.segments[index].speaker = name
            }
        }
        return renamed
    }

    /// Validates `requested` (current label or name → new name) against `transcript`'s speakers and stores it.
    ///
    /// - Throws: `INVALID_ARGUMENT` for an empty map, an unknown speaker (the message lists the transcript's
    ///   speakers), a bad name, or two speakers ending up with one name.
    func rename(taskID: String, transcript: Transcript, requested: [String: String]) async throws {
        var labels: [String] = []
        for segment in transcript.segments {
            if let label = segment.speaker, !labels.contains(label) { labels.append(label) }
        }
        guard !labels.isEmpty else {
            throw PlatformError.invalidArgument(
                "task \(taskID) has no speakers to rename; create the task with \"diarization\": {\"enabled\": true}")
        }
        guard !requested.isEmpty else {
            throw PlatformError.invalidArgument(
                "names must map at least one speaker to a new name, e.g. {\"names\": {\"\(labels[0])\": \"Alice\"}}")
        }
        let current = try await names(taskID: taskID)
        var updated = current
        for (key, newName) in requested.sorted(by: { $0.key < $1.key }) {
            let label =
                labels.contains(key) ? key : labels.first { current[$0] == key }
            guard let label else {
                let known = labels.map { current[$0] ?? $0 }.joined(separator: ", ")
                throw PlatformError.invalidArgument(
                    "task \(taskID) has no speaker \"\(key)\"; its speakers are: \(known)")
            }
            let name: String
            do {
                name = try Voiceprint.validName(newName)
            } catch {
                throw PlatformError.invalidArgument("names[\"\(key)\"]: \(error.message)")
            }
            updated[label] = name == label ? nil : name
        }
        var seen: [String: String] = [:]
        for label in labels {
            let shown = updated[label] ?? label
            if let other = seen[shown] {
                throw PlatformError.invalidArgument(
                    "speakers \"\(other)\" and \"\(label)\" would both be called \"\(shown)\"; give each a different name"
                )
            }
            seen[shown] = label
        }
        let now = milliseconds(Date())
        let (allLabels, finalNames) = (labels, updated)
        try await metadata.write { db in
            for label in allLabels where finalNames[label] != current[label] {
                if let name = finalNames[label] {
                    _ = try db.execute(
                        """
                        INSERT INTO transcript_speaker_names (job_id, label, name, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (job_id, label) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
                        """, taskID, label, name, now)
                } else {
                    _ = try db.execute(
                        "DELETE FROM transcript_speaker_names WHERE job_id = ? AND label = ?", taskID, label)
                }
            }
        }
    }
}
