import EarshotVoice
import Foundation

extension ServerConfiguration {
    /// The speech synthesizer `speech-provider` names: espeak-ng as a child process, or an OpenAI-compatible
    /// `/v1/audio/speech` server asked for 24 kHz PCM.
    func makeSynthesizer() -> any SpeechSynthesizer {
        if speechProvider != "espeak", let url = URL(string: speechProvider) {
            return OpenAISpeechSynthesizer(
                configuration: .init(
                    baseURL: url, apiKey: speechAPIKey, model: speechModel, format: .pcm,
                    concurrency: speechConcurrency))
        }
        return EspeakSynthesizer(
            configuration: .init(
                executable: speechEspeakPath, concurrency: speechConcurrency, maxDuration: speechMaxDuration))
    }
}
