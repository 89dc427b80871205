import EarshotAudio
import EarshotCore
import EarshotLive
import EarshotVoice

/// Speaks a dialogue's translations (``LiveSpeaker``) through the server's speech provider (`speech-provider`:
/// espeak-ng as a child process, or an OpenAI-compatible server), resampled with libswresample to the session's
/// output rate. The provider bounds its own concurrency (`speech-concurrency`); a live session waits its turn rather
/// than being refused, since its client is already waiting for the speech.
struct LiveVoice: LiveSpeaker {
    let synthesizer: any SpeechSynthesizer

    func validate(voice: String, language: String) async throws {
        guard StandardVoice.named(voice) != nil else {
            throw PlatformError.invalidArgument(
                "voice \"\(voice.prefix(32))\" is not offered; use one of \(StandardVoice.list)")
        }
    }

    func speak(_ text: String, language: String, voice: String, sampleRate: Int) async throws -> [UInt8] {
        let speech = try await synthesizer.synthesize(SpeechRequest(text: text, language: language, voice: voice))
        guard speech.sampleRate != sampleRate else { return [UInt8](PCM16.bytes(speech.samples)) }
        let resampler = try PCMResampler(inputRate: speech.sampleRate, outputRate: sampleRate)
        let samples = try resampler.convert([UInt8](PCM16.bytes(speech.samples))) + resampler.flush()
        return [UInt8](PCM16.bytes(samples))
    }
}
