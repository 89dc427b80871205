import EarshotCrypto

/// One file of the web console, embedded in the binary at build time (`Assets/`, see Package.swift).
struct ConsoleAsset: Sendable {
    /// The file name, served at `/console/<name>` (`index.html` is served at `/`).
    let name: String
    /// `Content-Type`, with a charset for text.
    let contentType: String
    /// The bytes as served.
    let bytes: [UInt8]
    /// A strong validator: the first 128 bits of the bytes' SHA-256, quoted.
    let etag: String

    init(name: String, contentType: String, bytes: [UInt8]) {
        self.name = name
        self.contentType = contentType
        self.bytes = bytes
        self.etag = "\"" + DigestAlgorithm.sha256.hash(bytes).hex.prefix(32) + "\""
    }

    /// Every asset, by name. A new file in `Assets/` needs a line here and a resource in Package.swift.
    static let all: [String: ConsoleAsset] = {
        let files: [(String, String, [UInt8])] = [
            ("index.html", "text/html; charset=utf-8", PackageResources.index_html),
            ("console.css", "text/css; charset=utf-8", PackageResources.console_css),
            ("app.js", "text/javascript; charset=utf-8", PackageResources.app_js),
            ("api.js", "text/javascript; charset=utf-8", PackageResources.api_js),
            ("dom.js", "text/javascript; charset=utf-8", PackageResources.dom_js),
            ("auth.js", "text/javascript; charset=utf-8", PackageResources.auth_js),
            ("library.js", "text/javascript; charset=utf-8", PackageResources.library_js),
            ("record.js", "text/javascript; charset=utf-8", PackageResources.record_js),
            ("wave.js", "text/javascript; charset=utf-8", PackageResources.wave_js),
            ("upload.js", "text/javascript; charset=utf-8", PackageResources.upload_js),
            ("quality.js", "text/javascript; charset=utf-8", PackageResources.quality_js),
            ("devices.js", "text/javascript; charset=utf-8", PackageResources.devices_js),
            ("admin.js", "text/javascript; charset=utf-8", PackageResources.admin_js),
            ("languages.js", "text/javascript; charset=utf-8", PackageResources.languages_js),
            ("live.js", "text/javascript; charset=utf-8", PackageResources.live_js),
            ("capture.js", "text/javascript; charset=utf-8", PackageResources.capture_js),
            ("realtime.js", "text/javascript; charset=utf-8", PackageResources.realtime_js),
            ("conversation.js", "text/javascript; charset=utf-8", PackageResources.conversation_js),
        ]
        return Dictionary(
            uniqueKeysWithValues: files.map { ($0.0, ConsoleAsset(name: $0.0, contentType: $0.1, bytes: $0.2)) })
    }()
}
