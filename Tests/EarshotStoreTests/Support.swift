import EarshotPostgres
import EarshotTestSupport
import Foundation
import Testing

@testable import EarshotStore

/// The metadata backends a parameterised suite runs on: SQLite always, PostgreSQL when `scripts/with-backends` runs
/// a cluster (`make test`).
enum MetadataBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql

    static var available: [MetadataBackend] { ScaleOutBackends.postgresURL == nil ? [.sqlite] : [.sqlite, .postgresql] }

    var testDescription: String { rawValue }

    /// A new store: a SQLite file in `directory`, or a new PostgreSQL database.
    func open(in directory: URL, schema: [SchemaComponent] = StoreSchema.components) async throws -> any MetadataStore {
        switch self {
        case .sqlite: try await openSQLite(in: directory, schema: schema)
        case .postgresql:
            try await PostgresMetadataStore(
                configuration: .init(url: try ScaleOutBackends.newDatabase("store"), schema: schema))
        }
    }
}

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

/// Opens a SQLite store on `database.sqlite` in `directory` with `migrations` as one schema component named
/// `test`, or with `schema` (the store's own components by default).
func openSQLite(
    in directory: URL, migrations: [Migration]? = nil, schema: [SchemaComponent] = StoreSchema.components,
    busyTimeout: Duration = .seconds(5), readers: Int = 4
) async throws -> SQLiteMetadataStore {
    var configuration = SQLiteMetadataStore.Configuration(
        location: .file(directory.appendingPathComponent("database.sqlite")),
        schema: migrations.map { [SchemaComponent("test", $0)] } ?? schema)
    configuration.busyTimeout = busyTimeout
    configuration.readerCount = readers
    return try await SQLiteMetadataStore(configuration: configuration)
}

extension MetadataStore {
    /// The highest version of `component` applied (0 when none).
    func version(of component: String = "test") async throws -> Int {
        try await appliedMigrations().filter { $0.component == component }.map(\.version).max() ?? 0
    }
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

/// Deterministic test bytes: the same `seed` and `count` always give the same content.
func testBytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8) &+ Int(seed)) }
}

/// The error a ``ChunkSource`` throws when told to fail.
struct SourceFailure: Error {}

/// An async sequence of chunks cut from `bytes`, which can throw or stall after a number of bytes, and
/// reports how far it got.
struct ChunkSource: AsyncSequence, Sendable {

    var bytes: [UInt8]
    var chunkSize: Int
    /// Throw `SourceFailure` once this many bytes were produced.
    var failAfter: Int? = nil
    /// After the content, keep producing chunks forever, sleeping this long between them (nil: finish).
    var thenStallEvery: Duration? = nil
    /// Called with the running total after each chunk.
    var progress: (@Sendable (Int) -> Void)? = nil

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: ChunkSource
        var offset = 0

        mutating func next() async throws -> [UInt8]? {
            if let limit = source.failAfter, offset >= limit { throw SourceFailure() }
            if offset >= source.bytes.count {
                guard let pause = source.thenStallEvery else { return nil }
                try await Task.sleep(for: pause)
                offset += source.chunkSize
                source.progress?(offset)
                return [UInt8](repeating: 0xEE, count: source.chunkSize)
            }
            let end = Swift.min(offset + source.chunkSize, source.bytes.count)
            defer {
                offset = end
                source.progress?(end)
            }
            return Array(source.bytes[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// Names of the files in `directory` (empty when it does not exist).
func files(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

func permissions(_ url: URL) throws -> Int? {
    try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
}
