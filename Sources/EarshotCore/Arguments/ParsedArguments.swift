/// The result of ``CommandSpec/parse(_:)``.
public struct ParsedArguments: Sendable, Equatable {
    /// True when `--help` or `-h` was given; nothing else is filled in then.
    public let isHelp: Bool
    let values: [String: [String]]
    let flags: Set<String>
    /// Positional arguments in order.
    public let positionals: [String]

    init(values: [String: [String]] = [:], flags: Set<String> = [], positionals: [String] = [], isHelp: Bool = false) {
        self.values = values
        self.flags = flags
        self.positionals = positionals
        self.isHelp = isHelp
    }

    /// The value of option `name`, or nil when it was not given (the last one if repeated).
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether flag `name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// All options that were given, as name → last value (for layering over other configuration sources).
    public var optionValues: [String: String] { values.compactMapValues(\.last) }
}

/// A command line that could not be parsed; `description` is what to print, followed by a hint to `--help`.
public struct ArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public let command: String
    public let message: String

    public init(command: String, _ message: String) {
        self.command = command
        self.message = message
    }

    public var description: String { "\(command): \(message)\nRun '\(command) --help' for usage." }
}
