import EarshotSpeech
import Testing

/// Numbers in English transcripts written the way people look them up, and quantities never touched.
@Suite struct NumberFormsTests {
    @Test(
        "Clock times after a time word and identifiers are written as people write them",
        arguments: [
            ("the meeting starts at 9.30 tomorrow morning.", "the meeting starts at 9:30 tomorrow morning."),
            ("The train leaves at 745 from platform 3.", "The train leaves at 7:45 from platform 3."),
            ("Flight 815 lands at 620.", "Flight 815 lands at 6:20."),
            ("Call me back at 415 this afternoon.", "Call me back at 4:15 this afternoon."),
            ("See you at 1130 pm", "See you at 11:30 pm"),
            ("Order number 47,291 was shipped on Monday.", "Order number 47291 was shipped on Monday."),
            ("Your ticket 1,234,567 is ready", "Your ticket 1234567 is ready"),
            ("It shipped as order 12,345.", "It shipped as order 12345."),
        ])
    func rewritten(_ heard: String, _ written: String) {
        #expect(NumberForms.apply(heard, language: "en") == written)
    }

    @Test(
        "Quantities, amounts and numbers without a telling context are left alone",
        arguments: [
            "The oven is at 620 degrees.",  // a unit follows
            "Revenue grew by 930.",  // not a time word
            "We sold 1,600 units in the first week.",  // a quantity
            "The invoice total is $9.82.",
            "The rate is at 9.30 percent.",
            "at 1575 meters",  // not a time: 75 minutes, and a unit follows
            "at 2430.",  // hour 24
            "Call 911 at 0800 tomorrow",  // 0800 has a leading zero: left for the reader
            "The patch version is 3.2.1.",
        ])
    func untouched(_ text: String) {
        #expect(NumberForms.apply(text, language: "en") == text)
    }

    @Test("Other languages are not rewritten")
    func otherLanguages() {
        #expect(NumberForms.apply("le train part at 745.", language: "fr") == "le train part at 745.")
        #expect(NumberForms.apply("at 745.", language: nil) == "at 745.")
    }
}
