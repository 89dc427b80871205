import EarshotAPI
import EarshotAccounts
import EarshotCore
import EarshotDiarization
import EarshotHTTP
import EarshotModels
import EarshotStore
import EarshotVoice

/// The one table that maps errors from the modules below to HTTP statuses and wire codes.
///
/// Handlers throw domain errors as they are; ``HTTPServer`` calls ``map(_:)`` for every error that is not
/// already an `HTTPError`. Anything not listed here is a 500 `INTERNAL` with the request id, logged once.
enum ErrorTable {
    static func map(_ error: any Error) -> HTTPError? {
        switch error {
        case let error as PlatformError: map(error)
        case let error as StoreError: map(error)
        // A tier whose model is not installed (or is damaged): the server cannot transcribe until an operator
        // runs `make models`; say so instead of a bare 500.
        case let error as ModelError: .unavailable(error.description)
        case let error as DiarizationError: map(error)
        case let error as SystemCallError where error.isOutOfSpace: diskFull
        case let error as AccountError: map(error)
        case let error as VoiceError: map(error)
        default: nil
        }
    }

    /// 507 `INSUFFICIENT_STORAGE`: the disk is full. Retrying later can succeed once the operator frees space;
    /// nothing was stored.
    static let diskFull = HTTPError(
        .insufficientStorage, code: ErrorCode.insufficientStorage.rawValue,
        message: "the server's disk is full, so nothing was stored; retry later (the operator must free space)")

    static func map(_ error: PlatformError) -> HTTPError {
        switch error.code {
        case .unauthorized:
            // RFC 6750 §3: tell the client which scheme to use and that the token is the problem.
            HTTPError(
                .unauthorized, code: ErrorCode.unauthorized.rawValue, message: error.message,
                headers: ["WWW-Authenticate": #"Bearer realm="earshot", error="invalid_token""#])
        case .forbidden: HTTPError(.forbidden, code: ErrorCode.forbidden.rawValue, message: error.message)
        case .ownerRequired: HTTPError(.forbidden, code: ErrorCode.ownerRequired.rawValue, message: error.message)
        case .notFound: HTTPError(.notFound, code: ErrorCode.notFound.rawValue, message: error.message)
        case .conflict: HTTPError(.conflict, code: ErrorCode.conflict.rawValue, message: error.message)
        case .bindOccupied: HTTPError(.conflict, code: ErrorCode.bindOccupied.rawValue, message: error.message)
        case .deviceNotFound: HTTPError(.notFound, code: ErrorCode.deviceNotFound.rawValue, message: error.message)
        case .deviceOffline: HTTPError(.conflict, code: ErrorCode.deviceOffline.rawValue, message: error.message)
        case .payloadTooLarge:
            HTTPError(.contentTooLarge, code: ErrorCode.payloadTooLarge.rawValue, message: error.message)
        case .rateLimited:
            HTTPError(
                .tooManyRequests, code: ErrorCode.rateLimited.rawValue, message: error.message,
                headers: ["Retry-After": String(error.retryAfter ?? 1)])
        default: HTTPError(.badRequest, code: ErrorCode.invalidArgument.rawValue, message: error.message)
        }
    }

    static func map(_ error: StoreError) -> HTTPError? {
        switch error.code {
        case .notFound: .notFound(error.message)
        case .conflict: .conflict(error.message)
        case .invalidKey, .invalidRange, .invalidArgument: .invalidArgument(error.message)
        case .unavailable, .closed: .unavailable(error.message)
        case .diskFull: diskFull
        default: nil  // corrupted, io, database, migration errors: server faults, answered 500 and logged.
        }
    }

    /// Speaker attribution and voiceprints: bad audio or options are the caller's; a missing speaker or VAD model is
    /// the operator's (`make setup`).
    static func map(_ error: DiarizationError) -> HTTPError? {
        switch error.code {
        case .invalidInput, .invalidConfiguration: .invalidArgument(error.message)
        case .weightsMissing, .weightsInvalid, .speechDetectionFailed: .unavailable(error.message)
        default: nil
        }
    }

    /// Speech synthesis: the caller's text, voice or language is a 400; an engine that is missing or too slow is 503,
    /// a remote provider that fails or answers nonsense is 502 (both `UNAVAILABLE`); an engine crash is a 500.
    static func map(_ error: VoiceError) -> HTTPError? {
        switch error.code {
        case .invalidInput, .unsupportedLanguage, .unsupportedVoice: .invalidArgument(error.message)
        case .unavailable, .timeout: .unavailable(error.message)
        case .providerError, .invalidResponse:
            HTTPError(.badGateway, code: ErrorCode.unavailable.rawValue, message: error.message)
        default: nil
        }
    }

    /// Accounts: bad input names its field in the message; a failed sign-in is 401 without a bearer challenge
    /// (the client sent a password, not a token); a mail server or SMS gateway that is down is 503.
    static func map(_ error: AccountError) -> HTTPError? {
        switch error.code {
        case .invalidArgument: .invalidArgument(error.message)
        case .unauthorized: HTTPError(.unauthorized, code: ErrorCode.unauthorized.rawValue, message: error.message)
        case .forbidden: HTTPError(.forbidden, code: ErrorCode.forbidden.rawValue, message: error.message)
        case .notFound: .notFound(error.message)
        case .conflict: .conflict(error.message)
        case .rateLimited:
            HTTPError(
                .tooManyRequests, code: ErrorCode.rateLimited.rawValue, message: error.message,
                headers: ["Retry-After": String(error.retryAfter ?? 1)])
        case .unavailable: .unavailable(error.message)
        default: nil
        }
    }
}
