import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One part `PUT` to a presigned URL, checked end to end: the one place the uploaders (``FileUploader``, the device
/// sync) send a part.
///
/// - The request carries the part's CRC-32 in `x-amz-checksum-crc32` (S3's flexible checksums). The platform checks
///   the body against it before storing anything, refuses damaged bytes with 400 `BAD_DIGEST` (``EarshotError/Code/integrity``),
///   and echoes the header when it checked.
/// - An answer without the echo comes from a store that ignores checksum headers (an S3 bucket's presigned URL): the
///   part's `ETag` is then compared with the MD5 of the bytes sent, which costs four times the CPU of the CRC-32.
/// - A SigV4-presigned URL (an S3 bucket's) is sent without the header unless its signature covers it: S3 refuses
///   `x-amz-` headers a presigned request did not sign.
enum PartPut {
    static let checksumHeader = "x-amz-checksum-crc32"

    /// PUTs `body` (whose CRC-32 is `checksum`) and returns its `ETag` once the server holds exactly those bytes.
    static func send(_ body: Data, checksum: UInt32, to url: String, part: Int, client: EarshotClient) async throws
        -> String
    {
        guard let target = URL(string: url) else {
            throw EarshotError(.invalidResponse, "part \(part) has no valid URL: \(url)")
        }
        var request = URLRequest(url: target)
        request.httpMethod = "PUT"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let sent = CRC32.base64(checksum)
        if mayCarryChecksum(target) { request.setValue(sent, forHTTPHeaderField: checksumHeader) }
        let (data, response) = try await client.exchange(request, body: body)
        guard (200..<300).contains(response.statusCode) else {
            throw EarshotClient.error(from: response, data: data)
        }
        let requestID = response.value(forHTTPHeaderField: "X-Request-Id")
        guard let etag = response.value(forHTTPHeaderField: "ETag") else {
            throw EarshotError(
                .invalidResponse, "the PUT of part \(part) answered without an ETag", status: response.statusCode,
                requestID: requestID)
        }
        if let checked = response.value(forHTTPHeaderField: checksumHeader) {
            guard checked.trimmingCharacters(in: .whitespaces) == sent else {
                throw EarshotError(
                    .integrity,
                    "part \(part): the server checked the CRC-32 \(checked), not the \(sent) of the bytes sent",
                    status: response.statusCode, requestID: requestID)
            }
            return etag
        }
        let md5 = MD5.hex(body)
        guard FilePart.normalize(etag) == md5 else {
            throw EarshotError(
                .integrity, "part \(part): the server's ETag \(etag) is not the MD5 of the bytes sent (\(md5))",
                status: response.statusCode, requestID: requestID)
        }
        return etag
    }

    /// False for a SigV4-presigned URL whose signed headers leave the checksum out.
    static func mayCarryChecksum(_ url: URL) -> Bool {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name.lowercased() == name }?.value }
        guard value("x-amz-signature") != nil else { return true }
        let signed = (value("x-amz-signedheaders") ?? "").lowercased().split(separator: ";")
        return signed.contains(Substring(checksumHeader))
    }
}
