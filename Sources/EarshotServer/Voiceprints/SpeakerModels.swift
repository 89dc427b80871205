import EarshotDiarization
import Foundation

/// The server's one speaker-embedding model, loaded on first use and shared by the task workers and voiceprint
/// enrolment.
///
/// Loading reads the converted Resemblyzer weights (`$EARSHOT_HOME/models/resemblyzer-0.1.4.eswt`, 17 MB, installed
/// by `make setup`); a missing file is reported to the caller (``DiarizationError`` `.weightsMissing`, 503 on the
/// API) and retried on the next call, so installing the weights needs no restart.
actor SpeakerModels {
    private let weightsURL: URL
    private var loaded: SpeakerAttribution?

    init(weightsURL: URL = ResemblyzerEmbedder.defaultWeightsURL) {
        self.weightsURL = weightsURL
    }

    /// The shared attribution (Silero speech regions, Resemblyzer embeddings).
    func attribution() throws(DiarizationError) -> SpeakerAttribution {
        if let loaded { return loaded }
        let attribution = SpeakerAttribution(embedder: try ResemblyzerEmbedder(weightsURL: weightsURL))
        loaded = attribution
        return attribution
    }
}
