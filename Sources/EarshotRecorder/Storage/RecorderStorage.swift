internal import EarshotAudio
internal import EarshotCore
internal import EarshotCrypto
internal import EarshotDevice
internal import Foundation

/// A recorder's card: its state and its recordings in a directory, durable across kills at any moment.
///
/// ```
/// state.json                 identity, binding, next id, bind code, battery (replaced atomically)
/// recordings/00000007.ogg    a finished recording
/// recordings/00000007.json   its metadata: start, duration, size, SHA-256 (written after the audio)
/// recordings/00000008.ogg.partial   the recording in progress, synced page by page
/// ```
///
/// Crash rules (checked by ``recover()`` when the card is opened):
/// - a `.partial` is cut back to its whole pages and finished: audio recorded before a power loss is kept;
/// - an `.ogg` without metadata (a kill between the two) gets its metadata computed again;
/// - metadata without audio (a kill while freeing an acknowledged recording, which removes the audio first) is
///   removed, so an acknowledged recording never comes back.
///
/// Not thread-safe: the ``Recorder`` actor owns it.
final class RecorderStorage {
    let directory: URL
    private(set) var state: RecorderState
    /// Finished recordings by id.
    private(set) var recordings: [UInt32: DeviceRecording] = [:]
    private var active: Active?

    /// The recording being written.
    private struct Active {
        let id: UInt32
        let startedAtMs: UInt64
        let file: FileDescriptor
        var size: UInt64
    }

    private var recordingsDirectory: URL { directory.appendingPathComponent("recordings") }
    private var statePath: String { directory.appendingPathComponent("state.json").path }

