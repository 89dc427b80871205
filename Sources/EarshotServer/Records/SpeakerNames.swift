import EarshotAPI
import EarshotDiarization
import EarshotSpeech
import Foundation

/// Display names of a record's speakers: the label diarization wrote into a transcript (`Speaker 1`, or an
/// enrolled voiceprint's name) → the name shown everywhere (record detail, exports, the transcription task API and
/// its exports). They live with the record (`records.speaker_names`), so a rename through the task API and one
/// through the records API are the same rename. Transcripts keep their labels; names are applied when read, so a
/// rename can be changed or undone.
enum SpeakerNames {
    /// The names stored in a record's `speaker_names` column (a JSON object); none when it is not one.
    static func decode(_ json: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:]
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

    /// The speaker labels of `transcript`, in order of first appearance.
    static func labels(of transcript: Transcript?) -> [String] {
        var labels: [String] = []
        for segment in transcript?.segments ?? [] {
            if let label = segment.speaker, !labels.contains(label) { labels.append(label) }
        }
        return labels
    }

    /// `current` with `requested` applied: each key is a speaker's label or its current name, each value its new
    /// name (the label itself removes the rename).
    ///
    /// - Parameter subject: how messages name the transcript's owner (`task task_…`, `record rec_…`).
    /// - Throws: `INVALID_ARGUMENT` for an empty map, a speaker the transcript does not have (the message lists
    ///   its speakers), a bad name, or two speakers ending up with one name.
    static func merge(
        _ requested: [String: String], into current: [String: String], labels: [String], subject: String
    ) throws -> [String: String] {
        guard !labels.isEmpty else {
            throw PlatformError.invalidArgument(
                "\(subject) has no speakers to rename; transcribe it with \"diarization\": {\"enabled\": true}")
        }
        guard !requested.isEmpty else {
            throw PlatformError.invalidArgument(
                "names must map at least one speaker to a new name, e.g. {\"\(labels[0])\": \"Alice\"}")
        }
        guard requested.count <= 64 else { throw PlatformError.invalidArgument("at most 64 speakers per rename") }
        var updated = current
        for (key, newName) in requested.sorted(by: { $0.key < $1.key }) {
            guard let label = labels.contains(key) ? key : labels.first(where: { current[$0] == key }) else {
                let known = labels.map { current[$0] ?? $0 }.joined(separator: ", ")
                throw PlatformError.invalidArgument(
                    "\(subject) has no speaker \"\(key.prefix(64))\"; its speakers are: \(known)")
            }
            let name: String
            do {
                name = try Voiceprint.validName(newName)
            } catch {
                throw PlatformError.invalidArgument(
                    "names[\"\(key.prefix(64))\"]: \(error.message) (to remove a name, rename the speaker to its "
                        + "label \"\(label)\")")
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
        return updated
    }
}
