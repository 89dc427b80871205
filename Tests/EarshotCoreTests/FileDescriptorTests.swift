import EarshotCore
import Foundation
import Synchronization
import Testing

/// The EINTR-safe loops of EarshotCore's file layer, on pipes (where short transfers and interrupted calls really
/// happen) and on regular files.
@Suite struct FileDescriptorTests {
    @Test func aReadFillsTheBufferAcrossShortReadsAndSignals() throws {
        let pipe = try Pipe.make()
        let message = Array("the whole message, sent in small pieces".utf8)
        // A raw read returns what is there: the premise of the loop.
        try pipe.writer.write(message[0..<5])
        var probe = [UInt8](repeating: 0, count: message.count)
        #expect(read(pipe.reader.rawValue, &probe, probe.count) == 5)

        let reader = SignalledThread { () throws(SystemCallError) -> [UInt8] in
            var buffer = [UInt8](repeating: 0, count: message.count - 5)
            let count = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemCallError) in try pipe.reader.read(into: raw) }
            }.get()
            return Array(buffer.prefix(count))
        }
        for start in stride(from: 5, to: message.count, by: 4) {
            reader.interrupt()
            Thread.sleep(forTimeInterval: 0.005)
            reader.interrupt()
            try pipe.writer.write(message[start..<min(start + 4, message.count)])
        }
        #expect(try reader.result() == Array(message[5...]))
        #expect(signals.load(ordering: .relaxed) > 0)
    }

    @Test func aReadStopsShortOnlyAtTheEnd() throws {
        let pipe = try Pipe.make()
        try pipe.writer.write(Array("end".utf8)[...])
        try pipe.writer.close()
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemCallError) in try pipe.reader.read(into: raw) }
        }.get()
        #expect(count == 3)
        #expect(Array(buffer.prefix(3)) == Array("end".utf8))
    }

    @Test func aWriteDeliversEveryByteThroughAFullPipeWhileSignalled() throws {
        let pipe = try Pipe.make()
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        // 1 MiB through a 64 KiB pipe: the writer blocks again and again, and signals cut its writes short.
        let writer = SignalledThread { () throws(SystemCallError) -> Bool in
            try payload.withUnsafeBytes { raw in Result { () throws(SystemCallError) in try pipe.writer.write(raw) } }
                .get()
            try pipe.writer.close()
            return true
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            writer.interrupt()
            let count = read(pipe.reader.rawValue, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            #expect(count >= 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        #expect(try writer.result())
        #expect(received.count == payload.count)
        #expect(received == payload)
    }

    @Test func positionalReadsAndWritesUseTheirOffsets() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/data.bin"
        let content = (0..<10_240).map { UInt8(truncatingIfNeeded: $0) }
        try Data(content).write(to: URL(fileURLWithPath: path))
        let file = try FileDescriptor.open(path, O_RDWR)
        defer { try? file.close() }

        #expect(try file.read(upTo: 4096, at: 0) == Array(content[0..<4096]))
        #expect(try file.read(upTo: 4096, at: 8192) == Array(content[8192...]))  // short only at the end
        #expect(try file.read(upTo: 16, at: 20_000) == [])

        try [UInt8](repeating: 0xAB, count: 3).withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in try file.write(raw, at: 100) }
        }.get()
        #expect(try file.read(upTo: 5, at: 99) == [content[99], 0xAB, 0xAB, 0xAB, content[103]])
        #expect(try file.status().st_size == 10_240)
    }

    @Test func errorsNameTheCallThePathAndTheReason() throws {
        let missing = #expect(throws: SystemCallError.self) {
            try FileDescriptor.open("/nonexistent/earshot/file", O_RDONLY)
        }
        #expect(missing?.call == "open")
        #expect(missing?.path == "/nonexistent/earshot/file")
        #expect(missing?.isNotFound == true)
        #expect(missing?.description == "open /nonexistent/earshot/file: No such file or directory")

        // /dev/full answers every write with ENOSPC, as a full disk does.
        let full = try FileDescriptor.open("/dev/full", O_WRONLY)
        defer { try? full.close() }
        let error = #expect(throws: SystemCallError.self) {
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { raw in
                Result { () throws(SystemCallError) in try full.write(raw) }
            }.get()
        }
        #expect(error?.call == "write")
        #expect(error?.isOutOfSpace == true)
        #expect(error?.description == "write /dev/full: No space left on device")
    }

    @Test func fileSystemCallsReportWhatIsThere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/a"
        #expect(try FileSystem.linkStatus(path) == nil)
        #expect(try FileSystem.makeDirectory(path) == true)
        #expect(try FileSystem.makeDirectory(path) == false)
        #expect(try FileSystem.linkStatus(path).map { $0.st_mode & S_IFMT } == S_IFDIR)
        #expect(try FileSystem.unlinkIfPresent(directory.path + "/none") == false)
        try FileSystem.syncDirectory(path)
        let rename = #expect(throws: SystemCallError.self) {
            try FileSystem.rename(directory.path + "/none", to: path + "/b")
        }
        #expect(rename?.call == "rename" && rename?.path == path + "/b" && rename?.isNotFound == true)
        #expect(FileSystem.directory(of: "/a/b/c") == "/a/b")
        #expect(FileSystem.directory(of: "/c") == "/")
        #expect(FileSystem.directory(of: "c") == ".")
    }
}

