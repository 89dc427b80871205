import Foundation
import Testing

@testable import EarshotHTTP

/// What counts as an unknown field: keys a type never asks for, at any depth; optional fields that are absent or
/// null, dictionaries and custom decoders are fine.
@Suite struct UnknownFieldsTests {
    struct Diarization: Codable {
        var enabled: Bool
        var speakers: Int?
        var labelTemplate: String?
        enum CodingKeys: String, CodingKey {
            case enabled, speakers
            case labelTemplate = "label_template"
        }
    }
    struct Part: Codable {
        var number: Int
        var etag: String
    }
    struct Task: Codable {
        var fileID: String
        var diarization: Diarization?
        var parts: [Part]?
        var names: [String: String]?
        var ratio: Double?
        var when: Date?
        enum CodingKeys: String, CodingKey {
            case diarization, parts, names, ratio, when
            case fileID = "file_id"
        }
    }
    /// A type that reads its fields by hand, one of them optionally.
    struct Custom: Decodable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decodeIfPresent(Int.self, forKey: .value) ?? 0
        }
        enum CodingKeys: String, CodingKey { case value }
    }

    func unknown<T: Decodable>(_ json: String, _ type: T.Type) -> UnknownFields.Finding? {
        UnknownFields.first(in: Data(json.utf8), for: type)
    }

    @Test func everyKnownFieldIsAccepted() {
        #expect(
            unknown(
                #"{"file_id":"f","diarization":{"enabled":true,"speakers":2,"label_template":"S{n}"},"#
                    + #""parts":[{"number":1,"etag":"x"}],"names":{"A":"Ann","B":"Bo"},"ratio":0.5,"when":null}"#,
                Task.self) == nil)
        #expect(unknown(#"{"file_id":"f","diarization":null}"#, Task.self) == nil)
        #expect(unknown(#"{}"#, Custom.self) == nil)
    }

    @Test func unknownFieldsAreFoundAtAnyDepthWithTheFieldsThatObjectTakes() {
        #expect(
            unknown(#"{"file_id":"f","diarize":true}"#, Task.self)
                == .init(path: "diarize", known: ["diarization", "file_id", "names", "parts", "ratio", "when"]))
        #expect(
            unknown(#"{"file_id":"f","diarization":{"enabled":true,"speaker_count":2}}"#, Task.self)?.path
                == "diarization.speaker_count")
        #expect(
            unknown(#"{"file_id":"f","parts":[{"number":1,"etag":"x"},{"number":2,"etag":"y","md5":"z"}]}"#, Task.self)?
                .path == "parts[1].md5")
        #expect(unknown(#"{"value":1,"extra":2}"#, Custom.self)?.path == "extra")
    }
}
