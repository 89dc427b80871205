import Foundation
import Testing

@testable import EarshotModels

/// The computed filterbank against OpenAI's shipped `mel_filters.npz` (librosa's Slaney filters).
@Suite struct MelFilterbankTests {
    @Test func knownValuesOf80BandFilters() {
        let filters = MelFilterbank(melCount: 80)
        #expect(filters.binCount == 201)
        #expect(filters.weights.count == 80 * 201)
        // Values read from mel_filters.npz (mel_80) with NumPy.
        #expect(abs(filters.weights[1] - 0.024862595) < 1e-9)
        #expect(filters.weights[10 * 201 + 20] == 0)
        #expect(abs(filters.weights[79 * 201..<80 * 201].max()! - 0.0031647119) < 1e-9)
        let sum = filters.weights.reduce(0.0) { $0 + Double($1) }
        #expect(abs(sum - 1.999024092387117) < 1e-6)
    }

    @Test(
        .enabled(if: RealHome.assetsPresent, RealHome.assetsSkipReason),
        .enabled(if: output(of: "unzip", ["-v"]) != nil, "unzip is not installed"),
        arguments: [80, 128])
    func equalsOpenAIFiltersWithin1e6(melCount: Int) throws {
        let npy = try #require(
            output(of: "unzip", ["-p", RealHome.assets + "/mel_filters.npz", "mel_\(melCount).npy"]))
        let reference = try #require(numpyFloats(npy))
        #expect(reference.shape == [melCount, 201])
        let computed = MelFilterbank(melCount: melCount).weights
        #expect(computed.count == reference.values.count)
        let worst = zip(computed, reference.values).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst <= 1e-6, "largest difference \(worst)")
    }
}
