extension Duration {
    /// The duration in seconds, as a `Double` (for Dispatch deadlines, `Date` intervals, rates and printing).
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded toward zero (for the Unix-millisecond times the stores keep, and C timeouts).
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
