import EarshotAPI
import EarshotCrypto
import Foundation
import Testing

@testable import EarshotServer

/// Every error path of the upload API, each with its status, stable code and a message naming the problem.
@Suite struct UploadErrorTests {
    @Test func badPlansAreRefusedClearly() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let path = APIPath.generatePresignedURLs
            let badType = try await platform.send(
                "POST", path, token: token, json: ["filesize": 10, "filetype": "exe"])
            #expect(badType.status == 400)
            #expect(badType.errorCode == "INVALID_ARGUMENT")
            #expect(badType.errorMessage.contains("filetype \"exe\" is not accepted; use one of: 3gp, aac, aif"))
            // Every container the decoder reads is accepted, mp4 (what phones record video-less audio into) too.
            for filetype in ["mp4", "mov", "mkv", "aiff", "caf", "wv", "raw"] {
                let plan = try await platform.send(
                    "POST", path, token: token, json: ["filesize": 10, "filetype": filetype])
                #expect(plan.status == 200, "\(filetype): \(plan.text)")
            }
            let oversize = try await platform.send(
                "POST", path, token: token, json: ["filesize": (16 << 20) + 1, "filetype": "wav"])
            #expect(oversize.status == 413)
            #expect(oversize.errorCode == "PAYLOAD_TOO_LARGE")
            #expect(oversize.errorMessage.contains("\(16 << 20) bytes"))
            let empty = try await platform.send("POST", path, token: token, json: ["filesize": 0, "filetype": "wav"])
            #expect(empty.status == 400)
            let malformed = try await platform.send("POST", path, token: token, body: Data(#"{"filesize": 1,"#.utf8))
            #expect(malformed.status == 400)
            #expect(malformed.errorMessage == "request body is not valid JSON")
            let wrongType = try await platform.send(
                "POST", path, token: token, json: ["filesize": "big", "filetype": "wav"])
            #expect(wrongType.status == 400)
            #expect(wrongType.errorMessage == "field `filesize` must be an integer")
            let noAuth = try await platform.send("POST", path, json: ["filesize": 10, "filetype": "wav"])
            #expect(noAuth.status == 401)
            // Upper-case extensions (as some recorders name files) are accepted and normalised.
            let upper = try await platform.send("POST", path, token: token, json: ["filesize": 10, "filetype": "WAV"])
            #expect(upper.status == 200)
        }
    }