    /// Opens the card in `directory`, creating it with `identity` when new, and recovers from an interrupted run.
    init(directory: URL, identity: RecorderIdentity) throws {
        self.directory = directory
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("recordings"), withIntermediateDirectories: true)
        let stateFile = directory.appendingPathComponent("state.json")
        if let data = try? Data(contentsOf: stateFile) {
            state = try JSONDecoder().decode(RecorderState.self, from: data)
        } else {
            state = RecorderState(identity: identity)
        }
        try recover()
        try save()
    }

    /// Bytes in use: finished recordings and the one in progress.
    var used: UInt64 { recordings.values.reduce(0) { $0 + $1.size } + (active?.size ?? 0) }

    /// Whether a recording is in progress.
    var isRecording: Bool { active != nil }

    /// Finished recordings with ids above `after`, oldest first.
    func list(after: UInt32) -> [DeviceRecording] {
        recordings.values.filter { $0.id > after }.sorted { $0.id < $1.id }
    }

    /// Writes `state.json` atomically.
    func save() throws {
        let data = try JSONEncoder().encode(state)
        let file = try TemporaryFile(path: statePath + ".tmp", replacing: true)
        try file.write(data)
        try file.publish(to: statePath)
    }

    /// Changes the state and saves it.
    func update(_ change: (inout RecorderState) -> Void) throws {
        change(&state)
        try save()
    }

    // MARK: Recording

    /// Starts a recording file; returns its id.
    func begin(startedAtMs: UInt64) throws -> UInt32 {
        precondition(active == nil, "one recording at a time")
        let id = state.nextRecordingID
        try update {
            $0.nextRecordingID += 1
            $0.inProgress = .init(id: id, startedAtMs: startedAtMs)
        }
        let path = self.path(id, "ogg.partial")
        let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        active = Active(id: id, startedAtMs: startedAtMs, file: file, size: 0)
        return id
    }

    /// Appends encoded pages to the recording in progress and syncs them: what was appended survives a power loss.
    func append(_ bytes: [UInt8]) throws {
        guard var current = active, !bytes.isEmpty else { return }
        let file = current.file
        try bytes.withUnsafeBytes { buffer in Result { () throws(SystemCallError) in try file.write(buffer) } }.get()
        try current.file.sync()
        current.size += UInt64(bytes.count)
        active = current
    }

    /// Finishes the recording in progress: metadata after the audio, so a kill in between is recoverable.
    func finish(durationMs: UInt32) throws -> DeviceRecording {
        guard let current = active else { throw DeviceProtocolError(.unexpected, "no recording in progress") }
        active = nil
        try current.file.sync()
        try current.file.close()
        try FileSystem.rename(path(current.id, "ogg.partial"), to: path(current.id, "ogg"))
        try FileSystem.syncDirectory(recordingsDirectory.path)
        let recording = try store(
            id: current.id, startedAtMs: current.startedAtMs, durationMs: durationMs, file: path(current.id, "ogg"))
        try update { $0.inProgress = nil }
        return recording
    }

    // MARK: Sync

    /// Up to `length` bytes of a recording from `offset`.
    func read(_ id: UInt32, offset: UInt64, length: Int) throws -> [UInt8] {
        guard let recording = recordings[id] else {
            throw DeviceProtocolError(.notFound, "no recording \(id) on this device (acknowledged ones are freed)")
        }
        guard offset <= recording.size else {
            throw DeviceProtocolError(
                .outOfRange, "offset \(offset) is past the end of recording \(id) (\(recording.size) bytes)")
        }
        let file = try ReadOnlyFile(path: path(id, "ogg"))
        return try file.read(upTo: min(length, Int(recording.size - offset)), at: Int64(offset))
    }

    /// Frees a recording the platform holds, if `sha256` is its digest; returns the bytes freed.
    func acknowledge(_ id: UInt32, sha256: [UInt8]) throws -> UInt64 {
        guard let recording = recordings[id] else {
            throw DeviceProtocolError(.notFound, "no recording \(id) on this device (already acknowledged?)")
        }
        guard ConstantTime.equals(recording.sha256, sha256) else {
            throw DeviceProtocolError(
                .digestMismatch, "recording \(id) has SHA-256 \(recording.sha256Hex): nothing was freed")
        }
        try remove(id)
        return recording.size
    }

    /// Erases every recording (unbind with clear), the one in progress included.
    func eraseAll() throws {
        if let current = active {
            active = nil
            try? current.file.close()
            _ = try FileSystem.unlinkIfPresent(path(current.id, "ogg.partial"))
        }
        for id in recordings.keys { try remove(id) }
    }

    // MARK: Private

    private func path(_ id: UInt32, _ suffix: String) -> String {
        recordingsDirectory.appendingPathComponent(String(format: "%08u.%@", id, suffix)).path
    }

    /// Audio first, metadata second: a kill in between leaves metadata alone, which recovery removes.
    private func remove(_ id: UInt32) throws {
        recordings[id] = nil
        _ = try FileSystem.unlinkIfPresent(path(id, "ogg"))
        _ = try FileSystem.unlinkIfPresent(path(id, "json"))
        try FileSystem.syncDirectory(recordingsDirectory.path)
    }

    /// Computes a finished file's digest, writes its metadata atomically and lists it.
    private func store(id: UInt32, startedAtMs: UInt64, durationMs: UInt32, file: String) throws -> DeviceRecording {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let recording = DeviceRecording(
            id: id, startedAtMs: startedAtMs, durationMs: durationMs, size: UInt64(bytes.count), codec: .opus,
            sha256: DigestAlgorithm.sha256.hash(bytes).bytes)
        let metadata = try TemporaryFile(path: path(id, "json.tmp"), replacing: true)
        try metadata.write(try JSONEncoder().encode(StoredRecording(recording)))
        try metadata.publish(to: path(id, "json"))
        recordings[id] = recording
        return recording
    }

    /// Applies the crash rules (see the type's documentation).
    private func recover() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: recordingsDirectory.path)
        for name in names where name.hasSuffix(".tmp") {
            _ = try FileSystem.unlinkIfPresent(recordingsDirectory.appendingPathComponent(name).path)
        }
        for name in names.sorted() {
            guard let id = UInt32(name.prefix { $0.isNumber }) else { continue }
            let url = recordingsDirectory.appendingPathComponent(name)
            switch String(name.drop { $0.isNumber }) {
            case ".ogg.partial":
                try recoverPartial(id, at: url)
            case ".ogg" where !names.contains(String(format: "%08u.json", id)):
                // Killed between renaming the finished audio and writing its metadata.
                let scan = OggOpusScan.scan(Array(try Data(contentsOf: url)))
                let started = state.inProgress.flatMap { $0.id == id ? $0.startedAtMs : nil } ?? 0
                _ = try store(id: id, startedAtMs: started, durationMs: UInt32(scan?.durationMs ?? 0), file: url.path)
            case ".json":
                if !names.contains(String(format: "%08u.ogg", id)) {
                    _ = try FileSystem.unlinkIfPresent(url.path)
                } else if let data = try? Data(contentsOf: url),
                    let recording = try? JSONDecoder().decode(StoredRecording.self, from: data).recording
                {
                    recordings[id] = recording
                }
            default:
                continue
            }
            state.nextRecordingID = max(state.nextRecordingID, id + 1)
        }
        state.inProgress = nil
    }

    /// Keeps the whole pages of a recording a kill interrupted (nothing, if not even its header survived).
    private func recoverPartial(_ id: UInt32, at url: URL) throws {
        let bytes = Array(try Data(contentsOf: url))
        guard let scan = OggOpusScan.scan(bytes), scan.durationMs > 0 else {
            _ = try FileSystem.unlinkIfPresent(url.path)
            return
        }
        let file = try FileDescriptor.open(url.path, O_WRONLY)
        defer { try? file.close() }
        guard ftruncate(file.rawValue, off_t(scan.validLength)) == 0 else {
            throw SystemCallError("ftruncate", path: url.path, code: errno)
        }
        try file.sync()
        let finished = path(id, "ogg")
        try FileSystem.rename(url.path, to: finished)
        let started = state.inProgress.flatMap { $0.id == id ? $0.startedAtMs : nil } ?? 0
        _ = try store(id: id, startedAtMs: started, durationMs: UInt32(scan.durationMs), file: finished)
    }
}
