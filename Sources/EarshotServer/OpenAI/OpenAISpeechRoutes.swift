import EarshotAPI
import EarshotHTTP
import EarshotVoice

/// OpenAI-compatible `POST /v1/audio/speech`: JSON in (``OpenAISpeechRequest``), audio out (``SpeechEncoding``),
/// with a partner token as Bearer — the credential of `/v1/audio/transcriptions`. An unmodified OpenAI client
/// (`client.audio.speech.create(...)`) works with its base URL set to `<server>/v1`.
///
/// The speech comes from the configured provider (`speech-provider`: espeak-ng, or another OpenAI-compatible
/// server). At most `speech-concurrency` syntheses run at once, as many more wait up to 30 s, the rest are answered
/// 429 `RATE_LIMITED` with `Retry-After` (``DecodeAdmission``, its own slots: speech never waits behind decodes).
struct OpenAISpeechRoutes: Sendable {
    let synthesizer: any SpeechSynthesizer
    let admission: DecodeAdmission

    func register(on routes: APIRoutes) {
        routes.post(APIPath.openAISpeech, .partner) { request, _, _ in
            let parsed = try OpenAISpeechRequest(request.decode(OpenAISpeechRequest.Body.self))
            // Synthesis and encoding both hold the slot, so `speech-concurrency` bounds the CPU the route uses.
            let audio = try await admission.run { [synthesizer] in
                let speech = try await synthesizer.synthesize(parsed.speech)
                return try await SpeechEncoding.encodeOffPool(speech, as: parsed.format)
            }
            return Response.bytes(audio, contentType: parsed.format.contentType)
        }
    }
}
