import EarshotCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Children started with posix_spawn: their streams, exits, signals and errors, and the reason the wrapper exists —
/// a process holding well over a thousand descriptors starts children safely, and they inherit none of them.
@Suite struct SubprocessTests {
    @Test func exitStatusesSignalsAndMergedOutput() throws {
        #expect(try Subprocess.run("/bin/true").termination == .exited(0))
        #expect(try Subprocess.run("false").termination == .exited(1))  // looked up on PATH
        let both = try Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(both.termination == .exited(3))
        #expect(both.termination.description == "exit status 3")
        #expect(String(decoding: both.output, as: UTF8.self) == "out\nerr\n")

        let sleeper = try Subprocess("/bin/sleep", ["30"], stdout: .null, stderr: .null)
        #expect(sleeper.isRunning)
        #expect(sleeper.waitUntilExit(timeout: .milliseconds(50)) == nil)
        sleeper.signal(SIGTERM)
        #expect(sleeper.waitUntilExit() == .signalled(SIGTERM))
        #expect(!sleeper.isRunning)
        sleeper.signal(SIGKILL)  // reaped: nothing is sent (the pid may belong to someone else by now)
    }

    @Test func stdinPipeFileInputEnvironmentAndSeparateStreams() async throws {
        let cat = try Subprocess("/bin/cat", stdin: .pipe, stdout: .pipe, stderr: .null)
        let text = Data(String(repeating: "earshot ", count: 20_000).utf8)  // more than a pipe holds
        let writer = Thread {
            cat.standardInput!.write(text)
            try? cat.standardInput!.close()
        }
        writer.start()
        #expect(cat.standardOutput!.readDataToEndOfFile() == text)
        #expect(await cat.waitForExit() == .exited(0))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID()).txt")
        try Data("from a file\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reader = try Subprocess("/bin/cat", stdin: .file(file.path), stdout: .pipe, stderr: .pipe)
        #expect(reader.standardOutput!.readDataToEndOfFile() == Data("from a file\n".utf8))
        #expect(reader.standardError!.readDataToEndOfFile().isEmpty)
        #expect(reader.waitUntilExit().succeeded)

        let env = try Subprocess.run(
            "/bin/sh", ["-c", "echo \"$ONLY\" \"${HOME:-none}\""], environment: ["ONLY": "this"])
        #expect(String(decoding: env.output, as: UTF8.self) == "this none\n")

        let exited = try Subprocess("/bin/true", stdout: .null, stderr: .null)
        let seen = await withCheckedContinuation { continuation in
            exited.whenExited { continuation.resume(returning: $0) }
        }
        #expect(seen == .exited(0))
    }

    @Test func aMissingProgramIsAClearError() {
        let error = #expect(throws: SubprocessError.self) { try Subprocess("/nonexistent/tool") }
        #expect(error?.code == ENOENT)
        #expect(error?.description.contains("cannot start /nonexistent/tool") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.description.contains("not on PATH") == true)
        #expect(throws: SubprocessError.self) { try Subprocess("earshot-no-such-tool-anywhere") }
    }

    /// Foundation's `Process.run()` crashed (SIGSEGV) in a process this full; the children here see only 0, 1 and 2.
    @Test func manyOpenDescriptorsAreNeitherAProblemNorInherited() throws {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        for _ in 0..<1_500 {
            let descriptor = open("/dev/null", O_RDONLY)  // without O_CLOEXEC, as a careless library would
            guard descriptor >= 0 else { break }
            opened.append(descriptor)
        }
        #expect(opened.count > 1_000, "the descriptor limit is too low for this test: \(opened.count) opened")
        for _ in 0..<20 {
            let listing = try Subprocess.run("/bin/ls", ["/proc/self/fd"])
            #expect(listing.termination.succeeded)
            let descriptors = String(decoding: listing.output, as: UTF8.self).split(separator: "\n").compactMap {
                Int($0)
            }
            // ls itself holds the directory it lists open (descriptor 3).
            #expect(descriptors.allSatisfy { $0 <= 3 }, "inherited: \(descriptors.filter { $0 > 3 }.prefix(10))")
        }
    }
}
