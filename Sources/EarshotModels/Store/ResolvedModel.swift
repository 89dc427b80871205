import EarshotCore
import Foundation

/// A model argument turned into a usable file: a catalog name, a tier, or a path to any whisper.cpp ggml file.
public struct ResolvedModel: Sendable, Hashable {
    /// Absolute path of the ggml file.
    public let path: String
    /// The file's magic-checked header (dimensions and weight type).
    public let header: GGMLModelHeader
    /// The catalog entry when the argument named one (directly or through a tier).
    public let entry: ModelCatalog.Entry?
    /// The tier when the argument was `asr-fast` or `asr-pro`, or an alias of one (``ModelTier/aliases``).
    public let tier: ModelTier?
}

extension ModelStore {
    /// Resolves what a user typed as a model: a tier (`asr-fast`, `asr-pro`) or an alias of one (`whisper-1`,
    /// `ikho-asr-fast`, `ikho-asr-pro`; see ``ModelTier/named(_:)``), a catalog name (`base-q8_0`), or a
    /// path to a whisper.cpp ggml file (anything containing `/` or ending in `.bin`, or an existing file).
    ///
    /// The file's header is read and checked, so the error for a wrong file says what it is instead (a
    /// CTranslate2 model → "convert it with `earshot models convert DIR OUT.bin`", GGUF, a directory…).
    /// - Throws: `.unknownModel`, `.notFound`, `.notAModel`, `.malformedModel`.
    public func resolve(_ argument: String) throws(ModelError) -> ResolvedModel {
        if let tier = ModelTier.named(argument) {
            let path = try path(for: tier.modelName)
            return ResolvedModel(
                path: path, header: try GGMLModelHeader.read(path: path),
                entry: configuration.catalog.entry(named: tier.modelName), tier: tier)
        }
        if let entry = configuration.catalog.entry(named: argument) {
            let path = try path(for: entry.name)
            return ResolvedModel(path: path, header: try GGMLModelHeader.read(path: path), entry: entry, tier: nil)
        }
        let looksLikePath = argument.contains("/") || argument.hasSuffix(".bin")
        guard looksLikePath || FileManager.default.fileExists(atPath: argument) else {
            let names = configuration.catalog.entries.map(\.name) + ModelTier.acceptedNames
            let hint = closestMatch(to: argument, among: names).map { "did you mean '\($0)'? " } ?? ""
            throw ModelError(
                .unknownModel,
                "'\(argument)' is not a model name, a tier or a file; \(hint)known names: "
                    + names.joined(separator: ", ") + "; or pass the path of a whisper.cpp ggml model file")
        }
        let absolute = URL(fileURLWithPath: argument).standardizedFileURL.path
        let header = try GGMLModelHeader.read(path: absolute)
        return ResolvedModel(path: absolute, header: header, entry: nil, tier: nil)
    }
}
