import EarshotHTTP
import EarshotStore

/// The one table that maps errors from the modules below to HTTP statuses and wire codes.
///
/// Handlers throw domain errors as they are; ``HTTPServer`` calls ``map(_:)`` for every error that is not
/// already an `HTTPError`. Anything not listed here is a 500 `INTERNAL` with the request id, logged once.
enum ErrorTable {
    static func map(_ error: any Error) -> HTTPError? {
        switch error {
        case let error as StoreError: map(error)
        default: nil
        }
    }

    static func map(_ error: StoreError) -> HTTPError? {
        switch error.code {
        case .notFound: .notFound(error.message)
        case .conflict: .conflict(error.message)
        case .invalidKey, .invalidRange, .invalidArgument: .invalidArgument(error.message)
        case .unavailable, .closed: .unavailable(error.message)
        default: nil  // corrupted, io, database, migration errors: server faults, answered 500 and logged.
        }
    }
}
