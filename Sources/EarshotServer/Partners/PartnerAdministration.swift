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

    /// Disables (`active: false`) or re-enables a partner. A disabled partner's tokens stop working at once.
    ///
    /// - Throws: ``PlatformError`` `.notFound` when there is no such partner.
    public func setStatus(_ id: String, active: Bool) async throws {
        let changed = try await withDirectory { try await $0.setStatus(id, active: active) }
        guard changed else { throw PlatformError.notFound("no partner \(id)") }
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
