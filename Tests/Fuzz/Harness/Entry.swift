import Foundation

#if canImport(Glibc)
    import Glibc
#endif

#if FUZZING
    /// The target `EARSHOT_FUZZ_TARGET` names, read once.
    let selectedTarget: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["EARSHOT_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTargets.named(name) else {
            let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("earshot-fuzz: set EARSHOT_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(64)
        }
        if target.name == "http" { _ = FuzzServer.shared }
        return target
    }()

    /// libFuzzer's driver (libclang_rt.fuzzer), called with the process's arguments and the per-input callback.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The executable's entry point under -sanitize=fuzzer: SwiftPM links an executable's `main` to
    /// `<module>_main`, so libFuzzer's own `main` is not used; this hands control to its driver instead.
    @_cdecl("earshot_fuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runDriver(&count, &arguments) { data, size in
            selectedTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        }
    }
#else
    /// Without libFuzzer: `earshot-fuzz TARGET FILE…` runs each file through TARGET once (a corpus replay).
    @main
    enum Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTargets.named(name) else {
                let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
                FileHandle.standardError.write(Data("usage: earshot-fuzz TARGET FILE… (targets: \(names))\n".utf8))
                exit(64)
            }
            if target.name == "http" { _ = FuzzServer.shared }
            var count = 0
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                target.run(Array(data))
                count += 1
            }
            print("\(target.name): replayed \(count) inputs, no crash")
        }
    }
#endif
