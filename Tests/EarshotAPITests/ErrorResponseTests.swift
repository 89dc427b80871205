import EarshotAPI
import Foundation
import Testing

@Suite struct ErrorResponseTests {
    @Test func decodesTheServersErrorShapeIncludingUnknownCodes() throws {
        let json = #"{"error":{"code":"SOMETHING_NEW","message":"later","request_id":"req_1"}}"#
        let decoded = try JSONDecoder().decode(ErrorResponse.self, from: Data(json.utf8))
        #expect(decoded.error.code.rawValue == "SOMETHING_NEW")
        #expect(decoded.error.code != .internal)
        #expect(decoded.error.requestID == "req_1")
    }

    @Test func encodesSnakeCaseAndStableCodes() throws {
        let value = ErrorResponse(error: .init(code: .unauthorized, message: "token expired", requestID: "req_2"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(text == #"{"error":{"code":"UNAUTHORIZED","message":"token expired","request_id":"req_2"}}"#)
        #expect(ErrorCode.bindOccupied.rawValue == "BIND_OCCUPIED")
    }
}