/// A pipe whose two ends close when the test ends.
struct Pipe {
    let reader: FileDescriptor
    let writer: FileDescriptor

    static func make() throws -> Pipe {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemCallError("pipe", path: "-", code: errno) }
        return Pipe(
            reader: FileDescriptor(rawValue: ends[0], path: "pipe:read"),
            writer: FileDescriptor(rawValue: ends[1], path: "pipe:write"))
    }
}

extension FileDescriptor {
    func write(_ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemCallError) in try write(raw) } }.get()
    }
}

/// Runs `body` on a thread of its own that ``interrupt()`` sends SIGUSR1 to; the handler is installed without
/// `SA_RESTART`, so a blocked `read`/`write` returns `EINTR` (or a short count) as it would in a server.
final class SignalledThread<Value: Sendable>: @unchecked Sendable {
    // SAFETY: `state` is only touched under its Mutex; `thread` is written once before `started` is signalled.
    private let state = Mutex<(thread: pthread_t?, result: Result<Value, SystemCallError>?)>((nil, nil))
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws(SystemCallError) -> Value) {
        Self.installHandler()
        let thread = Thread { [self] in
            // Threads inherit their creator's signal mask, and the test runner's threads may block SIGUSR1.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            state.withLock { $0.thread = pthread_self() }
            started.signal()
            let result = Result { () throws(SystemCallError) in try body() }
            state.withLock { $0.result = result }
            finished.signal()
        }
        thread.start()
        started.wait()
    }

    /// Sends SIGUSR1 to the thread while it runs.
    func interrupt() {
        state.withLock { state in
            if state.result == nil, let thread = state.thread { pthread_kill(thread, SIGUSR1) }
        }
    }

    /// Waits for the body and returns what it returned (or throws what it threw).
    func result() throws(SystemCallError) -> Value {
        finished.wait()
        return try state.withLock { $0.result! }.get()
    }

    private static func installHandler() {
        _ = handlerInstalled
    }
}

/// SIGUSR1 signals handled so far.
let signals = Atomic<Int>(0)

private let handlerInstalled: Void = {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in signals.add(1, ordering: .relaxed) }
    action.sa_flags = 0  // no SA_RESTART: interrupted calls fail with EINTR
    sigemptyset(&action.sa_mask)
    sigaction(SIGUSR1, &action, nil)
}()

/// A directory removed when the value is dropped.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-core-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Names in the directory, sorted.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
