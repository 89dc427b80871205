import EarshotCore
import EarshotServer
import EarshotStore
import Foundation
import Testing

/// The `blob-store` settings and what `earshot serve` does at start when the object store cannot be used.
@Suite struct ObjectStoreSettingsTests {
    let spec = CommandSpec(
        name: "earshot serve", abstract: "Serve.", options: ServerConfiguration.commandLineOptions)

    func load(_ arguments: [String], environment: [String: String] = [:]) throws(ConfigurationError)
        -> ServerConfiguration
    {
        try ServerConfiguration.load(arguments: try! spec.parse(arguments), environment: environment)
    }

    @Test func blobStoreURLsNameAnEndpointABucketAndARegion() throws {
        let plain = try load(["--blob-store", "s3+http://127.0.0.1:8333/earshot-audio?region=eu-west-1"])
        #expect(plain.blobStore?.endpoint.absoluteString == "http://127.0.0.1:8333")
        #expect(plain.blobStore?.bucket == "earshot-audio")
        #expect(plain.blobStore?.region == "eu-west-1")
        let tls = try load([], environment: ["EARSHOT_BLOB_STORE": "s3://objects.example.com/voice-notes"])
        #expect(tls.blobStore?.endpoint.absoluteString == "https://objects.example.com")
        #expect(tls.blobStore?.region == "us-east-1")
        #expect(tls.blobsDescription == "https://objects.example.com/voice-notes")
    }

    @Test(arguments: [
        ("http://127.0.0.1:8333/b", "is not s3://"),
        ("s3://key:secret@host/bucket", "keep credentials out"),
        ("s3://host/a/b", "one bucket"),
        ("s3://host/Upper_Case", "a-z, 0-9"),
        ("s3://host/bucket?acl=x", "only region"),
    ])
    func badBlobStoreURLsSayWhatIsWrong(value: String, problem: String) {
        #expect {
            try load(["--blob-store", value])
        } throws: { error in
            "\(error)".contains("blob-store") && "\(error)".contains(problem)
        }
    }

    @Test func directUploadsAreOnWithABucketAndNeedPartsOfAtLeastFiveMiB() throws {
        let bucket = ["--blob-store", "s3+http://127.0.0.1:8333/audio"]
        #expect(try load(bucket).uploadDirect)
        #expect(try load(bucket + ["--upload-chunk-size", "8MiB"]).uploadChunkSize == 8 << 20)
        #expect(try load(bucket + ["--upload-direct", "off", "--upload-chunk-size", "1MiB"]).uploadDirect == false)
        // Without a bucket the setting does nothing, so small parts stay fine.
        #expect(try load(["--upload-chunk-size", "1MiB"]).uploadChunkSize == 1 << 20)
        #expect {
            try load(bucket + ["--upload-chunk-size", "1MiB"])
        } throws: { error in
            "\(error)".contains("upload-chunk-size") && "\(error)".contains("5MiB")
                && "\(error)".contains("upload-direct off")
        }
        #expect(throws: ConfigurationError.self) { try load(["--upload-direct", "maybe"]) }
    }

    @Test func credentialsComeFromAFileOfTwoLines() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("AKID\nsecret-value\n".utf8).write(to: file)
        let configuration = try load(["--blob-store-credentials-file", file.path])
        #expect(configuration.blobStoreCredentials == .init(accessKeyID: "AKID", secretAccessKey: "secret-value"))
        try Data("only-one-line\n".utf8).write(to: file)
        #expect(throws: ConfigurationError.self) {
            try load(["--blob-store-credentials-file", file.path])
        }
    }

    @Test func anUnreachableObjectStoreStopsTheStartNamingIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-s3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path
        // Port 1 on loopback: nothing listens, every connection is refused.
        configuration.blobStore = ObjectStoreLocation(
            endpoint: URL(string: "http://127.0.0.1:1")!, bucket: "earshot-audio")
        configuration.blobStoreCredentials = .init(accessKeyID: "AKID", secretAccessKey: "secret")
        await #expect {
            try await Application(configuration: configuration).run()
        } throws: { error in
            (error as? StoreError)?.code == .unavailable && "\(error)".contains("http://127.0.0.1:1")
        }
    }
}
