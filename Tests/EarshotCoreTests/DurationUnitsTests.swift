import EarshotCore
import Testing

/// The one conversion of a `Duration` into seconds, milliseconds and sample counts.
@Suite struct DurationUnitsTests {
    @Test func secondsAndMilliseconds() {
        #expect(Duration.milliseconds(1_500).seconds == 1.5)
        #expect(Duration.milliseconds(1_500).milliseconds == 1_500)
        #expect(Duration.microseconds(999).milliseconds == 0)
    }

    @Test func samplesAtARateRoundTowardZero() {
        #expect(Duration.seconds(1).samples(atRate: 16_000) == 16_000)
        #expect(Duration.milliseconds(100).samples(atRate: 16_000) == 1_600)
        #expect(Duration.milliseconds(100).samples(atRate: 24_000) == 2_400)
        #expect(Duration.milliseconds(6_500).samples(atRate: 44_100) == 286_650)
        // A third of a second as a Duration is a few attoseconds short of it: one sample short at 48 kHz.
        #expect((Duration.seconds(1) / 3).samples(atRate: 48_000) == 15_999)
        #expect(Duration.nanoseconds(20_833).samples(atRate: 48_000) == 0)
        #expect(Duration.nanoseconds(20_834).samples(atRate: 48_000) == 1)
        #expect(Duration.seconds(3_600).samples(atRate: 48_000) == 172_800_000)
    }
}
