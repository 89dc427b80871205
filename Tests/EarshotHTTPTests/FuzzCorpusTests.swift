import EarshotTestSupport
import Foundation
import Testing

/// The committed fuzz corpus (`Tests/Fuzz/Corpus/<target>`: the seeds and what `make fuzz` found that reached new
/// code) replayed through the plain build of the fuzz targets on every `make test`, so an input that once
/// crashed, or a new crash on a known input, fails the suite without libFuzzer.
@Suite(.timeLimit(.minutes(3)))
struct FuzzCorpusTests {
    @Test(arguments: ["http", "multipart", "json", "wav", "router", "device"])
    func theCommittedCorpusReplaysWithoutACrash(target: String) async throws {
        let directory = TestEnvironment.repository.appendingPathComponent("Tests/Fuzz/Corpus/\(target)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .map { directory.appendingPathComponent($0).path }
        #expect(files.count >= 3)
        let result = try await Program.built("earshot-fuzz").run([target] + files, timeout: .seconds(150))
        #expect(result.status == 0, "earshot-fuzz \(target): \(result.stderr)")
        #expect(result.stdout.contains("replayed \(files.count) inputs"), "\(result.stdout)")
    }
}
