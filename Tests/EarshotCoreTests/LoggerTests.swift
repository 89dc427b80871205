import Foundation
import Testing

@testable import EarshotCore

@Suite struct LoggerTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000.25)

    @Test func logfmtQuotesOnlyWhatNeedsIt() {
        let line = LogSink.render(
            timestamp: date, level: .info, label: "http", message: "request done",
            metadata: ["path": "/a b", "status": "200", "quote": #"say "hi""#, "empty": ""], format: .logfmt)
        #expect(
            line
                == #"ts=2027-01-15T08:00:00.250Z level=info label=http msg="request done" path="/a b" status=200 quote="say \"hi\"" empty="""#
        )
    }

    @Test func jsonEscapesControlCharacters() throws {
        let line = LogSink.render(
            timestamp: date, level: .error, label: "store", message: "bad\nline\u{1}", metadata: ["k": "\"v\\"],
            format: .json)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["msg"] == "bad\nline\u{1}")
        #expect(object?["k"] == "\"v\\")
        #expect(object?["level"] == "error")
        #expect(object?["ts"] == "2027-01-15T08:00:00.250Z")
    }

    @Test func levelsParseByName() {
        #expect(Logger.Level(name: "WARNING") == .warning)
        #expect(Logger.Level(name: "verbose") == nil)
        #expect(Logger.Level.debug < .info)
    }
}
