public import EarshotAccounts
import EarshotStore
import Foundation

/// Account management for administrators (`earshot accounts …`): opens the configured metadata store (migrating
/// it), does one thing, closes it. Safe while a server runs on the same database.
public struct AccountAdministration: Sendable {
    /// Where the database is, and the Argon2id parameters.
    public let configuration: ServerConfiguration

    /// Administration of the database `configuration` names.
    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// Creates an active account (an administrator vouches for the address: no code is sent) in `tenant` (the
    /// instance's default tenant when nil). The password must satisfy the password policy.
    ///
    /// - Throws: ``AccountError`` naming the bad field, or `.conflict` when the address has an account there.
    public func create(
        tenant: String?, email: String?, phone: String?, country: String?, password: String, nickname: String?
    ) async throws -> Account {
        let address = try AccountAddress.parse(email: email, phone: phone, country: country)
        return try await withDirectory {
            try await $0.create(
                tenant: tenant ?? AccountDirectory.defaultTenant, address: address, password: password,
                nickname: nickname)
        }
    }

    /// The accounts of `tenant` (every tenant when nil), oldest first.
    public func list(tenant: String?) async throws -> [Account] {
        try await withDirectory { try await $0.list(tenant: tenant) }
    }

    /// Disables an account (its sessions end at once) or enables it again.
    ///
    /// - Throws: ``PlatformError`` `.notFound` when there is no such account.
    public func setDisabled(_ accountID: String, _ disabled: Bool) async throws {
        let changed = try await withDirectory { try await $0.setDisabled(accountID, disabled) }
        guard changed else { throw PlatformError.notFound("no account \(accountID)") }
    }

    /// Makes `accountID` (an account of the default tenant) the instance owner, or takes the role back: the owner's
    /// session reaches the admin API and the console's Admin page (docs/decisions/0011-instance-owner.md).
    ///
    /// - Throws: ``AccountError`` `.notFound` for an unknown account, `.invalidArgument` for another tenant's.
    @discardableResult
    public func setOwner(_ accountID: String, _ owner: Bool) async throws -> Account {
        try await withDirectory { try await $0.setOwner(accountID, owner) }
    }

    private func withDirectory<T: Sendable>(_ body: (AccountDirectory) async throws -> T) async throws -> T {
        let store = try await Application.openMetadataStore(configuration)
        do {
            let (directory, _) = configuration.makeAccounts(metadata: store, signal: JobSignal())
            let result = try await body(directory)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
