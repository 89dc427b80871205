extension Duration {
    /// Whole milliseconds (rounded down), for the Unix-millisecond times the store keeps.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
