import EarshotCore
public import EarshotCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Quantizes a ggml model with whisper.cpp's quantize tool (`whisper-quantize IN OUT TYPE`), atomically.
public struct WhisperQuantizer: Sendable {
    /// Path of the `whisper-quantize` executable (or a name looked up on `PATH`).
    public let tool: String

    /// Uses `tool`; see ``ModelStore`` for the default location under `$EARSHOT_HOME/whisper/bin`.
    public init(tool: String) {
        self.tool = tool
    }

    /// Quantizes `input` (f16 or f32) to `type` and places the result at `output` (temp file + rename).
    ///
    /// - Returns: SHA-256 of the output.
    /// - Throws: `ModelError` `.toolFailed` when the tool is missing or fails, `.notAModel` for a bad input.
    @discardableResult
    public func quantize(input: String, output: String, type: GGMLFileType) throws(ModelError) -> Digest {
        guard let name = type.name, type != .f16, type != .f32 else {
            throw ModelError(
                .unsupportedModel,
                "cannot quantize to \(type); choose one of \(GGMLFileType.knownNames.dropFirst(2).joined(separator: ", "))"
            )
        }
        _ = try GGMLModelHeader.read(path: input)
        let temporary = output + ".quantizing"
        defer { unlink(temporary) }
        try ExternalTool.run(tool, [input, temporary, name], step: "quantize \(input) to \(name)")
        let header = try GGMLModelHeader.read(path: temporary)
        guard header.fileType == type else {
            throw ModelError(.toolFailed, "\(tool) wrote a \(header.fileType) file instead of \(name)")
        }
        let digest = try sha256(ofFile: temporary)
        do { try FileSystem.rename(temporary, to: output) } catch {
            throw ModelError(.ioFailure, "cannot rename \(temporary) to \(output): \(error.reason)", underlying: error)
        }
        return digest
    }
}

/// `.NAME.PID.tmp` next to `path`.
func temporaryPath(for path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    return "\(directory.isEmpty ? "" : directory)/.\(name).\(getpid()).tmp"
}
