import EarshotAccounts
import EarshotCore
import EarshotStore
import Foundation

extension ServerConfiguration {
    /// The accounts rows of the settings table.
    static let accountSettings: [Setting] = [
        accountDuration(
            "account-token-ttl", "Lifetime of user tokens exchanged from sessions (default 15m).", \.tokenTTL),
        accountDuration("session-ttl", "Lifetime of an account session (default 30d).", \.sessionTTL),
        accountDuration("code-ttl", "Lifetime of a verification or reset code (default 10m).", \.codeTTL),
        accountDuration(
            "code-resend-interval", "Wait before another code for the same purpose (default 60s).",
            \.codeResendInterval),
        Setting(name: "code-attempts", valueName: "N", help: "Wrong tries before a code locks, 1-10 (default 5).") {
            config, value in
            guard let count = Int(value), (1...10).contains(count) else { return "'\(value)' is not a count (1-10)" }
            config.accounts.codeAttempts = count
            return nil
        },
        Setting(
            name: "argon2", valueName: "PARAMS",
            help: "Argon2id cost of passwords, at least OWASP's minimum (default m=19456,t=2,p=1; m in KiB)."
        ) {
            config, value in
            guard let parameters = Argon2Parameters(phc: "$argon2id$v=19$\(value)$x$x") else {
                return "'\(value)' is not m=KiB,t=N,p=N (example: m=19456,t=2,p=1)"
            }
            guard parameters.meetsOWASPMinimum, parameters.memoryKiB <= 4 << 20, parameters.iterations <= 64,
                parameters.parallelism <= 64
            else {
                return "'\(value)' is below OWASP's minimum (m=19456,t=2,p=1, or at least 7 MiB with m×t as large) "
                    + "or above 4 GiB, 64 passes, 64 lanes"
            }
            config.accounts.argon2 = parameters
            return nil
        },
        Setting(
            name: "smtp-url", valueName: "URL",
            help: "Mail server for email codes: smtp://host:587 (STARTTLS) or smtps://host:465 (default: log them)."
        ) {
            config, value in
            let lower = value.lowercased()
            guard lower.hasPrefix("smtp://") || lower.hasPrefix("smtps://"), URL(string: value)?.host != nil else {
                return "'\(value)' is not an smtp:// or smtps:// URL (example: smtp://mail.example.com:587)"
            }
            config.accounts.smtpURL = value
            return nil
        },
        Setting(name: "smtp-from", valueName: "ADDRESS", help: "From address of email codes (required with smtp-url).")
        {
            config, value in
            guard (try? EmailAddress(value)) != nil else { return "'\(value)' is not an email address" }
            config.accounts.smtpFrom = value
            return nil
        },
        accountText("smtp-username", "USER", "SMTP AUTH user (default none).", \.smtpUsername),
        accountText("smtp-password", "PASSWORD", "SMTP AUTH password.", \.smtpPassword),
        Setting(
            name: "smtp-starttls", valueName: "MODE",
            help: "STARTTLS on smtp://: required, optional or off (default required)."
        ) {
            config, value in
            guard let mode = SMTPMailer.StartTLS(rawValue: value) else {
                return "'\(value)' is not required, optional or off"
            }
            config.accounts.smtpStartTLS = mode
            return nil
        },
        accountText(
            "smtp-ca-file", "FILE", "PEM certificate authorities for the mail server (default: the system's).",
            \.smtpCAFile),
        Setting(
            name: "sms-url", valueName: "URL",
            help: "SMS provider endpoint: POST {to, from, body} JSON (default: log SMS codes)."
        ) {
            config, value in
            guard let url = URL(string: value), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else { return "'\(value)' is not an http(s) URL" }
            config.accounts.smsURL = value
            return nil
        },
        accountText("sms-token", "TOKEN", "Bearer token for sms-url (default none).", \.smsToken),
        accountText("sms-from", "SENDER", "Sender id or number sent as `from` to sms-url (default none).", \.smsFrom),
        accountLimit("rate-limit-ip", "Account requests per client IP (default 30/1m).", \.ipLimit),
        accountLimit(
            "rate-limit-address", "Sign-ins, codes and code checks per address (default 10/15m).",
            \.addressLimit),
        accountLimit(
            "rate-limit-account", "Password checks and token exchanges per account (default 60/15m).",
            \.accountLimit),
    ]

    /// Problems between accounts settings (reported with the others by `load`).
    func accountIssues() -> [ConfigurationIssue] {
        guard accounts.smtpURL != nil, accounts.smtpFrom == nil else { return [] }
        return [
            ConfigurationIssue(
                setting: "smtp-from", source: "with smtp-url",
                message: "name the address codes come from (example: no-reply@example.com)")
        ]
    }

    private static func accountDuration(
        _ name: String, _ help: String, _ path: any WritableKeyPath<AccountSettings, Duration> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: "DURATION", help: help) { config, value in
            guard let duration = parseDuration(value), duration >= .seconds(1) else {
                return "'\(value)' is not a duration of at least 1s (examples: 90s, 30m, 24h, 7d)"
            }
            config.accounts[keyPath: path] = duration
            return nil
        }
    }

    private static func accountText(
        _ name: String, _ valueName: String, _ help: String,
        _ path: any WritableKeyPath<AccountSettings, String?> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: valueName, help: help) { config, value in
            guard !value.isEmpty else { return "must not be empty" }
            config.accounts[keyPath: path] = value
            return nil
        }
    }

    private static func accountLimit(
        _ name: String, _ help: String, _ path: any WritableKeyPath<AccountSettings, String> & Sendable
    ) -> Setting {
        Setting(name: name, valueName: "N/PERIOD", help: help) { config, value in
            guard KeyedRateLimiter.Rule(value) != nil else {
                return "'\(value)' is not a limit like 30/1m or 10/15m (requests per period)"
            }
            config.accounts[keyPath: path] = value
            return nil
        }
    }

    /// The account directory and the message channels these settings describe.
    func makeAccounts(metadata: any MetadataStore, signal: JobSignal) -> (AccountDirectory, Outbox) {
        var options = AccountDirectory.Configuration()
        options.codeLifetime = accounts.codeTTL
        options.resendInterval = accounts.codeResendInterval
        options.codeAttempts = accounts.codeAttempts
        options.sessionLifetime = accounts.sessionTTL
        let directory = AccountDirectory(
            metadata: metadata, hasher: PasswordHasher(configuration: .init(parameters: accounts.argon2)),
            configuration: options, signal: signal)
        var email: any MessageSender = LogSender()
        if let url = accounts.smtpURL, let from = accounts.smtpFrom {
            email = SMTPMailer(
                configuration: .init(
                    url: url, from: from, username: accounts.smtpUsername, password: accounts.smtpPassword,
                    startTLS: accounts.smtpStartTLS, caFile: accounts.smtpCAFile))
        }
        var sms: any MessageSender = LogSender()
        if let text = accounts.smsURL, let url = URL(string: text) {
            sms = SMSGateway(configuration: .init(url: url, token: accounts.smsToken, from: accounts.smsFrom))
        }
        return (directory, Outbox(metadata: metadata, channels: .init(email: email, sms: sms)))
    }
}
