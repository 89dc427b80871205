import EarshotStore
import Foundation

@testable import EarshotServer

extension TestPlatform {
    /// Reads the signing keys straight from the database (to forge tokens and URLs in tests).
    func signingKey(_ purpose: Keyring.Purpose) async throws -> Keyring.Key {
        let store = try await Application.openMetadataStore(configuration)
        do {
            let key = try await Keyring(metadata: store, configuration: .init()).current(purpose)
            await store.close()
            return key
        } catch {
            await store.close()
            throw error
        }
    }
}
