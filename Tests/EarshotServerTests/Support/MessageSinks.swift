import EarshotHTTP
import EarshotTestSupport
import Foundation
import Synchronization
import Testing

/// A real SMTP server for the accounts tests: PyPI's `aiosmtpd` (installed into `$EARSHOT_HOME/venv` by
/// `scripts/setup`) on 127.0.0.1, requiring STARTTLS (a self-signed certificate made with `openssl`) and AUTH
/// (`earshot` / `sink-secret`) over TLS, writing each message it accepts as a JSON line.
struct SMTPSink: Sendable {
    static let username = "earshot"
    static let password = "sink-secret"

    let process: ChildProcess
    let port: Int
    /// The certificate to trust (`smtp-ca-file`).
    let caFile: String
    let mailbox: URL

    static let script = #"""
        import json, socket, ssl, sys, time
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult
        cert, key, mailbox = sys.argv[1:4]
        class Handler:
            async def handle_DATA(self, server, session, envelope):
                with open(mailbox, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                                        "data": envelope.content.decode("utf-8", "replace"),
                                        "tls": session.ssl is not None,
                                        "authenticated": bool(session.authenticated)}) + "\n")
                return "250 OK"
        def authenticate(server, session, envelope, mechanism, auth_data):
            return AuthResult(success=auth_data.login == b"earshot" and auth_data.password == b"sink-secret")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        controller = Controller(Handler(), hostname="127.0.0.1", port=port, tls_context=context,
                                require_starttls=True, authenticator=authenticate, auth_require_tls=True)
        controller.start()
        print(f"smtp sink listening port={port}", flush=True)
        while True:
            time.sleep(3600)
        """#

    /// Starts the sink in `directory`; nil (with a recorded issue) when aiosmtpd or openssl is missing.
    static func start(in directory: URL) async throws -> SMTPSink? {
        let python = TestEnvironment.home.appendingPathComponent("venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path), let openssl = Program.tool("openssl") else {
            Issue.record("no \(python.path) or openssl: run scripts/setup (it installs aiosmtpd into the venv)")
            return nil
        }
        let cert = directory.appendingPathComponent("smtp-cert.pem").path
        let key = directory.appendingPathComponent("smtp-key.pem").path
        let made = try await openssl.run([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj",
            "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        try #require(made.status == 0, "\(made)")
        let mailbox = directory.appendingPathComponent("mailbox.jsonl")
        let process = try Program(python).start(["-c", script, cert, key, mailbox.path])
        let line = try await process.waitForLine(containing: "smtp sink listening", on: .stdout, timeout: .seconds(60))
        let port = try #require(
            line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        return SMTPSink(process: process, port: port, caFile: cert, mailbox: mailbox)
    }

    /// The messages received so far.
    var messages: [[String: Any]] {
        guard let text = try? String(contentsOf: mailbox, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits until `count` messages arrived (15 s at most) and returns the last.
    func waitForMessage(_ count: Int) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(15)
        while messages.count < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("the SMTP sink got \(messages.count) messages, expected \(count): \(process.diagnostics)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return messages[count - 1]
    }

    func stop() { _ = process.stop(grace: .seconds(2)) }
}

/// A local HTTP server playing an SMS provider: records each POST (headers and JSON body) and answers with the next
/// of `statuses` (the last one repeats; 200 by default).
final class SMSGatewayStub: Sendable {
    struct Received: Sendable {
        let authorization: String?
        let body: [String: String]
    }

    private let received = Mutex<[Received]>([])
    private let statuses: [Int]
    var all: [Received] { received.withLock { $0 } }

    init(statuses: [Int] = [200]) {
        self.statuses = statuses
    }

    /// Serves on 127.0.0.1 while `body` runs, passing it the endpoint URL.
    func run(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("/sms") { request, _ in
            let json = (try? JSONSerialization.jsonObject(with: Data(request.bytes)) as? [String: String]) ?? [:]
            let count = self.received.withLock {
                $0.append(Received(authorization: request.headers["Authorization"], body: json))
                return $0.count
            }
            let status = self.statuses[min(count - 1, self.statuses.count - 1)]
            return .text(#"{"status":"\#(status)"}"#, status: HTTPStatus(code: status), contentType: "application/json")
        }
        let server = HTTPServer(router: router, configuration: .init(host: "127.0.0.1", port: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.waitUntilListening()
            try await body("http://127.0.0.1:\(port)/sms")
            group.cancelAll()
        }
    }

    /// Waits until `count` messages arrived (15 s at most) and returns the last.
    func waitForMessage(_ count: Int) async throws -> Received {
        let deadline = ContinuousClock.now + .seconds(15)
        while all.count < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("the SMS gateway got \(all.count) messages, expected \(count)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return all[count - 1]
    }
}

/// The 6-digit code in a message text ("… code is 123456.").
func verificationCode(in text: String) throws -> String {
    let marker = try #require(text.range(of: "code is "), "no code in: \(text)")
    let code = String(text[marker.upperBound...].prefix(6))
    try #require(code.count == 6 && code.allSatisfy(\.isNumber), "no code in: \(text)")
    return code
}
