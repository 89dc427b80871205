import EarshotAccounts
import EarshotCore
import EarshotServer
import Foundation
import Testing

/// The accounts settings of `earshot serve`: Argon2id never below OWASP's minimum, SMTP needs a sender, limits
/// parse.
@Suite struct AccountSettingsTests {
    let spec = CommandSpec(name: "earshot serve", abstract: "Serve.", options: ServerConfiguration.commandLineOptions)

    func load(_ arguments: [String], environment: [String: String] = [:]) throws(ConfigurationError)
        -> ServerConfiguration
    {
        try ServerConfiguration.load(arguments: try! spec.parse(arguments), environment: environment)
    }

    @Test func defaultsAreOWASPMinimumAndTheLogChannel() throws {
        let config = try load([])
        #expect(config.accounts.argon2 == .owaspMinimum)
        #expect(config.accounts.smtpURL == nil)
        #expect(config.accounts.codeTTL == .seconds(600))
        #expect(config.accounts.tokenTTL == .seconds(900))
    }

    @Test func argon2BelowOWASPIsRefused() throws {
        #expect(try load(["--argon2", "m=47104,t=1,p=1"]).accounts.argon2.memoryKiB == 47104)
        let weak = #expect(throws: ConfigurationError.self) { try load(["--argon2", "m=4096,t=1,p=1"]) }
        #expect(weak?.description.contains("below OWASP's minimum") == true)
        let garbage = #expect(throws: ConfigurationError.self) { try load(["--argon2", "19MiB"]) }
        #expect(garbage?.description.contains("is not m=KiB,t=N,p=N") == true)
    }

    @Test func smtpNeedsASenderAndAnSMTPURL() throws {
        let noFrom = #expect(throws: ConfigurationError.self) {
            try load([], environment: ["EARSHOT_SMTP_URL": "smtp://mail.example.com:587"])
        }
        #expect(noFrom?.issues.map(\.setting) == ["smtp-from"])
        let http = #expect(throws: ConfigurationError.self) { try load(["--smtp-url", "http://mail.example.com"]) }
        #expect(http?.description.contains("not an smtp:// or smtps:// URL") == true)
        let config = try load([
            "--smtp-url", "smtps://mail.example.com:465", "--smtp-from", "no-reply@example.com", "--smtp-starttls",
            "off",
        ])
        #expect(config.accounts.smtpStartTLS == .off)
    }

    @Test func rateLimitsAreRequestsPerPeriod() throws {
        #expect(try load(["--rate-limit-ip", "100/1h"]).accounts.ipLimit == "100/1h")
        let bad = #expect(throws: ConfigurationError.self) { try load(["--rate-limit-address", "ten per minute"]) }
        #expect(bad?.description.contains("is not a limit like 30/1m") == true)
    }
}
