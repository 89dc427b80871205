import Dispatch
public import EarshotAudio
import EarshotCore
public import EarshotModels
public import Foundation

/// Transcribes audio files the way every entry point does (`earshot transcribe`, `earshot eval`, the server's
/// task workers): resolves a model argument, decodes the file with EarshotAudio, runs the shared engine.
///
/// - A model argument is a tier (`asr-fast`, `asr-pro`: model + decoding settings from ``ModelTier``), a
///   catalog name (`base-q8_0`…) or the path of any whisper.cpp ggml file (see `ModelStore.resolve`).
/// - Each model file is loaded once and shared by all decodes through one ``SpeechEngine`` per file.
/// - Any format EarshotAudio reads (wav, mp3, m4a/aac, flac, ogg/opus, webm) plus headerless 16 kHz mono
///   s16le `.raw`/`.pcm` files. WAV files are checked against the compliance tiers first: a refused WAV throws
///   with the conversion command; a convertible one is converted and its warnings returned.
///
/// An actor: safe to share. Decoding audio runs off the cooperative pool; transcription runs on the engine's
/// own threads.
public actor FileTranscriber {
    /// Settings shared by every file.
    public struct Configuration: Sendable {
        /// Where models are found: the whisper models and, under the same ``ModelHome``, the Silero VAD model
        /// (the process's home, `$EARSHOT_HOME`, by default).
        public var models: ModelStore
        /// Decodes that may run at once per loaded model.
        public var concurrentDecodes: Int
        /// Compute threads per decode (nil: every core).
        public var threadsPerDecode: Int?
        /// Accept a file whose end is missing (a recorder cut off mid-write), transcribing what is there.
        public var allowTruncatedAudio: Bool

        public init(
            models: ModelStore = ModelStore(), concurrentDecodes: Int = 1,
            threadsPerDecode: Int? = nil, allowTruncatedAudio: Bool = false
        ) {
            self.models = models
            self.concurrentDecodes = concurrentDecodes
            self.threadsPerDecode = threadsPerDecode
            self.allowTruncatedAudio = allowTruncatedAudio
        }
    }

    /// A file decoded and ready to transcribe.
    public struct PreparedAudio: Sendable {
        /// 16 kHz mono samples.
        public let samples: [Float]
        /// What the decoder found about the file.
        public let info: AudioInfo
        /// Non-fatal findings (a WAV that had to be converted, a truncated file accepted), for the user.
        public let warnings: [String]
    }

    public let configuration: Configuration
    private var engines: [String: SpeechEngine] = [:]
    private var loading: [String: Task<SpeechEngine, any Error>] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The engine for `model` (loaded on first use) and `options` with the tier's decoding settings applied.
    ///
    /// Loading reads the whole model file (~80 MB, about a second): it runs on a dispatch queue, never on the
    /// cooperative pool, and concurrent first calls for one file share a single load.
    ///
    /// - Throws: `ModelError` for an unknown name or a file that is not a ggml model (the message says what it is
    ///   and how to fix it); ``SpeechError`` when whisper.cpp cannot load the file.
    public func engine(for model: String, options: TranscriptionOptions = TranscriptionOptions()) async throws
        -> (engine: SpeechEngine, options: TranscriptionOptions, model: ResolvedModel)
    {
        let resolved = try configuration.models.resolve(model)
        let options = resolved.tier.map { options.applying($0) } ?? options
        let path = resolved.path
        if let engine = engines[path] { return (engine, options, resolved) }
        if let pending = loading[path] { return (try await pending.value, options, resolved) }
        let engineConfiguration = SpeechEngine.Configuration(
            concurrentDecodes: configuration.concurrentDecodes, threadsPerDecode: configuration.threadsPerDecode,
            voiceActivityModelPath: configuration.models.modelHome.voiceActivityModel)
        let load = Task<SpeechEngine, any Error> {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    do {
                        let model = try SpeechModel(path: path)
                        continuation.resume(returning: SpeechEngine(model: model, configuration: engineConfiguration))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        loading[path] = load
        defer { loading[path] = nil }
        let engine = try await load.value
        engines[path] = engine
        return (engine, options, resolved)
    }

    /// Waits until every decode of every loaded engine has ended (see ``DecodeStatePool/waitUntilIdle(timeout:)``),
    /// or `timeout` passes; returns whether they all ended. Call it after cancelling the work, before exiting.
    public func waitForDecodes(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        for engine in engines.values {
            guard await engine.pool.waitUntilIdle(timeout: max(deadline - ContinuousClock.now, .zero)) else {
                return false
            }
        }
        return true
    }

    /// Decodes `file` to 16 kHz mono, applying the WAV tiers.
    ///
    /// - Parameters:
    ///   - type: the file's type (`wav`, `mp3`, `raw`…) when its name does not say it (a stored upload); nil to use
    ///     the name's extension. A file whose header says RIFF/WAVE gets the WAV tiers whatever its name.
    ///   - displayName: how messages name the file, and the input of the conversion command a refused WAV gets
    ///     (the user's own file name when `file` is a server-side copy); nil for `file`'s path.
    /// - Throws: `AudioError` (unsupported, corrupted, truncated, empty files, refused WAVs with the conversion
    ///   command); `CancellationError`.
    public nonisolated func prepareAudio(_ file: URL, type: String? = nil, displayName: String? = nil) async throws
        -> PreparedAudio
    {
        let (decoder, opened) = try await openAudio(file, type: type, displayName: displayName)
        var warnings = opened
        let samples = try await decoder.decodeAll()
        if decoder.report.isTruncated {
            warnings.append("the file ends early (truncated); transcribed the \(samples.count / 16) ms that are there")
        }
        return PreparedAudio(samples: samples, info: decoder.info, warnings: warnings)
    }

    /// Opens `file` for decoding as ``prepareAudio(_:type:displayName:)`` does (WAV tiers first, raw PCM by type)
    /// without decoding it: for streaming long audio in windows (`AudioDecoder.chunks(maxSamples:)`), with memory
    /// bounded by the window instead of the recording.
    ///
    /// - Returns: the decoder and the WAV tiers' warnings.
    /// - Throws: `AudioError` as ``prepareAudio(_:type:displayName:)``.
    public nonisolated func openAudio(_ file: URL, type: String? = nil, displayName: String? = nil) async throws
        -> (decoder: AudioDecoder, warnings: [String])
    {
        var warnings: [String] = []
        let decoder: AudioDecoder
        let audioConfiguration = AudioDecoder.Configuration(allowTruncated: configuration.allowTruncatedAudio)
        let kind = (type ?? file.pathExtension).lowercased()
        if kind == "raw" || kind == "pcm" {
            decoder = try AudioDecoder(
                rawPCM: file, sampleRate: AudioDecoder.sampleRate, channels: 1, format: .s16le,
                configuration: audioConfiguration)
        } else {
            if kind == "wav" || kind == "wave" || WAVInspector.looksLikeWAV(file) {
                let inspection = try WAVInspector.inspect(file)
                if case .refused(let reason, let command) = inspection.tier {
                    let shown = displayName.map { ConversionCommand.toCompliantWAV(input: $0) } ?? command
                    throw AudioError(
                        .unsupportedFormat, "\(displayName ?? file.path): \(reason); convert it with: \(shown)")
                }
                warnings += inspection.warnings
            }
            decoder = try await AudioDecoder.open(contentsOf: file, configuration: audioConfiguration)
        }
        return (decoder, warnings)
    }
}
