import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Progress on stderr: on a terminal one redrawn line per step — a bar, the percentage and the time left (from
/// the rate so far) — and on a pipe or file one line when a step starts and one when it ends (with its time), so
/// scripts and logs see progress without carriage returns.
final class ProgressDisplay: @unchecked Sendable {
    // SAFETY: all mutable state is behind `lock`.
    private let lock = NSLock()
    let isTerminal: Bool
    private var step: String?
    private var started = ContinuousClock.now
    private var lastDrawn = ""

    init(isTerminal: Bool = isatty(2) != 0) {
        self.isTerminal = isTerminal
    }

    /// `fraction` (0…1) of `step` is done.
    func update(_ step: String, _ fraction: Double) {
        lock.withLock {
            if step != self.step {
                finishLocked()
                self.step = step
                started = .now
                if !isTerminal { write("earshot: \(step)…\n") }
            }
            guard isTerminal else { return }
            let line = Self.bar(step, fraction: fraction, elapsed: ContinuousClock.now - started)
            guard line != lastDrawn else { return }
            lastDrawn = line
            write("\r\u{1B}[K" + line)
        }
    }

    /// Ends the current step's line.
    func finish() {
        lock.withLock { finishLocked() }
    }

    /// Clears the bar so a line of output can be printed (a terminal only).
    func clear() {
        lock.withLock {
            guard isTerminal, !lastDrawn.isEmpty else { return }
            write("\r\u{1B}[K")
            lastDrawn = ""
        }
    }

    private func finishLocked() {
        guard let step else { return }
        let seconds = (ContinuousClock.now - started).seconds
        if isTerminal {
            write("\r\u{1B}[K")
        } else {
            write("earshot: \(step) done in \(Self.clock(seconds))\n")
        }
        self.step = nil
        lastDrawn = ""
    }

    /// `transcribing [#########-----------] 45% 0:12 left`: the time left is the rate so far projected to the end,
    /// shown once 2 % is done.
    static func bar(_ step: String, fraction: Double, elapsed: Duration, width: Int = 24) -> String {
        let fraction = min(max(fraction, 0), 1)
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var line = "\(step) [\(bar)] \(Int(fraction * 100))%"
        let spent = elapsed.seconds
        if fraction >= 0.02, fraction < 1 {
            line += " \(clock(spent / fraction - spent)) left"
        }
        return line
    }

    /// `m:ss` or `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded()))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? "\(h):" + String(format: "%02d:%02d", m, s) : "\(m):" + String(format: "%02d", s)
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
