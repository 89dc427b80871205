/// An HTTP response status code. libmicrohttpd writes the standard reason phrase on the wire.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The three-digit status code.
    public let code: Int

    public init(code: Int) {
        precondition((100...999).contains(code), "HTTP status codes have three digits")
        self.code = code
    }

    public init(integerLiteral value: Int) {
        self.init(code: value)
    }

    public var description: String { String(code) }

    public static let ok: HTTPStatus = 200
    public static let created: HTTPStatus = 201
    public static let accepted: HTTPStatus = 202
    public static let noContent: HTTPStatus = 204
    public static let partialContent: HTTPStatus = 206
    public static let movedPermanently: HTTPStatus = 301
    public static let found: HTTPStatus = 302
    public static let notModified: HTTPStatus = 304
    public static let badRequest: HTTPStatus = 400
    public static let unauthorized: HTTPStatus = 401
    public static let forbidden: HTTPStatus = 403
    public static let notFound: HTTPStatus = 404
    public static let methodNotAllowed: HTTPStatus = 405
    public static let requestTimeout: HTTPStatus = 408
    public static let conflict: HTTPStatus = 409
    public static let gone: HTTPStatus = 410
    public static let preconditionFailed: HTTPStatus = 412
    public static let contentTooLarge: HTTPStatus = 413
    public static let unsupportedMediaType: HTTPStatus = 415
    public static let rangeNotSatisfiable: HTTPStatus = 416
    public static let unprocessableContent: HTTPStatus = 422
    public static let tooManyRequests: HTTPStatus = 429
    public static let internalServerError: HTTPStatus = 500
    public static let notImplemented: HTTPStatus = 501
    public static let badGateway: HTTPStatus = 502
    public static let serviceUnavailable: HTTPStatus = 503
    public static let insufficientStorage: HTTPStatus = 507
}
