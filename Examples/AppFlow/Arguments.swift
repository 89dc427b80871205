import Foundation

/// `app-flow [--earshot URL] --backend URL --session TOKEN [--journal DIR] FILE`, or with a recorder device
/// `… --device SERIAL [--code CODE] [--device-dir DIR]`, parsed by hand (the example depends on EarshotKit only).
struct Arguments: Sendable {
    static let usage = """
        usage: app-flow [--earshot URL] --backend URL --session TOKEN [--journal DIR] FILE
               app-flow [--earshot URL] --backend URL --session TOKEN [--journal DIR] --device SERIAL
                        [--code CODE] [--device-dir DIR]

          --earshot URL    the Earshot server the app uploads to (default http://127.0.0.1:8080)
          --backend URL    your partner backend (Examples/PartnerBackend), e.g. http://127.0.0.1:3000
          --session TOKEN  the app's own sign-in, one of the backend's BACKEND_SESSIONS tokens
          --journal DIR    keep upload resume state here; re-run with the same FILE to resume
          FILE             the recording to upload and transcribe (m4a, wav, mp3…)
          --device SERIAL  instead of a FILE: sync this recorder (bind it first with --code) and print each
                           recording's transcript as it finishes
          --code CODE      the bind code the device shows (first run only)
          --device-dir DIR where devices advertise themselves (default $EARSHOT_DEVICE_DIR or
                           $EARSHOT_HOME/devices)
        """

    var earshot = URL(string: "http://127.0.0.1:8080")!
    var backend: URL
    var session: String
    var journal: URL?
    /// The recording to upload (nil in device mode).
    var file: URL?
    /// Device mode: the recorder's serial, its bind code, and the discovery directory.
    var device: String?
    var code: String?
    var deviceDirectory: URL?

    /// Reads `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` saying what is missing or wrong.
    init(parsing arguments: [String]) throws(UsageError) {
        var options: [String: String] = [:]
        var files: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if ["--earshot", "--backend", "--session", "--journal", "--device", "--code", "--device-dir"].contains(
                argument)
            {
                guard let value = rest.popFirst() else { throw UsageError("\(argument) needs a value") }
                options[argument] = value
            } else if argument.hasPrefix("-") {
                throw UsageError("unknown option \(argument)")
            } else {
                files.append(argument)
            }
        }
        func url(_ option: String) throws(UsageError) -> URL? {
            guard let text = options[option] else { return nil }
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw UsageError("\(option) '\(text)' is not an http(s) URL")
            }
            return url
        }
        guard let backend = try url("--backend") else { throw UsageError("--backend is required") }
        guard let session = options["--session"], !session.isEmpty else { throw UsageError("--session is required") }
        self.device = options["--device"]
        self.code = options["--code"]
        self.deviceDirectory = options["--device-dir"].map { URL(fileURLWithPath: $0, isDirectory: true) }
        if device == nil {
            guard files.count == 1 else { throw UsageError("give exactly one FILE (got \(files.count))") }
            self.file = URL(fileURLWithPath: files[0])
        } else if !files.isEmpty {
            throw UsageError("give either --device or a FILE, not both")
        }
        self.backend = backend
        self.session = session
        if let earshot = try url("--earshot") { self.earshot = earshot }
        self.journal = options["--journal"].map { URL(fileURLWithPath: $0, isDirectory: true) }
    }
}

/// A command line that cannot run: exit 64 with the usage.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
