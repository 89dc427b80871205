/// The cost of an Argon2id hash: memory in KiB, passes over it, and lanes.
///
/// The default is OWASP's minimum for Argon2id (Password Storage Cheat Sheet: m = 19 MiB, t = 2, p = 1); see
/// docs/accounts.md for the measured sign-in latency and throughput at these parameters. Stored hashes carry their
/// own parameters, so raising them later re-hashes each password at its owner's next sign-in.
public struct Argon2Parameters: Sendable, Hashable, CustomStringConvertible {
    /// Memory per hash in KiB (`m`).
    public var memoryKiB: UInt32
    /// Passes over the memory (`t`).
    public var iterations: UInt32
    /// Lanes, and threads per hash (`p`).
    public var parallelism: UInt32

    /// Parameters as given (check ``meetsOWASPMinimum`` before using them for new hashes).
    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// OWASP's minimum: 19 MiB, 2 passes, 1 lane.
    public static let owaspMinimum = Argon2Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

    /// Whether these parameters cost at least OWASP's minimum. OWASP lists equivalent configurations that trade
    /// memory for passes (m=47104 t=1, m=19456 t=2, m=12288 t=3, m=9216 t=4, m=7168 t=5, m in KiB): at least 7 MiB,
    /// and memory × passes at least that of the cheapest of them (7168 × 5).
    public var meetsOWASPMinimum: Bool {
        memoryKiB >= 7 * 1024 && parallelism >= 1 && UInt64(memoryKiB) * UInt64(iterations) >= 7168 * 5
    }

    /// True when a hash made with these parameters is cheaper than one made with `other` in any dimension (so it
    /// should be re-hashed with `other`).
    public func isWeaker(than other: Argon2Parameters) -> Bool {
        memoryKiB < other.memoryKiB || iterations < other.iterations || parallelism < other.parallelism
    }

    /// The parameters of a PHC-format Argon2id hash (`$argon2id$v=19$m=19456,t=2,p=1$…`), or nil.
    public init?(phc: String) {
        let fields = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
        var values: [Substring: UInt32] = [:]
        for pair in fields[3].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = UInt32(parts[1]) else { return nil }
            values[parts[0]] = value
        }
        guard let m = values["m"], let t = values["t"], let p = values["p"] else { return nil }
        self.init(memoryKiB: m, iterations: t, parallelism: p)
    }

    /// `m=19456,t=2,p=1`, as in a PHC string.
    public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }
}
