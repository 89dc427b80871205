public import Foundation

/// Reading reference and hypothesis files, and pairing the files of two directories by name.
public enum ReferenceFiles {
    /// The UTF-8 text of a file (a leading byte-order mark is dropped).
    ///
    /// - Throws: ``EvalError/Code/unreadableFile`` when the file is missing, unreadable or not UTF-8.
    public static func readText(_ url: URL) throws(EvalError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw EvalError(.unreadableFile, "cannot read \(url.path)", underlying: error)
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw EvalError(.unreadableFile, "\(url.path) is not UTF-8 text; convert it, e.g. `iconv -t UTF-8`")
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text
    }

    /// The non-blank lines of a text, trimmed of surrounding whitespace.
    public static func lines(of text: String) -> [String] {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The non-blank lines of a file. - Throws: ``EvalError/Code/unreadableFile``.
    public static func readLines(_ url: URL) throws(EvalError) -> [String] {
        lines(of: try readText(url))
    }

    /// Speaker-attributed lines `speaker<TAB>text` (for cpWER references); lines without a tab are rejected.
    ///
    /// - Throws: ``EvalError/Code/invalidArgument`` naming the first line without a tab.
    public static func speakerUtterances(of text: String) throws(EvalError) -> [SpeakerUtterance] {
        var utterances: [SpeakerUtterance] = []
        for (index, line) in lines(of: text).enumerated() {
            guard let tab = line.firstIndex(of: "\t") else {
                throw EvalError(
                    .invalidArgument, "speaker line \(index + 1) has no tab; write `speaker<TAB>text` on every line")
            }
            utterances.append(
                SpeakerUtterance(
                    speaker: String(line[..<tab]), text: String(line[line.index(after: tab)...])))
        }
        return utterances
    }

    /// One pair of files with the same stem in two directories.
    public struct Pair: Sendable, Hashable {
        /// The shared file stem (`memo` for `memo.wav` and `memo.txt`).
        public var name: String
        /// The file in the first directory.
        public var first: URL
        /// The file in the second directory.
        public var second: URL
    }

    /// Pairs files of `first` and `second` by file stem, sorted by name.
    ///
    /// Only files whose extension is in `firstExtensions` / `secondExtensions` (lowercase, without the dot;
    /// empty means any) are considered; hidden files are ignored.
    ///
    /// - Throws: ``EvalError/Code/unreadableFile`` when a directory cannot be listed, and
    ///   ``EvalError/Code/unpairedFiles`` listing the stems present on one side only (unless `allowUnpaired`).
    public static func pair(
        _ first: URL, extensions firstExtensions: Set<String> = [], with second: URL,
        extensions secondExtensions: Set<String> = ["txt"], allowUnpaired: Bool = false
    ) throws(EvalError) -> [Pair] {
        let left = try files(in: first, extensions: firstExtensions)
        let right = try files(in: second, extensions: secondExtensions)
        let onlyFirst = Set(left.keys).subtracting(right.keys).sorted()
        let onlySecond = Set(right.keys).subtracting(left.keys).sorted()
        if !(onlyFirst.isEmpty && onlySecond.isEmpty) && !allowUnpaired {
            // Each side is named for what it lacks: an audio file without a reference is not the same problem as a
            // reference without audio.
            var problems: [String] = []
            if !onlyFirst.isEmpty {
                problems.append(
                    "no partner file in \(second.path) for: \(Self.list(onlyFirst)) (from \(first.path))")
            }
            if !onlySecond.isEmpty {
                problems.append(
                    "no partner file in \(first.path) for: \(Self.list(onlySecond)) (from \(second.path))")
            }
            throw EvalError(
                .unpairedFiles,
                problems.joined(separator: "; ") + "; every file needs one with the same name on the other side")
        }
        return Set(left.keys).intersection(right.keys).sorted().map {
            Pair(name: $0, first: left[$0]!, second: right[$0]!)
        }
    }

    /// Up to ten names, then how many more.
    private static func list(_ names: [String]) -> String {
        names.prefix(10).joined(separator: ", ") + (names.count > 10 ? " and \(names.count - 10) more" : "")
    }

    private static func files(in directory: URL, extensions: Set<String>) throws(EvalError) -> [String: URL] {
        let urls: [URL]
        do {
            urls = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        } catch {
            throw EvalError(.unreadableFile, "cannot list \(directory.path)", underlying: error)
        }
        var byStem: [String: URL] = [:]
        for url in urls where extensions.isEmpty || extensions.contains(url.pathExtension.lowercased()) {
            byStem[url.deletingPathExtension().lastPathComponent] = url
        }
        return byStem
    }
}
