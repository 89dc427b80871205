import Testing

@testable import EarshotAccounts

/// Bad input gets an error that names the field and says what is wrong.
@Suite struct AddressTests {
    @Test func emailAddressesAreNormalised() throws {
        #expect(try EmailAddress("  Ada.Lovelace+notes@Example.CO.uk ").value == "ada.lovelace+notes@example.co.uk")
        #expect(try EmailAddress("x@xn--bcher-kva.example").value == "x@xn--bcher-kva.example")
    }

    @Test(arguments: [
        ("", "is empty"),
        ("ada.example.com", "has no @"),
        ("ada@@example.com", "more than one @"),
        ("ada@localhost", "needs a dot"),
        ("ada@exa_mple.com", "is not a host name"),
        ("ada@-example.com", "is not a host name"),
        (".ada@example.com", "must not start or end with a dot"),
        ("a..da@example.com", "two dots in a row"),
        ("ada lovelace@example.com", "remove spaces"),
        ("\"ada\"@example.com", "is not allowed before the @"),
        ("ada@1.2.3.4", "is not a host name"),
    ])
    func malformedEmailsAreRefused(input: String, problem: String) {
        let error = #expect(throws: AccountError.self) { try EmailAddress(input) }
        #expect(error?.field == "email")
        #expect(error?.message.hasPrefix("email: ") == true)
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }

    @Test func lookAlikeLettersInEmailsAreRefusedByName() {
        // "раypal" with a Cyrillic "р" and "а": reads like the Latin address, would be a different account.
        let error = #expect(throws: AccountError.self) { try EmailAddress("ada@p\u{0430}ypal.com") }
        #expect(error?.message.contains("U+0430 CYRILLIC SMALL LETTER A") == true, "\(error?.message ?? "")")
        let fullwidth = #expect(throws: AccountError.self) { try EmailAddress("ada\u{FF20}example.com") }
        #expect(fullwidth?.message.contains("U+FF20 FULLWIDTH COMMERCIAL AT") == true)
        let invisible = #expect(throws: AccountError.self) { try EmailAddress("ad\u{200B}a@example.com") }
        #expect(invisible?.message.contains("U+200B") == true)
    }

    @Test func phoneNumbersAreE164AndMatchTheirCountry() throws {
        let us = try PhoneNumber("+1 (415) 555-0123", country: "us")
        #expect(us.value == "+14155550123")
        #expect(us.country?.code == "US")
        #expect(try PhoneNumber("+8613812345678").country?.code == "CN")
        #expect(try PhoneNumber("+4915112345678").country?.name == "Germany")
        // +1 is shared by the NANP countries: valid, but the country stays unknown unless given.
        #expect(try PhoneNumber("+14155550123").country == nil)
    }

    @Test(
        arguments: [
            ("4155550123", nil, "phone", "must start with +"),
            ("+1 415 555", nil, "phone", "has 7 digits"),
            ("+1234567890123456", nil, "phone", "has 16 digits"),
            ("+14155550123", "DE", "phone", "is not a Germany number"),
            ("+4412345678", "GB", "phone", "has 8 digits after +44"),
            ("+4915112345678", "XX", "country", "is not an ISO 3166-1 alpha-2 country code"),
            ("+4915112345678", "Germany", "country", "GET /open/accounts/countries"),
            ("+1 415 555 0123 ext 7", nil, "phone", "'e'"),
            ("+1 415 555 ０１２３", nil, "phone", "U+FF10 FULLWIDTH DIGIT ZERO"),
            ("+1 415 555 ٠١٢٣", nil, "phone", "ARABIC-INDIC DIGIT"),
            ("+999 12345678", nil, "phone", "known calling code"),
        ] as [(String, String?, String, String)])
    func malformedPhonesAndUnknownCountriesAreRefused(input: String, country: String?, field: String, problem: String) {
        let error = #expect(throws: AccountError.self) { try PhoneNumber(input, country: country) }
        #expect(error?.field == field)
        #expect(error?.message.hasPrefix("\(field): ") == true)
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }

    @Test func theCountryTableHasEveryCallingCountry() throws {
        #expect(Country.all.count > 240)
        #expect(
            Country.named("cn")
                == Country(
                    code: "CN", name: "China", callingCode: "86",
                    nationalNumberLengths: [7, 8, 9, 10, 11, 12]))
        #expect(Country.named("GB")?.callingCode == "44")
        #expect(Set(Country.all.map(\.code)).count == Country.all.count)
    }

    @Test func anAddressIsAnEmailOrAPhoneNotBoth() {
        #expect(throws: AccountError.self) { try AccountAddress.parse(email: nil, phone: nil, country: nil) }
        let both = #expect(throws: AccountError.self) {
            try AccountAddress.parse(email: "a@example.com", phone: "+14155550123", country: nil)
        }
        #expect(both?.message.contains("not both") == true)
    }

    @Test(arguments: [
        ("short", "use at least 8"),
        ("password123", "most common passwords"),
        ("aaaaaaaaaaaa", "most common passwords"),
        ("ada@example.com", "must not be your email"),
        ("ada", "use at least 8"),
        (String(repeating: "long passphrase ", count: 80), "use at most 1024 bytes"),
        ("good pass\u{202E}word", "U+202E"),
    ])
    func weakAndEnormousPasswordsAreRefused(password: String, problem: String) {
        let error = #expect(throws: AccountError.self) {
            try PasswordPolicy().check(password, address: "ada@example.com")
        }
        #expect(error?.field == "password")
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }

    @Test func aPassphraseInAnyScriptIsAccepted() throws {
        try PasswordPolicy().check("correct horse battery staple")
        try PasswordPolicy().check("我的录音机密码很长")
    }

    @Test func nicknamesAreTrimmedAndRefuseInvisibleCharacters() throws {
        #expect(try AccountDirectory.nickname("  Ada  ") == "Ada")
        #expect(try AccountDirectory.nickname("   ") == nil)
        let error = #expect(throws: AccountError.self) { try AccountDirectory.nickname("Ad\u{200D}a") }
        #expect(error?.field == "nickname")
        #expect(throws: AccountError.self) { try AccountDirectory.nickname(String(repeating: "a", count: 65)) }
    }
}
