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

    /// How many samples at `rate` per second it lasts, rounded toward zero (16_000 for 1 s at 16 kHz).
    public func samples(atRate rate: Int) -> Int {
        let (seconds, attoseconds) = components
        let fraction = Int64(1_000_000_000_000_000_000).dividingFullWidth(
            Int64(rate).multipliedFullWidth(by: attoseconds)
        ).quotient
        return Int(seconds) * rate + Int(fraction)
    }
}
