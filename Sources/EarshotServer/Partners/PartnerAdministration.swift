import EarshotStore
import Foundation

/// Partner management for the command line (`earshot partners …`): opens the configured metadata store
/// (migrating it), does one thing, closes it. Safe while a server runs on the same database.
public struct PartnerAdministration: Sendable {
    public let configuration: ServerConfiguration

    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// Creates a partner and returns its credentials; the secret cannot be shown again.
    public func create(name: String) async throws -> PartnerCredentials {
        try await withDirectory { try await $0.create(name: name) }
    }

    /// Every partner, oldest first.
    public func list() async throws -> [Partner] {
        try await withDirectory { try await $0.list() }
    }

    /// Disables (`active: false`) or re-enables a partner. A disabled partner's tokens and signed URLs stop working
    /// at once, and stay revoked when it is enabled again (its generation changed).
    ///
    /// - Throws: ``PlatformError`` `.notFound` when there is no such partner.
    public func setStatus(_ id: String, active: Bool) async throws {
        let changed = try await withDirectory { try await $0.setStatus(id, active: active) }
        guard changed else { throw PlatformError.notFound("no partner \(id)") }
    }

    /// Gives the partner a new client secret (returned; it cannot be shown again) and keeps the current one
    /// working for `overlap`, so its backend can switch without downtime.
    ///
    /// - Throws: ``PlatformError`` `.notFound` when there is no such partner.
    public func rotateSecret(_ id: String, overlap: Duration) async throws -> String {
        guard let secret = try await withDirectory({ try await $0.rotateSecret(id, overlap: overlap) }) else {
            throw PlatformError.notFound("no partner \(id)")
        }
        return secret
    }

    private func withDirectory<T: Sendable>(_ body: (PartnerDirectory) async throws -> T) async throws -> T {
        let store = try await Application.openMetadataStore(configuration)
        do {
            let result = try await body(PartnerDirectory(metadata: store))
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
