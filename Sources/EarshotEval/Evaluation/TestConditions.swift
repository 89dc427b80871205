import Foundation

/// What was tested and on what, shown in the report's "Test conditions" section and kept in the JSON.
public struct TestConditions: Sendable, Hashable, Codable {
    /// The model or engine (for example `asr-pro (ggml-base.en.bin)`).
    public var model: String?
    /// Decoding settings as name → value (temperature, beam size, language…); shown sorted by name.
    public var settings: [String: String]
    /// The audio format of the inputs (for example `WAV PCM 16 kHz mono 16-bit`).
    public var audioFormat: String?
    /// The machine that ran the test; ``currentMachine()`` describes this one.
    public var machine: String?

    /// Creates test conditions; every field is optional.
    public init(
        model: String? = nil, settings: [String: String] = [:], audioFormat: String? = nil, machine: String? = nil
    ) {
        self.model = model
        self.settings = settings
        self.audioFormat = audioFormat
        self.machine = machine
    }

    /// A one-line description of this machine: OS, logical CPU count and memory.
    public static func currentMachine() -> String {
        let info = ProcessInfo.processInfo
        let gibibytes = Double(info.physicalMemory) / 1_073_741_824
        return "\(info.operatingSystemVersionString), \(info.activeProcessorCount) CPUs, "
            + String(format: "%.1f GiB RAM", gibibytes)
    }
}
