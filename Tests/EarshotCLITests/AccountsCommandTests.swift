import EarshotTestSupport
import Foundation
import Testing

/// `earshot accounts` as an administrator runs it: create (password on stdin), list, disable, enable.
@Suite struct AccountsCommandTests {
    @Test func createListDisableEnable() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli-accounts")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = ["--data-dir", directory.path]
        let created = try await Program.earshot.run(
            ["accounts", "create", "Ada@Example.com", "--nickname", "Ada", "--json"] + data,
            input: Data("correct horse battery staple\n".utf8))
        #expect(created.status == 0, "\(created)")
        let account = try #require(
            try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        #expect(account["address"] == "ada@example.com")
        #expect(account["status"] == "active")
        let id = try #require(account["account_id"])
        #expect(id.hasPrefix("acc_"))
        // The password never reaches the database in clear.
        let database = try Data(contentsOf: directory.appendingPathComponent("earshot.sqlite"))
        #expect(database.range(of: Data("correct horse battery staple".utf8)) == nil)

        let phone = try await Program.earshot.run(
            ["accounts", "create", "+49 151 12345678", "--country", "DE"] + data,
            input: Data("another good passphrase\n".utf8))
        #expect(phone.status == 0, "\(phone)")

        let weak = try await Program.earshot.run(
            ["accounts", "create", "bob@example.com"] + data, input: Data("123\n".utf8))
        #expect(weak.status == 1)
        #expect(weak.stderr.contains("password: is 3 characters long"), "\(weak)")
        let noPassword = try await Program.earshot.run(["accounts", "create", "bob@example.com"] + data)
        #expect(noPassword.status == 64, "\(noPassword)")

        let listed = try await Program.earshot.run(["accounts", "list"] + data)
        #expect(listed.status == 0, "\(listed)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("ada@example.com") == true)
        #expect(lines.last?.contains("+4915112345678") == true)

        let disabled = try await Program.earshot.run(["accounts", "disable", id] + data)
        #expect(disabled.status == 0, "\(disabled)")
        let afterDisable = try await Program.earshot.run(["accounts", "list", "--json"] + data)
        #expect(afterDisable.stdout.contains("\"status\":\"disabled\""))
        let enabled = try await Program.earshot.run(["accounts", "enable", id] + data)
        #expect(enabled.status == 0, "\(enabled)")
        let unknown = try await Program.earshot.run(["accounts", "disable", "acc_nope"] + data)
        #expect(unknown.status == 1, "\(unknown)")
    }

    /// The instance owner is made and unmade here, from the shell, and only in the default tenant.
    @Test func grantAndRevokeTheInstanceOwner() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli-owner")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = ["--data-dir", directory.path]
        let password = Data("correct horse battery staple\n".utf8)
        let owner = try await Program.earshot.run(
            ["accounts", "create", "ada@example.com", "--owner", "--json"] + data, input: password)
        #expect(owner.status == 0 && owner.stdout.contains("\"role\":\"owner\""), "\(owner)")
        let bob = try await Program.earshot.run(["accounts", "create", "bob@example.com"] + data, input: password)
        let bobID = try #require(bob.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let granted = try await Program.earshot.run(["accounts", "grant-owner", bobID] + data)
        #expect(granted.status == 0 && granted.stdout.contains("owns the instance"), "\(granted)")
        var listed = try await Program.earshot.run(["accounts", "list"] + data)
        #expect(listed.stdout.split(separator: "\n").filter { $0.hasSuffix("  owner") }.count == 2, "\(listed)")
        let revoked = try await Program.earshot.run(["accounts", "revoke-owner", bobID] + data)
        #expect(revoked.status == 0 && revoked.stdout.contains("no longer owns"), "\(revoked)")
        listed = try await Program.earshot.run(["accounts", "list"] + data)
        let owners = listed.stdout.split(separator: "\n").filter { $0.hasSuffix("  owner") }
        #expect(owners.count == 1 && owners.first?.contains("ada@example.com") == true, "\(listed)")

        // A partner's users never own the instance.
        let partner = try await Program.earshot.run(["partners", "create", "Acme", "--json"] + data)
        let partnerID = try #require(
            (try JSONSerialization.jsonObject(with: Data(partner.stdout.utf8)) as? [String: Any])?["client_id"]
                as? String, "\(partner)")
        let refused = try await Program.earshot.run(
            ["accounts", "create", "eve@example.com", "--partner", partnerID, "--owner"] + data, input: password)
        #expect(refused.status == 64 && refused.stderr.contains("only accounts of the default tenant"), "\(refused)")
        let eve = try await Program.earshot.run(
            ["accounts", "create", "eve@example.com", "--partner", partnerID] + data, input: password)
        let eveID = try #require(eve.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let notHere = try await Program.earshot.run(["accounts", "grant-owner", eveID] + data)
        #expect(notHere.status == 1 && notHere.stderr.contains("only accounts of the default tenant"), "\(notHere)")
        let unknownAction = try await Program.earshot.run(["accounts", "grant-owners", eveID] + data)
        #expect(unknownAction.status == 64 && unknownAction.stderr.contains("did you mean 'grant-owner'"))
    }
}

/// The development channel end to end: `earshot serve` without `smtp-url` writes the code to its log, and that code
/// signs the account up.
@Suite struct AccountsLogChannelTests {
    @Test func withoutAMailServerTheCodeIsInTheServerLog() async throws {
        let directory = try TestEnvironment.makeTemporaryDirectory("cli-accounts-log")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServeProcess.start(
            dataDirectory: directory.path, arguments: ["--workers", "0", "--llm-managed", "off"])
        defer { server.stop() }
        let sent = try await call(
            server.base, "POST", "/open/accounts/sign-up",
            json: ["email": "ada@example.com", "password": "correct horse battery staple"])
        #expect(sent["destination"] as? String == "a•••@example.com")
        let line = try await server.child.waitForLine(containing: "log channel: not sent", timeout: .seconds(30))
        #expect(line.contains("to=ada@example.com"))
        let marker = try #require(line.range(of: "code is "), "\(line)")
        let code = String(line[marker.upperBound...].prefix(6))
        let verified = try await call(
            server.base, "POST", "/open/accounts/verify", json: ["email": "ada@example.com", "code": code])
        #expect(
            (verified["account"] as? [String: Any])?["status"] as? String == "active", "\(server.child.diagnostics)")
        #expect((verified["session_token"] as? String)?.hasPrefix("est_") == true)
    }
}