    @Test func presignedURLsRefuseTamperingExpiryAndMissingSignatures() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(100_000)
            let plan = try await platform.plan(content.count, token: token)
            let url = plan.parts[0].presignedURL
            let chunk = content[0..<65536]
            let components = URLComponents(string: url)!
            func with(_ name: String, _ value: String?) -> String {
                var copy = components
                copy.queryItems = components.queryItems!.compactMap {
                    $0.name == name ? value.map { URLQueryItem(name: name, value: $0) } : $0
                }
                return copy.string!
            }
            let expires = Int(components.queryItems!.first { $0.name == "expires" }!.value!)!
            let cases: [(String, String, String)] = [
                (
                    "tampered signature",
                    with("signature", Self.tampered(components.queryItems!.first { $0.name == "signature" }!.value!)),
                    "does not match"
                ),
                ("extended expiry", with("expires", String(expires + 3600)), "does not match"),
                ("unknown key", with("key", "key_00000000000000000000"), "does not match"),
                (
                    "other part", url.replacingOccurrences(of: "/\(plan.uploadID)/1?", with: "/\(plan.uploadID)/2?"),
                    "does not match"
                ),
                ("unsigned", with("signature", nil), "not signed"),
            ]
            for (name, bad, message) in cases {
                let response = try await platform.send("PUT", bad, body: chunk)
                #expect(response.status == 403, "\(name)")
                #expect(response.errorCode == "FORBIDDEN", "\(name)")
                #expect(response.errorMessage.contains(message), "\(name): \(response.errorMessage)")
            }
            // Expired: correctly signed (with the server's key) but in the past.
            let key = try await platform.signingKey(.url)
            let path = "/open/partner/files/upload/parts/\(plan.uploadID)/1"
            let past = Int64(Date().timeIntervalSince1970) - 10
            let mac = URLSigner.mac(method: .put, path: path, expires: past, kid: key.kid, key: key.signer)
            let expired = try await platform.send(
                "PUT", "\(platform.base.absoluteString)\(path)?expires=\(past)&key=\(key.kid)&signature=\(mac)",
                body: chunk)
            #expect(expired.status == 403)
            #expect(expired.errorMessage.contains("URL expired at"))
            // A download URL cannot be used as an upload URL (method and path are signed).
            let done = try await platform.upload(testContent(1000), token: token)
            let download = URLComponents(string: done.downloadURL)!
            var asUpload = components
            asUpload.queryItems = download.queryItems
            #expect(try await platform.send("PUT", asUpload.string!, body: chunk).status == 403)
            // The original URL still works.
            #expect(try await platform.send("PUT", url, body: chunk).status == 200)
        }
    }

    @Test func partsOfTheWrongSizeAreRefused() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(100_000)
            let plan = try await platform.plan(content.count, token: token)
            let short = try await platform.send("PUT", plan.parts[0].presignedURL, body: content[0..<1000])
            #expect(short.status == 400)
            #expect(short.errorMessage.contains("part 1 must be exactly 65536 bytes"))
            let lastTooLong = try await platform.send("PUT", plan.parts[1].presignedURL, body: content[0..<65536])
            #expect(lastTooLong.status == 400)
            #expect(lastTooLong.errorMessage.contains("part 2 must be exactly \(100_000 - 65536) bytes"))
            let huge = try await platform.send("PUT", plan.parts[0].presignedURL, body: testContent(65537))
            #expect(huge.status == 413)
            #expect(huge.errorCode == "PAYLOAD_TOO_LARGE")
            // Nothing was stored by the refused attempts.
            let status = try await platform.send(
                "GET", "/open/partner/files/upload/\(plan.uploadID)/parts", token: token)
            #expect(try status.decode(UploadStatus.self).parts.isEmpty)
        }
    }

    @Test func completionNamesTheBadPart() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let content = testContent(200_000)
            let plan = try await platform.plan(content.count, token: token)
            var etags: [Int: String] = [:]
            for number in [1, 2, 3] { etags[number] = try await platform.putPart(number, of: content, plan: plan) }

            let missingUpload = try await platform.complete(
                plan, etags: etags.merging([4: "\"00\""]) { a, _ in a }, token: token)
            #expect(missingUpload.status == 400)
            #expect(missingUpload.errorMessage.hasPrefix("part 4 was never uploaded"))
            let notListed = try await platform.complete(plan, etags: etags, token: token)
            #expect(notListed.errorMessage.hasPrefix("part 4 is missing from part_list"))
            etags[4] = try await platform.putPart(4, of: content, plan: plan)
            let wrong = try await platform.complete(
                plan, etags: etags.merging([3: "\"0123\""]) { _, new in new }, token: token)
            #expect(wrong.status == 400)
            #expect(wrong.errorMessage.hasPrefix("part 3: ETag \"0123\" does not match"))
            let extra = try await platform.complete(
                plan, etags: etags.merging([9: "\"00\""]) { a, _ in a }, token: token)
            #expect(extra.errorMessage.hasPrefix("part 9 does not exist"))
            let twice = try await platform.send(
                "POST", APIPath.completeUpload, token: token,
                json: [
                    "file_id": plan.fileID, "upload_id": plan.uploadID,
                    "part_list": [["part_number": 1, "etag": etags[1]!], ["part_number": 1, "etag": etags[1]!]],
                ])
            #expect(twice.errorMessage == "part 1 is listed twice in part_list")
            let otherFile = try await platform.send(
                "POST", APIPath.completeUpload, token: token,
                json: ["file_id": "file_00000000000000000000", "upload_id": plan.uploadID, "part_list": []])
            #expect(otherFile.status == 400)
            #expect(otherFile.errorMessage.contains("does not belong to upload"))
            let malformed = try await platform.send(
                "POST", APIPath.completeUpload, token: token,
                json: ["file_id": plan.fileID, "upload_id": plan.uploadID])
            #expect(malformed.errorMessage == "missing field `part_list`")
            // ETags are accepted with or without quotes.
            let unquoted = etags.mapValues { $0.replacingOccurrences(of: "\"", with: "") }
            let done = try await platform.complete(plan, etags: unquoted, token: token)
            #expect(done.status == 200, "\(done.text)")
        }
    }

    /// Nothing of one partner is visible to another, and a user sees only its own uploads and files; every
    /// foreign id is answered exactly like a missing one.
    @Test func tenantsAndUsersCannotSeeEachOthersUploadsOrFiles() async throws {
        try await TestPlatform.with { platform in
            let alice = try await platform.newUser("alice", partner: "A")
            let bob = try await platform.newUser("bob", partner: "B")
            let content = testContent(1000)
            let done = try await platform.upload(content, token: alice.userToken)
            let open = try await platform.plan(500, token: alice.userToken)
            let carol = try await platform.userToken(partnerToken: alice.partnerToken, userID: "carol")

            func errorBody(_ response: TestPlatform.HTTPResult) -> String {
                var object = response.object ?? [:]
                var error = object["error"] as? [String: Any] ?? [:]
                error["request_id"] = nil
                error["message"] = (error["message"] as? String)?
                    .replacingOccurrences(of: done.fileID, with: "ID").replacingOccurrences(
                        of: open.uploadID, with: "ID"
                    )
                    .replacingOccurrences(of: "file_00000000000000000000", with: "ID")
                    .replacingOccurrences(of: "upl_00000000000000000000", with: "ID")
                object["error"] = error
                return String(
                    decoding: try! JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
            }
            let missingFile = try await platform.send(
                "GET", "/open/partner/files/file_00000000000000000000", token: bob.partnerToken)
            let missingUpload = try await platform.send(
                "GET", "/open/partner/files/upload/upl_00000000000000000000/parts", token: bob.partnerToken)
            #expect(missingFile.status == 404)

            for token in [bob.partnerToken, bob.userToken, carol] {
                let file = try await platform.send("GET", "/open/partner/files/\(done.fileID)", token: token)
                #expect(file.status == 404)
                #expect(errorBody(file) == errorBody(missingFile))
                let parts = try await platform.send(
                    "GET", "/open/partner/files/upload/\(open.uploadID)/parts", token: token)
                #expect(parts.status == 404)
                #expect(errorBody(parts) == errorBody(missingUpload))
                let abort = try await platform.send(
                    "DELETE", "/open/partner/files/upload/\(open.uploadID)", token: token)
                #expect(abort.status == 404)
                let complete = try await platform.complete(open, etags: [:], token: token)
                #expect(complete.status == 404)
            }
            // The owner and the owner's partner see them.
            #expect(
                try await platform.send("GET", "/open/partner/files/\(done.fileID)", token: alice.userToken).status
                    == 200)
            #expect(
                try await platform.send("GET", "/open/partner/files/\(done.fileID)", token: alice.partnerToken).status
                    == 200)
            #expect(
                try await platform.send(
                    "GET", "/open/partner/files/upload/\(open.uploadID)/parts", token: alice.partnerToken
                )
                .status == 200)
        }
    }

    @Test func downloadURLsAreSignedAndExpire() async throws {
        try await TestPlatform.with { platform in
            let (_, _, token) = try await platform.newUser()
            let done = try await platform.upload(testContent(1000), token: token)
            let tampered = done.downloadURL.replacingOccurrences(of: "expires=", with: "expires=1")
            let response = try await platform.send("GET", tampered)
            #expect(response.status == 403)
            let unsigned = String(done.downloadURL.prefix { $0 != "?" })
            #expect(try await platform.send("GET", unsigned).status == 403)
            let key = try await platform.signingKey(.url)
            let path = "/open/partner/files/\(done.fileID)/download"
            let past = Int64(Date().timeIntervalSince1970) - 1
            let mac = URLSigner.mac(method: .get, path: path, expires: past, kid: key.kid, key: key.signer)
            let expired = try await platform.send(
                "GET", "\(platform.base.absoluteString)\(path)?expires=\(past)&key=\(key.kid)&signature=\(mac)")
            #expect(expired.status == 403)
            #expect(expired.errorMessage.contains("expired"))
            // HEAD works like GET.
            #expect(try await platform.send("HEAD", done.downloadURL).status == 200)
        }
    }

    /// `signature` with its first character changed (to one it is not: a fixed replacement equals it 1 time in 64).
    static func tampered(_ signature: String) -> String {
        (signature.first == "A" ? "B" : "A") + String(signature.dropFirst())
    }
}
