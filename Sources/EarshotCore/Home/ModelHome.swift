import Foundation

/// The Earshot home: the directory every model and model tool is found under, resolved by one rule.
///
/// The rule, for every model alike: an explicit directory (the server's `--model-home` / `model-home` setting)
/// wins, then the `EARSHOT_HOME` environment variable, then `~/.cache/earshot` — the directory `make setup`
/// installs into. Each module names its own files under ``models`` through an extension (whisper models in
/// EarshotModels' `ModelStore`, the Silero VAD model in EarshotSpeech, the speaker-embedding weights in
/// EarshotDiarization, the managed LLM's `llama-server` and GGUF file in EarshotNotes), so moving the home moves
/// all of them. A plain value: nothing is read from disk.
public struct ModelHome: Sendable, Hashable, CustomStringConvertible {
    /// The home directory (no trailing slash).
    public let path: String

    /// The home at `path` (a trailing slash is dropped).
    public init(_ path: String) {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// Applies the rule: `explicit` when given and not empty, else `EARSHOT_HOME` from `environment` (default: the
    /// process environment), else `$HOME/.cache/earshot`.
    public static func resolve(_ explicit: String? = nil, environment: [String: String]? = nil) -> ModelHome {
        if let explicit, !explicit.isEmpty { return ModelHome(explicit) }
        let environment = environment ?? ProcessInfo.processInfo.environment
        if let home = environment["EARSHOT_HOME"], !home.isEmpty { return ModelHome(home) }
        let user = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return ModelHome(user + "/.cache/earshot")
    }

    /// The process's home: `EARSHOT_HOME`, else `~/.cache/earshot` (what a default argument should use).
    public static var current: ModelHome { resolve() }

    /// `HOME/models`, where model files live.
    public var models: String { path + "/models" }

    /// `HOME/models/fileName`.
    public func model(_ fileName: String) -> String { models + "/" + fileName }

    /// `HOME/relativePath`, for tools and other files under the home (`llama/bin/llama-server`).
    public func file(_ relativePath: String) -> String { path + "/" + relativePath }

    public var description: String { path }
}
