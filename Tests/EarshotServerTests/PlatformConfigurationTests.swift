import EarshotCore
import EarshotServer
import Foundation
import Testing

/// The platform settings (tokens, uploads, public URL): defaults, parsing, and the problems reported.
@Suite struct PlatformConfigurationTests {
    let spec = CommandSpec(name: "earshot serve", abstract: "Serve.", options: ServerConfiguration.commandLineOptions)

    func load(_ arguments: [String], environment: [String: String] = [:]) throws(ConfigurationError)
        -> ServerConfiguration
    {
        try ServerConfiguration.load(arguments: try! spec.parse(arguments), environment: environment)
    }

    @Test func defaultsMatchTheDocumentation() throws {
        let config = try load([])
        #expect(config.publicURL == nil)
        #expect(config.apiPrefix == "")
        #expect(config.uploadChunkSize == 5 << 20)
        #expect(config.uploadMaxFileSize == 2 << 30)
        #expect(config.uploadFiletypes.contains("m4a") && config.uploadFiletypes.contains("wav"))
        #expect(config.uploadURLTTL == .seconds(3600))
        #expect(config.userTokenTTL == .seconds(86400))
        #expect(config.partnerTokenTTL == .seconds(7200))
        #expect(config.signingKeyRotation == .seconds(30 * 86400))
    }

    @Test func valuesParseFromFlagsAndEnvironment() throws {
        let config = try load(
            [
                "--public-url", "https://notes.example.com/", "--api-prefix", "/developer/api/",
                "--upload-chunk-size", "8MiB", "--upload-filetypes", "M4A, wav", "--signing-key-rotation", "7d",
            ],
            environment: ["EARSHOT_USER_TOKEN_TTL": "1h", "EARSHOT_UPLOAD_MAX_AGE": "90m"])
        #expect(config.publicURL == "https://notes.example.com")
        #expect(config.apiPrefix == "/developer/api")
        #expect(config.uploadChunkSize == 8 << 20)
        #expect(config.uploadFiletypes == ["m4a", "wav"])
        #expect(config.signingKeyRotation == .seconds(7 * 86400))
        #expect(config.userTokenTTL == .seconds(3600))
        #expect(config.uploadMaxAge == .seconds(5400))
    }

    @Test func badValuesAreAllReportedWithTheirSource() {
        #expect {
            _ = try load(
                [
                    "--public-url", "ftp://x", "--api-prefix", "developer", "--upload-chunk-size", "10",
                    "--upload-filetypes", "m4a,../x",
                ], environment: ["EARSHOT_PARTNER_TOKEN_TTL": "0s"])
        } throws: { error in
            let text = "\(error)"
            return text.contains("public-url (from command line): 'ftp://x' is not an http(s) URL")
                && text.contains("api-prefix (from command line)")
                && text.contains("upload-chunk-size (from command line)")
                && text.contains("upload-filetypes (from command line)")
                && text.contains("partner-token-ttl (from EARSHOT_PARTNER_TOKEN_TTL)")
        }
    }

    @Test func tooManyPartsIsRefusedNamingTheFix() {
        #expect {
            _ = try load(["--upload-chunk-size", "1KiB", "--upload-max-file-size", "1GiB"])
        } throws: { error in
            "\(error)".contains("would need 1048576 parts (at most 10000); raise upload-chunk-size")
        }
    }
}
