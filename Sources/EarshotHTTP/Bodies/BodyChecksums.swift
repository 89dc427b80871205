import EarshotCrypto
import Foundation

/// The checksums a client sent with a file body, in S3's flexible-checksum headers: `x-amz-checksum-crc32` (CRC-32,
/// 4 bytes big-endian, base64) and `x-amz-checksum-sha256` (32 bytes, base64).
///
/// A ``BodyMode/file(limit:directory:)`` route checks the body against them before its handler runs: a mismatch is
/// answered 400 `BAD_DIGEST` and the body is deleted, so damaged bytes are never stored; a 2xx answer echoes the
/// headers, which tells the client the server checked them. Other algorithms S3 names (`crc32c`, `crc64nvme`,
/// `sha1`) are refused with 400 rather than ignored: a client asking for a check must not silently get none.
struct BodyChecksums {
    private(set) var crc32: UInt32?
    private(set) var sha256: Digest?

    static let crc32Header = "x-amz-checksum-crc32"
    static let sha256Header = "x-amz-checksum-sha256"
    /// `x-amz-checksum-…` headers that name no checksum of the body (S3 sends them on other calls).
    private static let notChecksums: Set<String> = ["x-amz-checksum-algorithm", "x-amz-checksum-type"]

    /// The checksums in `headers`, or the 400 that refuses them before the body is read.
    static func parse(_ headers: HTTPHeaders) -> Result<BodyChecksums, HTTPError> {
        var checksums = BodyChecksums()
        for field in headers {
            let name = field.name.lowercased()
            guard name.hasPrefix("x-amz-checksum-"), !notChecksums.contains(name) else { continue }
            let value = field.value.trimmingCharacters(in: .whitespaces)
            switch name {
            case crc32Header:
                guard let crc = CRC32.parse(base64: value) else {
                    return .failure(.invalidArgument("\(crc32Header) must be the base64 of 4 bytes, not \"\(value)\""))
                }
                checksums.crc32 = crc
            case sha256Header:
                guard let bytes = Data(base64Encoded: value), bytes.count == 32 else {
                    return .failure(
                        .invalidArgument("\(sha256Header) must be the base64 of 32 bytes, not \"\(value)\""))
                }
                checksums.sha256 = Digest(bytes: Array(bytes))
            default:
                return .failure(
                    .invalidArgument("\(name) is not supported: send \(crc32Header) or \(sha256Header), or no checksum")
                )
            }
        }
        return .success(checksums)
    }

    /// The 400 `BAD_DIGEST` for a body that is not what the client said, or nil.
    func mismatch(_ file: UploadedFile) -> HTTPError? {
        if let crc32, file.crc32 != crc32 {
            return Self.badDigest(
                "CRC-32 is \(CRC32.base64(file.crc32 ?? 0)) but \(Self.crc32Header) says \(CRC32.base64(crc32))")
        }
        if let sha256, file.sha256 != sha256 {
            return Self.badDigest(
                "SHA-256 is \(Self.base64(file.sha256)) but \(Self.sha256Header) says \(Self.base64(sha256))")
        }
        return nil
    }

    /// The headers a 2xx answer echoes.
    var echo: [(String, String)] {
        var fields: [(String, String)] = []
        if let crc32 { fields.append((Self.crc32Header, CRC32.base64(crc32))) }
        if let sha256 { fields.append((Self.sha256Header, Self.base64(sha256))) }
        return fields
    }

    private static func base64(_ digest: Digest) -> String { Data(digest.bytes).base64EncodedString() }

    private static func badDigest(_ detail: String) -> HTTPError {
        HTTPError(
            .badRequest, code: "BAD_DIGEST",
            message: "the body's \(detail): it was damaged on the way, so nothing was stored; send it again")
    }
}
