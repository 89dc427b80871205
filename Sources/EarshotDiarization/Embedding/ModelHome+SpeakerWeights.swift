public import EarshotCore
public import Foundation

extension ModelHome {
    /// File name of the converted Resemblyzer 0.1.4 weights (installed by `scripts/setup-diarization`).
    public static let speakerWeightsFile = "resemblyzer-0.1.4.eswt"

    /// `HOME/models/resemblyzer-0.1.4.eswt`, the speaker-embedding weights ``ResemblyzerEmbedder`` loads.
    public var speakerWeights: URL { URL(fileURLWithPath: model(Self.speakerWeightsFile)) }
}
