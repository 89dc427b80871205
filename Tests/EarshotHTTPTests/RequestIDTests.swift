import EarshotCore
import Testing

@testable import EarshotHTTP

@Suite struct RequestIDTests {
    @Test func generatedIDsAreValidIdentifiersAndDistinctAcrossRefills() {
        let generator = RequestIDGenerator()
        let ids = (0..<2000).map { _ in generator.make() }  // several 4 KiB refills
        #expect(ids.allSatisfy { Identifier.isValid($0, prefix: "req") })
        #expect(Set(ids).count == ids.count)
        // Every one of the 20 random characters varies (a position fed by too few random bits would not).
        for position in 4..<24 {
            let seen = Set(ids.map { Array($0.utf8)[position] })
            #expect(seen.count == 32, "position \(position) took only \(seen.count) of 32 values")
        }
    }

    @Test(arguments: [(0.0, "0.000"), (0.4125, "0.413"), (12.05, "12.050"), (1500.0, "1500.000")])
    func accessLogDurationsHaveThreeDecimals(_ milliseconds: Double, _ text: String) {
        #expect(ServerCore.format(milliseconds) == text)
    }
}
