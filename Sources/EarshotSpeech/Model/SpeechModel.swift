internal import CWhisper
import Foundation

/// A Whisper model in whisper.cpp's ggml format, loaded once and shared by every decode.
///
/// The model holds only the weights and vocabulary (`whisper_init_from_file_with_params_no_state`); each decode
/// brings its own state from a ``DecodeStatePool``, so one model serves many concurrent transcriptions.
/// Loading reads the whole file (≈ 80 MB for base q8_0, ≈ 1 s); keep one instance per file for the process.
public final class SpeechModel: @unchecked Sendable {
    // SAFETY: `context` is written once in `init` and freed in `deinit`. After loading, whisper.cpp only reads
    // the context (weights, vocabulary, hyper-parameters) in every `*_with_state` call, and every mutable
    // per-decode structure lives in a `whisper_state` owned by exactly one decode at a time.

    /// Options for loading a model.
    public struct Configuration: Sendable, Hashable {
        /// Use flash attention (whisper.cpp's default, and ours) when the library is patched to mask its padding
        /// (``libraryMasksAttentionPadding``; decision 0017). Measured on the bench's long-form file: WER 0.101
        /// against 0.104 without it, 1.08× the speed (9.4 against 8.7 ×RT), 363 against 443 MB peak RSS, short clips
        /// 0.48 against 0.58 s (`make bench-asr`, docs/speech.md).
        public var flashAttention: Bool = true

        /// Default options.
        public init() {}
    }

    /// The file the model was loaded from.
    public let path: String
    /// Whether the model knows many languages (false for `*.en` models, which always transcribe English).
    public let isMultilingual: Bool
    /// whisper.cpp's size name: `tiny`, `base`, `small`, `medium`, `large`.
    public let sizeName: String
    /// Number of mel bins the encoder expects (80, or 128 for large-v3).
    public let melBins: Int
    /// Encoder positions in one 30 s window (1500 for every Whisper model).
    public let audioContext: Int
    /// Vocabulary size.
    public let vocabularySize: Int
    /// Whether the model was loaded with flash attention.
    public let flashAttention: Bool

    /// Whether the whisper.cpp library in this process carries Earshot's patch (scripts/patches, decision 0017).
    /// Unpatched, flash attention attends over padding that holds what an earlier decode left there, so a
    /// transcript depends on its state's history; models then load without flash attention.
    public static let libraryMasksAttentionPadding: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        return dlsym(process, "earshot_whisper_masks_attention_padding") != nil
    }()

    let context: OpaquePointer

    /// Loads the model at `path`.
    ///
    /// - Throws: ``SpeechError`` `.modelNotFound` if the file is missing or unreadable, `.invalidModel` if
    ///   whisper.cpp cannot load it (wrong format or truncated file).
    public init(path: String, configuration: Configuration = Configuration()) throws(SpeechError) {
        WhisperLog.install()
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SpeechError(
                .modelNotFound,
                "model file not found or unreadable: \(path) (run `make setup` or `earshot models` to install models)")
        }
        var parameters = whisper_context_default_params()
        parameters.use_gpu = false
        let flashAttention = configuration.flashAttention && Self.libraryMasksAttentionPadding
        parameters.flash_attn = flashAttention
        guard let context = whisper_init_from_file_with_params_no_state(path, parameters) else {
            throw SpeechError(
                .invalidModel,
                "whisper.cpp could not load \(path): not a ggml Whisper model, or the file is truncated"
                    + (WhisperLog.lastError.map { " (\($0))" } ?? ""))
        }
        self.context = context
        self.path = path
        self.isMultilingual = whisper_is_multilingual(context) != 0
        self.sizeName = String(cString: whisper_model_type_readable(context))
        self.melBins = Int(whisper_model_n_mels(context))
        self.audioContext = Int(whisper_model_n_audio_ctx(context))
        self.vocabularySize = Int(whisper_model_n_vocab(context))
        self.flashAttention = flashAttention
    }

    deinit { whisper_free(context) }

    /// Whether `code` (`en`, `de`, `zh`, …) is a language Whisper knows.
    public static func isKnownLanguage(_ code: String) -> Bool { whisper_lang_id(code) >= 0 }

    /// Every language code Whisper knows, in its id order.
    public static var languageCodes: [String] {
        (0...whisper_lang_max_id()).compactMap { whisper_lang_str($0).map { String(cString: $0) } }
    }
}
