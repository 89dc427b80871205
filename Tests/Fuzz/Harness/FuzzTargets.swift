import EarshotAPI
import EarshotAudio
import EarshotDevice
import EarshotHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fuzz target: a function of arbitrary bytes that must not crash, trap, hang or leak, whatever the bytes.
/// `make fuzz` runs each under libFuzzer for a bounded time (`Tests/Fuzz/run`); without libFuzzer the same binary
/// replays a corpus (`earshot-fuzz TARGET FILE…`), which is how the committed corpus stays a regression test.
struct FuzzTarget: Sendable {
    let name: String
    /// What the bytes are.
    let input: String
    let run: @Sendable ([UInt8]) -> Void
}

enum FuzzTargets {
    static let all: [FuzzTarget] = [http, multipart, json, wav, router, device]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    // MARK: HTTP request path

    /// Raw bytes sent on a fresh connection to a live EarshotHTTP server (request line, headers, any body): the
    /// server must answer or close, and keep serving.
    static let http = FuzzTarget(name: "http", input: "a raw HTTP/1.1 request") { bytes in
        let port = FuzzServer.shared.port
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // Long enough for an answer to a complete request; an incomplete one is left to the server's timeout.
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { fatalError("the server stopped accepting connections") }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
    }

    // MARK: Bodies

    /// A `multipart/form-data` body fed in two pieces (split at the first byte's value) to the streaming parser.
    static let multipart = FuzzTarget(name: "multipart", input: "a multipart/form-data body, boundary \"b0undary\"") {
        bytes in
        guard var parser = try? MultipartFormData(boundary: "b0undary") else { return }
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        do {
            _ = try parser.feed(bytes[..<split])
            _ = try parser.feed(bytes[split...])
            try parser.finish()
        } catch {}
    }

    /// A JSON body decoded as every request type of the API.
    static let json = FuzzTarget(name: "json", input: "a JSON request body") { bytes in
        let data = Data(bytes)
        let decoder = JSONDecoder()
        _ = try? decoder.decode(PartnerTokenRequest.self, from: data)
        _ = try? decoder.decode(UserTokenRequest.self, from: data)
        _ = try? decoder.decode(UploadPlanRequest.self, from: data)
        _ = try? decoder.decode(CompleteUploadRequest.self, from: data)
        _ = try? decoder.decode(TranscriptionTaskRequest.self, from: data)
        _ = try? decoder.decode(RecordCreateRequest.self, from: data)
        _ = try? decoder.decode(RecordUpdateRequest.self, from: data)
        _ = try? decoder.decode(RecordTaskRequest.self, from: data)
        _ = try? decoder.decode(SpeakerRenameRequest.self, from: data)
        _ = try? decoder.decode(VoiceprintEnrolmentRequest.self, from: data)
        _ = try? decoder.decode(SignUpRequest.self, from: data)
        _ = try? decoder.decode(VerifyRequest.self, from: data)
        _ = try? decoder.decode(CodeRequest.self, from: data)
        _ = try? decoder.decode(SignInRequest.self, from: data)
        _ = try? decoder.decode(PasswordResetRequest.self, from: data)
        _ = try? decoder.decode(PasswordChangeRequest.self, from: data)
        _ = try? decoder.decode(AccountUpdateRequest.self, from: data)
        _ = try? decoder.decode(AccountDeletionRequest.self, from: data)
        _ = try? decoder.decode(PartnerAccountSettings.self, from: data)
    }

    // MARK: Audio

    /// A file whose first bytes say RIFF/WAVE: the WAV tier inspection (header, chunks, format) runs on it.
    static let wav = FuzzTarget(name: "wav", input: "a WAV file") { bytes in
        let url = FuzzServer.scratchFile
        guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else { return }
        if WAVInspector.looksLikeWAV(url) { _ = try? WAVInspector.inspect(url) }
    }

    // MARK: Routing

    /// A request path (as libmicrohttpd hands it over, percent-decoded) matched against the API's patterns.
    static let router = FuzzTarget(name: "router", input: "a request path") { bytes in
        let path = String(decoding: bytes, as: UTF8.self)
        for pattern in routePatterns {
            if let parameters = pattern.match(path: path), !path.lowercased().contains("%2f") {
                // A captured segment never contains the separator it was split on (unless it was sent encoded).
                for name in pattern.parameterNames where parameters[name]?.contains("/") == true {
                    fatalError("\(pattern) captured a `/` in {\(name)} from \(path.debugDescription)")
                }
            }
        }
    }

    static let routePatterns = [
        "/open/partner/files/upload/parts/{upload_id}/{part_number}", "/open/partner/files/{file_id}/download",
        "/open/partner/records/{record_id}/tasks/{task_id}", "/open/partner/transcriptions/{task_id}/export",
        "/static/*",
    ].map(PathPattern.init)

    // MARK: Device protocol

    /// Bytes a device or an app receives on its link, fed in two pieces (split at the first byte's value): the
    /// frame reader resynchronises past anything, fragments are put back together, and every message that decodes
    /// must encode and decode to itself.
    static let device = FuzzTarget(name: "device", input: "bytes on a device link (frames of docs/device-protocol.md)")
    {
        bytes in
        var decoder = FrameDecoder(maximumFrameSize: 512)
        var assembler = MessageAssembler(maximumMessageSize: 64 << 10)
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        for piece in [bytes[..<split], bytes[split...]] {
            decoder.append(piece)
            while true {
                let frame: Frame?
                do { frame = try decoder.next() } catch { continue }
                guard let frame else { break }
                guard let envelope = try? assembler.add(frame), let message = try? DeviceMessage(envelope) else {
                    continue
                }
                let again: Envelope
                switch message {
                case .request(let request, let sequence): again = request.envelope(sequence: sequence)
                case .response(let response, let opcode, let sequence):
                    again = response.envelope(to: opcode, sequence: sequence)
                case .event(let event, let sequence): again = event.envelope(sequence: sequence)
                }
                guard (try? DeviceMessage(again)) == message else {
                    fatalError("\(message) does not survive being encoded again")
                }
            }
        }
        if decoder.bufferedBytes > 512 + Frame.overhead {
            fatalError("the frame reader kept \(decoder.bufferedBytes) bytes")
        }
    }
}
