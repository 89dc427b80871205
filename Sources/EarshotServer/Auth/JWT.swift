import EarshotCrypto
import Foundation

/// Compact JSON Web Tokens (RFC 7519) signed with HMAC-SHA-256 (JWS `HS256`, RFC 7515) — the only algorithm
/// accepted: `none`, `HS512`, `RS256` and anything else are refused before any key is looked at, so an
/// attacker cannot pick the algorithm.
enum JWT {
    /// The JOSE header fields Earshot reads and writes.
    struct Header: Codable, Sendable, Equatable {
        var alg: String
        var typ: String?
        var kid: String?
        /// Critical extensions: Earshot understands none, so any token naming one is refused (RFC 7515 §4.1.11).
        var crit: [String]?
    }

    /// Why a token was refused (internal; callers answer every case with 401 `UNAUTHORIZED`).
    enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case unsupportedAlgorithm(String)
        case unknownKey(String?)
        case badSignature

        var description: String {
            switch self {
            case .malformed(let why): "malformed token: \(why)"
            case .unsupportedAlgorithm(let alg): "token algorithm \"\(alg)\" is not accepted; tokens are HS256"
            case .unknownKey(let kid): "token key id \(kid.map { "\"\($0)\"" } ?? "(none)") is not known"
            case .badSignature: "token signature does not match"
            }
        }
    }

    static let algorithm = "HS256"

    /// `base64url(header).base64url(payload).base64url(HMAC-SHA256(key, signing input))`.
    static func sign(header: Header, payload: [UInt8], key: [UInt8]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings cannot fail.
        let headerBytes = Array(try! encoder.encode(header))
        return sign(encodedHeader: Base64URL.encode(headerBytes), payload: payload, key: key)
    }

    /// Signs an already encoded header (for test vectors whose header bytes are fixed).
    static func sign(encodedHeader: String, payload: [UInt8], key: [UInt8]) -> String {
        let input = encodedHeader + "." + Base64URL.encode(payload)
        let mac = HMAC.authenticationCode(.sha256, key: key, message: Array(input.utf8))
        return input + "." + Base64URL.encode(mac.bytes)
    }

    /// Checks the structure, the algorithm and the signature, and returns the header and the payload bytes.
    ///
    /// - Parameter key: the HMAC key for the header (look it up by `kid`), or nil when unknown.
    /// - Throws: ``Failure``; the signature is compared in constant time.
    static func verify(
        _ token: String, key: (Header) async throws -> [UInt8]?
    ) async throws -> (header: Header, payload: [UInt8]) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw Failure.malformed("expected three dot-separated segments, found \(segments.count)")
        }
        guard let headerBytes = Base64URL.decode(segments[0]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes))
        else { throw Failure.malformed("the header is not base64url-encoded JSON with an \"alg\"") }
        guard header.alg == algorithm else { throw Failure.unsupportedAlgorithm(header.alg) }
        guard header.crit == nil else { throw Failure.malformed("critical header extensions are not supported") }
        guard let payload = Base64URL.decode(segments[1]) else {
            throw Failure.malformed("the payload is not base64url")
        }
        guard let signature = Base64URL.decode(segments[2]), signature.count == 32 else {
            throw Failure.malformed("the signature is not a base64url HMAC-SHA256")
        }
        guard let secret = try await key(header) else { throw Failure.unknownKey(header.kid) }
        let input = Array(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        let expected = HMAC.authenticationCode(.sha256, key: secret, message: input)
        guard expected.constantTimeEquals(Digest(bytes: signature)) else { throw Failure.badSignature }
        return (header, payload)
    }
}
