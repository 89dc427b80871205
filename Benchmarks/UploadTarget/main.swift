// Benchmark target: the streamed-upload path of Earshot (HTTP body spooled to disk with SHA-256/MD5 computed on
// the fly, then moved into the filesystem blob store), served alone so Benchmarks/http/run can measure MB/s and
// this process's peak RSS. Usage: earshot-bench-upload PORT DIRECTORY. Binds 127.0.0.1 only; stops on SIGTERM.
import EarshotCore
import EarshotHTTP
import EarshotStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Stored: Encodable {
    let key: String
    let size: Int64
    let sha256: String
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: earshot-bench-upload PORT DIRECTORY\n".utf8))
    exit(64)
}
LogSink.shared.bootstrap(level: .warning)
let root = URL(fileURLWithPath: arguments[2])
let blobs = try await FileSystemBlobStore(root: root.appendingPathComponent("blobs"))
let spool = root.appendingPathComponent("spool")
try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)

let router = Router()
router.put("/upload/{name}", body: .file(limit: 1 << 40, directory: spool.path)) { request, context in
    guard case .file(let upload) = request.body else { throw HTTPError.invalidArgument("expected a body") }
    let key = try BlobKey("bench/\(try context.parameters.require("name"))")
    // The HTTP layer digested the body while spooling it: the store records those digests instead of re-reading.
    let info = try await blobs.put(
        key, movingFile: URL(fileURLWithPath: upload.path),
        options: .init(knownDigests: .init(size: Int64(upload.byteCount), sha256: upload.sha256, md5: upload.md5)))
    return try .json(Stored(key: key.rawValue, size: info.size, sha256: info.sha256.hex))
}
let server = HTTPServer(router: router, configuration: .init(port: port))
signal(SIGTERM, SIG_IGN)
let task = Task { try await server.run() }
let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "signals"))
source.setEventHandler { task.cancel() }
source.resume()
try await task.value
