import EarshotHTTP
import Testing

/// RFC 9110's optional whitespace around a header value: spaces and tabs go, anything else stays.
@Suite struct OptionalWhitespaceTests {
    @Test func spacesAndTabsAroundGoInsideAndOtherWhitespaceStay() {
        #expect("  abc.def.ghi \t".trimmingASCIISpaces() == "abc.def.ghi")
        #expect("a b".trimmingASCIISpaces() == "a b")
        #expect(" \t ".trimmingASCIISpaces() == "")
        #expect("".trimmingASCIISpaces() == "")
        #expect("\u{00A0}x\n".trimmingASCIISpaces() == "\u{00A0}x\n")
        #expect("Bearer  tok "[...].dropFirst(6).trimmingASCIISpaces() == "tok")
        // Octets, as the RFC defines OWS: a space before a combining mark goes, the mark stays.
        #expect(" \u{301}é\t".trimmingASCIISpaces() == "\u{301}é")
        #expect("\t\u{3000}日本 ".trimmingASCIISpaces() == "\u{3000}日本")
    }
}
