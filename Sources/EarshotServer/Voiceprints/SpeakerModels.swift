import EarshotCore
import EarshotDiarization
import Foundation

/// The server's one speaker-embedding model, loaded on first use and shared by the task workers and voiceprint
/// enrolment.
///
/// Loading reads the converted Resemblyzer weights (`<model-home>/models/resemblyzer-0.1.4.eswt`, 17 MB, installed
/// by `make setup`); a missing file is reported to the caller (``DiarizationError`` `.weightsMissing`, 503 on the
/// API) and retried on the next call, so installing the weights needs no restart.
actor SpeakerModels {
    private let home: ModelHome
    private var loaded: SpeakerAttribution?

    /// The models under `home` (the server's `model-home`).
    init(home: ModelHome) {
        self.home = home
    }

    /// The shared attribution (Silero speech regions, Resemblyzer embeddings).
    func attribution() throws(DiarizationError) -> SpeakerAttribution {
        if let loaded { return loaded }
        let attribution = SpeakerAttribution(
            embedder: try ResemblyzerEmbedder(weightsURL: home.speakerWeights), modelHome: home)
        loaded = attribution
        return attribution
    }
}
