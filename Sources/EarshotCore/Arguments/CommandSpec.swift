/// The shape of one command-line command: its options, flags and positional arguments, and its help text.
///
/// Earshot's commands are declared as values of this type and parsed with ``parse(_:)``; the same value renders
/// `--help`. Options take a value (`--port 8080` or `--port=8080`); flags do not (`--diarize`).
public struct CommandSpec: Sendable {
    /// An option that takes a value.
    public struct Option: Sendable {
        public let name: String
        public let valueName: String
        public let help: String
        public let repeatable: Bool

        /// `name` without dashes (`port`); `valueName` is shown in help (`PORT`).
        public init(_ name: String, valueName: String = "VALUE", help: String, repeatable: Bool = false) {
            self.name = name
            self.valueName = valueName
            self.help = help
            self.repeatable = repeatable
        }
    }

    /// A switch without a value.
    public struct Flag: Sendable {
        public let name: String
        public let help: String

        public init(_ name: String, help: String) {
            self.name = name
            self.help = help
        }
    }

    /// A positional argument, in order. The last one may be `variadic` (one or more values, or zero or more when
    /// also `optional`).
    public struct Positional: Sendable {
        public let name: String
        public let help: String
        public let optional: Bool
        public let variadic: Bool

        public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
            self.name = name
            self.help = help
            self.optional = optional
            self.variadic = variadic
        }
    }

    /// The full command path as typed (`earshot serve`).
    public let name: String
    public let abstract: String
    public let discussion: String
    public let options: [Option]
    public let flags: [Flag]
    public let positionals: [Positional]
    /// Subcommands listed in help (name, abstract); dispatch is the caller's.
    public let subcommands: [(name: String, abstract: String)]

    public init(
        name: String, abstract: String, discussion: String = "", options: [Option] = [], flags: [Flag] = [],
        positionals: [Positional] = [], subcommands: [(name: String, abstract: String)] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.flags = flags
        self.positionals = positionals
        self.subcommands = subcommands
    }

    /// Parses `arguments` (without the command words themselves).
    ///
    /// Throws ``ArgumentError`` for an unknown option (with a suggestion), a missing value, a repeated
    /// non-repeatable option, a missing or extra positional. `--help`/`-h` anywhere yields `.help`.
    public func parse(_ arguments: [String]) throws(ArgumentError) -> ParsedArguments {
        let beforeTerminator = arguments.prefix { $0 != "--" }
        if beforeTerminator.contains("-h") || beforeTerminator.contains("--help") {
            return ParsedArguments(isHelp: true)
        }
        var values: [String: [String]] = [:]
        var setFlags: Set<String> = []
        var positionalValues: [String] = []
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionalValues.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw ArgumentError(command: name, "unknown option '\(argument)'; options are spelled with two dashes")
            }
            var body = argument.dropFirst(2)
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                inlineValue = String(body[body.index(after: equals)...])
                body = body[..<equals]
            }
            let key = String(body)
            if let option = options.first(where: { $0.name == key }) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw ArgumentError(command: name, "option --\(key) needs a value (\(option.valueName))")
                }
                if !option.repeatable, values[key] != nil {
                    throw ArgumentError(command: name, "option --\(key) given more than once")
                }
                values[key, default: []].append(value)
            } else if flags.contains(where: { $0.name == key }) {
                guard inlineValue == nil else {
                    throw ArgumentError(command: name, "flag --\(key) takes no value")
                }
                setFlags.insert(key)
            } else {
                let known = options.map(\.name) + flags.map(\.name)
                var message = "unknown option '--\(key)'"
                if let suggestion = closestMatch(to: key, among: known) {
                    message += "; did you mean '--\(suggestion)'?"
                }
                throw ArgumentError(command: name, message)
            }
        }
        let required = positionals.filter { !$0.optional }.count
        if positionalValues.count < required {
            let missing = positionals[positionalValues.count].name
            throw ArgumentError(command: name, "missing argument \(missing)")
        }
        if positionalValues.count > positionals.count, positionals.last?.variadic != true {
            throw ArgumentError(command: name, "unexpected argument '\(positionalValues[positionals.count])'")
        }
        return ParsedArguments(values: values, flags: setFlags, positionals: positionalValues)
    }

    /// The `--help` text.
    public var usage: String {
        var synopsis = name
        if !subcommands.isEmpty { synopsis += " <command>" }
        if !options.isEmpty || !flags.isEmpty { synopsis += " [options]" }
        for positional in positionals {
            let more = positional.variadic ? "..." : ""
            synopsis += positional.optional ? " [\(positional.name)\(more)]" : " <\(positional.name)>\(more)"
        }
        var lines = ["\(abstract)", "", "USAGE: \(synopsis)"]
        if !discussion.isEmpty { lines += [""] + wrap(discussion, width: 100) }
        func table(_ title: String, _ rows: [(String, String)]) {
            guard !rows.isEmpty else { return }
            let width = min(max(rows.map(\.0.count).max() ?? 0, 8), 34)
            lines += ["", "\(title):"]
            for (left, right) in rows {
                let pad = left.count < width ? String(repeating: " ", count: width - left.count) : ""
                lines.append("  \(left)\(pad)  \(right)")
            }
        }
        table("COMMANDS", subcommands.map { ($0.name, $0.abstract) })
        table("ARGUMENTS", positionals.map { ("<\($0.name)>", $0.help) })
        table(
            "OPTIONS",
            options.map { ("--\($0.name) <\($0.valueName)>", $0.help + ($0.repeatable ? " (repeatable)" : "")) }
                + flags.map { ("--\($0.name)", $0.help) } + [("-h, --help", "Show this help.")])
        return lines.joined(separator: "\n")
    }
}

/// Greedy word wrap of `text` into lines of at most `width` characters (longer words stand alone).
func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        if !line.isEmpty && line.count + 1 + word.count > width {
            lines.append(line)
            line = ""
        }
        line += line.isEmpty ? String(word) : " " + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}

/// Levenshtein-closest candidate within distance 2, for "did you mean" hints.
public func closestMatch(to word: String, among candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
    let target = Array(word)
    let scored = candidates.map { ($0, distance(target, Array($0))) }.filter { $0.1 <= 2 }
    return scored.min { $0.1 < $1.1 }?.0
}
