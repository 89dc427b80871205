import Foundation

/// Process-level gauges in Prometheus text format, read from `/proc/self` (Linux).
struct ProcessMetrics: Sendable {
    let startTime = Date()

    func render() -> String {
        var lines: [String] = []
        func gauge(_ name: String, _ help: String, _ value: Double) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) gauge", "\(name) \(value)"]
        }
        gauge(
            "process_start_time_seconds", "Start time of the process since the Unix epoch.",
            startTime.timeIntervalSince1970.rounded())
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 2, let kilobytes = Double(fields[1]) else { continue }
                switch fields[0] {
                case "VmRSS:": gauge("process_resident_memory_bytes", "Resident memory size.", kilobytes * 1024)
                case "VmHWM:":
                    gauge("process_resident_memory_peak_bytes", "Peak resident memory size.", kilobytes * 1024)
                case "Threads:": gauge("process_threads", "Operating system threads.", kilobytes)
                default: break
                }
            }
        }
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            gauge("process_open_fds", "Open file descriptors.", Double(fds.count))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
