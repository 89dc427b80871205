import Foundation
import Testing

@testable import EarshotS3

/// AWS's published Signature V4 vectors: the SigV4 test suite (`AKIDEXAMPLE`, 2015-08-30T12:36:00Z) and the examples
/// of the S3 documentation (`AKIAIOSFODNN7EXAMPLE`, `examplebucket`, 2013-05-24); every expected signature below is
/// AWS's, and botocore computes the same.
@Suite struct SignatureV4Tests {
    static let suiteCredentials = SignatureV4.Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let s3Credentials = SignatureV4.Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z

    func authorization(_ headers: [(String, String)]) -> String? {
        headers.first { $0.0 == "Authorization" }?.1
    }

    @Test func getVanillaFromTheSigV4Suite() {
        let signer = SignatureV4(credentials: Self.suiteCredentials, region: "us-east-1", service: "service")
        let headers = signer.signedHeaders(
            method: "GET", path: "/", headers: [("Host", "example.amazonaws.com")],
            payloadHash: SignatureV4.emptyPayloadHash, date: Self.suiteDate)
        #expect(headers.first { $0.0 == "x-amz-date" }?.1 == "20150830T123600Z")
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, "
                + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func queryParametersAreSortedFromTheSigV4Suite() {
        let signer = SignatureV4(credentials: Self.suiteCredentials, region: "us-east-1", service: "service")
        let headers = signer.signedHeaders(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com")], payloadHash: SignatureV4.emptyPayloadHash,
            date: Self.suiteDate)
        #expect(
            authorization(headers)?.hasSuffix(
                "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500") == true)
    }

    @Test func rangeGetFromTheS3Documentation() {
        let signer = SignatureV4(credentials: Self.s3Credentials, region: "us-east-1")
        let headers = signer.signedHeaders(
            method: "GET", path: "/test.txt",
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")],
            payloadHash: SignatureV4.emptyPayloadHash, date: Self.s3Date)
        #expect(headers.first { $0.0 == "x-amz-content-sha256" }?.1 == SignatureV4.emptyPayloadHash)
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func presignedGetFromTheS3Documentation() {
        let signer = SignatureV4(credentials: Self.s3Credentials, region: "us-east-1")
        let url = signer.presignedURL(
            method: "GET", base: URL(string: "https://examplebucket.s3.amazonaws.com")!, path: "/test.txt",
            expires: .seconds(86400), date: Self.s3Date)
        #expect(
            url.absoluteString
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func keysAreEncodedOnceWithSlashesKept() {
        #expect(SignatureV4.encodePath("/bucket/a b/ü+x~.txt") == "/bucket/a%20b/%C3%BC%2Bx~.txt")
        #expect(SignatureV4.encode("a/b=c") == "a%2Fb%3Dc")
    }
}
