extension Duration {
    /// The duration in seconds, as a `Double` (for Dispatch deadlines, `Date` intervals and printing).
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
