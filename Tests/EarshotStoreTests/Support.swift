import Foundation

/// A fresh directory under the system temp dir, removed by the caller with `cleanup()`.
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init(_ name: String = #function) throws {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("earshot-store-\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

@testable import EarshotStore

/// Opens a SQLite store on `database.sqlite` in `directory` with `migrations` (Earshot's own by default).
func openSQLite(
    in directory: URL, migrations: [Migration] = StoreSchema.migrations, busyTimeout: Duration = .seconds(5),
    readers: Int = 4
) async throws -> SQLiteMetadataStore {
    var configuration = SQLiteMetadataStore.Configuration(
        location: .file(directory.appendingPathComponent("database.sqlite")))
    configuration.migrations = migrations
    configuration.busyTimeout = busyTimeout
    configuration.readerCount = readers
    return try await SQLiteMetadataStore(configuration: configuration)
}

/// The `StoreError` code `body` throws, or nil when it succeeds or throws something else.
func storeErrorCode<T>(_ body: () async throws -> T) async -> StoreError? {
    do {
        _ = try await body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        return nil
    }
}
