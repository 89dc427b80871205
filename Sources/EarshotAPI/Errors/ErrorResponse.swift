/// The body of every error response: `{"error":{"code":"NOT_FOUND","message":"…","request_id":"req_…"}}`.
public struct ErrorResponse: Codable, Sendable, Hashable {
    /// The error itself.
    public struct Body: Codable, Sendable, Hashable {
        /// Stable machine-readable code.
        public var code: ErrorCode
        /// What went wrong and how to fix it, for humans.
        public var message: String
        /// The request id (also in the `X-Request-Id` header), for support and logs.
        public var requestID: String?

        public init(code: ErrorCode, message: String, requestID: String? = nil) {
            self.code = code
            self.message = message
            self.requestID = requestID
        }

        enum CodingKeys: String, CodingKey {
            case code, message
            case requestID = "request_id"
        }
    }

    public var error: Body

    public init(error: Body) {
        self.error = error
    }
}
