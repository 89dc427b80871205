public import EarshotStore
public import Foundation

/// Direct uploads: S3 multipart uploads whose parts the client `PUT`s straight to the bucket with presigned
/// `UploadPart` URLs (query-string Signature V4 with an expiry), completed with the ETags the client collected.
extension S3BlobStore: DirectUploadBlobStore {
    /// S3's smallest part but the last: 5 MiB.
    public var minimumPartSize: Int { 5 << 20 }

    /// `CreateMultipartUpload` of `key`, with `metadata` as `x-amz-meta-*` of the finished object.
    public func startDirectUpload(_ key: BlobKey, metadata: [String: String]) async throws -> String {
        let headers = metadata.sorted { $0.key < $1.key }.map { ("x-amz-meta-" + $0.key.lowercased(), $0.value) }
        let created = try await client.send(
            "POST", key: key.rawValue, query: [("uploads", "")], headers: headers, what: "start upload of \(key)")
        guard created.status == 200, let uploadID = XMLText.first("UploadId", in: created.body), !uploadID.isEmpty
        else { throw client.failure(created, "start upload of \(key)") }
        return uploadID
    }

    /// A presigned `UploadPart`: `PUT /bucket/key?partNumber=N&uploadId=…` signed in the query string (host only,
    /// unsigned payload), valid for `expires` (at most 7 days).
    public func presignedPartURL(_ key: BlobKey, uploadID: String, partNumber: Int, expires: Duration) -> URL {
        client.signer.presignedURL(
            method: "PUT", base: configuration.endpoint, path: client.path(key.rawValue),
            query: [("partNumber", String(partNumber)), ("uploadId", uploadID)], expires: expires, date: Date())
    }

    /// `ListParts`, every page (1000 parts each), by part number; a part number sent more than once may appear more
    /// than once (newest first) on servers that keep every version until completion.
    public func listParts(_ key: BlobKey, uploadID: String) async throws -> [DirectUploadPart] {
        var parts: [DirectUploadPart] = []
        var marker: String?
        repeat {
            var query = [("uploadId", uploadID), ("max-parts", "1000")]
            if let marker { query.append(("part-number-marker", marker)) }
            let answer = try await client.send("GET", key: key.rawValue, query: query, what: "list parts of \(key)")
            guard answer.status == 200 else {
                if answer.status == 404 || answer.errorCode == "NoSuchUpload" {
                    throw StoreError(.notFound, "S3 has no upload \(uploadID) of \(key) (completed or aborted)")
                }
                throw client.failure(answer, "list parts of \(key)")
            }
            for block in XMLText.blocks("Part", in: answer.body) {
                guard let number = XMLText.first("PartNumber", in: block).flatMap({ Int($0) }),
                    let size = XMLText.first("Size", in: block).flatMap({ Int64($0) }),
                    let etag = XMLText.first("ETag", in: block)
                else { continue }
                let modified = XMLText.first("LastModified", in: block).flatMap(Self.isoDate)
                parts.append(DirectUploadPart(number: number, size: size, etag: etag, lastModified: modified))
            }
            marker =
                XMLText.first("IsTruncated", in: answer.body) == "true"
                ? XMLText.first("NextPartNumberMarker", in: answer.body) : nil
        } while marker != nil
        // A part sent again replaces the earlier one, but some servers (SeaweedFS) list both until completion, which
        // takes the one whose ETag it is given: by number, the newest first (ties in the server's order).
        return parts.enumerated().sorted { a, b in
            if a.element.number != b.element.number { return a.element.number < b.element.number }
            let (da, db) = (a.element.lastModified ?? .distantPast, b.element.lastModified ?? .distantPast)
            return da != db ? da > db : a.offset < b.offset
        }.map(\.element)
    }

    /// `CompleteMultipartUpload` with `parts`' numbers and ETags, then a `HEAD` of the new object.
    public func completeDirectUpload(
        _ key: BlobKey, uploadID: String, parts: [DirectUploadPart]
    ) async throws -> DirectUploadObject {
        let body = parts.map {
            "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(XMLText.escape($0.etag))</ETag></Part>"
        }
        let xml = "<CompleteMultipartUpload>\(body.joined())</CompleteMultipartUpload>"
        let answer = try await client.send(
            "POST", key: key.rawValue, query: [("uploadId", uploadID)], body: Data(xml.utf8),
            what: "complete upload of \(key)")
        // S3 may answer 200 and still fail: the error document then comes in the body.
        if let code = answer.errorCode {
            let detail = "S3 complete upload of \(key): \(code) \(answer.errorMessage)"
            switch code {
            case "NoSuchUpload": throw StoreError(.notFound, detail)
            case "InvalidPart", "InvalidPartOrder", "EntityTooSmall", "MalformedXML", "InvalidArgument":
                throw StoreError(.invalidArgument, detail)
            default: throw client.failure(answer, "complete upload of \(key)")
            }
        }
        guard answer.status == 200 else {
            if answer.status == 404 { throw StoreError(.notFound, "S3 has no upload \(uploadID) of \(key)") }
            throw client.failure(answer, "complete upload of \(key)")
        }
        return try await objectSummary(key)
    }

    /// `AbortMultipartUpload`; `NoSuchUpload` counts as done.
    public func abortDirectUpload(_ key: BlobKey, uploadID: String) async throws {
        let answer = try await client.send(
            "DELETE", key: key.rawValue, query: [("uploadId", uploadID)], what: "abort upload of \(key)")
        guard answer.status == 204 || answer.status == 200 || answer.status == 404 else {
            throw client.failure(answer, "abort upload of \(key)")
        }
    }

    /// `ListMultipartUploads` under `prefix`, every page.
    public func listDirectUploads(prefix: String) async throws -> [DirectUploadListing] {
        var uploads: [DirectUploadListing] = []
        var markers: (key: String, upload: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.upload)] }
            let answer = try await client.send("GET", query: query, what: "list uploads under \(prefix)")
            guard answer.status == 200 else { throw client.failure(answer, "list uploads under \(prefix)") }
            for block in XMLText.blocks("Upload", in: answer.body) {
                guard let key = XMLText.first("Key", in: block), let id = XMLText.first("UploadId", in: block) else {
                    continue
                }
                let initiated = XMLText.first("Initiated", in: block).flatMap(Self.isoDate) ?? Date()
                uploads.append(DirectUploadListing(key: key, uploadID: id, initiated: initiated))
            }
            if XMLText.first("IsTruncated", in: answer.body) == "true",
                let key = XMLText.first("NextKeyMarker", in: answer.body),
                let upload = XMLText.first("NextUploadIdMarker", in: answer.body)
            {
                markers = (key, upload)
            } else {
                markers = nil
            }
        } while markers != nil
        return uploads
    }

    /// A `HEAD` of `key`: its size and ETag.
    public func objectSummary(_ key: BlobKey) async throws -> DirectUploadObject {
        let answer = try await client.send("HEAD", key: key.rawValue, what: "head \(key)")
        guard answer.status == 200 else {
            if answer.status == 404 { throw StoreError(.notFound, "no blob \(key)") }
            throw client.failure(answer, "head \(key)")
        }
        guard let size = answer.headers["content-length"].flatMap({ Int64($0) }) else {
            throw StoreError(.io, "S3 head \(key): no Content-Length")
        }
        return DirectUploadObject(size: size, etag: answer.headers["etag"] ?? "")
    }

    private static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
