public import Foundation
import Synchronization

/// Decodes an audio file of any supported format (WAV in any PCM flavour, MP3, M4A/AAC, FLAC, Ogg/Opus,
/// Ogg/Vorbis, WebM/Opus, raw PCM) to 16 kHz mono `Float` samples in [-1, 1], with FFmpeg's libraries.
///
/// Output is streamed: ``read(into:maxSamples:)`` (blocking pull) and ``chunks(maxSamples:)`` (async, decoding on
/// the decoder's own dispatch queue, never on Swift's cooperative pool) hold at most one chunk plus one decoded
/// packet in memory, however long the file. ``decodeAll()`` collects everything, up to a configurable cap.
/// Channels are averaged (LFE excluded); resampling uses libswresample's windowed-sinc resampler.
///
/// Thread-safety: all methods may be called from any thread; calls are serialised by an internal lock, so two
/// readers of one decoder see disjoint parts of the stream. FFmpeg's objects are freed when the decoder is
/// released.
///
/// Damage: packets the codec rejects are skipped and counted in ``report``. A file that ends well before the
/// length its header declares is *truncated*: every sample up to the break is delivered, then the next read throws
/// ``AudioError/Code/truncated`` — unless ``Configuration/allowTruncated`` is set, in which case the stream just
/// ends and ``report`` says `isTruncated`.
public final class AudioDecoder: Sendable {
    /// The output sample rate, always 16 kHz.
    public static let sampleRate = 16_000

    /// Options for a decoder.
    public struct Configuration: Sendable {
        /// End a truncated stream normally (reporting it in ``AudioDecoder/report``) instead of throwing
        /// ``AudioError/Code/truncated`` after the last sample. Default false.
        public var allowTruncated: Bool
        /// The longest audio ``AudioDecoder/decodeAll()`` will collect; longer files must be streamed with
        /// ``AudioDecoder/chunks(maxSamples:)``. Default one hour (230 MB of `Float`s).
        public var maxDecodeAllDuration: Duration

        public init(allowTruncated: Bool = false, maxDecodeAllDuration: Duration = .seconds(3600)) {
            self.allowTruncated = allowTruncated
            self.maxDecodeAllDuration = maxDecodeAllDuration
        }
    }

    /// What probing the file found (container, codec, native rate and channels, declared duration).
    public let info: AudioInfo
    /// The options this decoder was opened with.
    public let configuration: Configuration
    /// The file being decoded.
    public let url: URL

    private let state: Mutex<DecoderState>
    /// The serial queue that async reads run on (GCD threads, not the cooperative pool).
    let queue = DispatchQueue(label: "earshot.audio.decoder", qos: .userInitiated)

    /// Opens and probes a file; the container is detected from its content, not its name.
    ///
    /// Blocking (reads the file's header and, for some formats, its first seconds); from async code prefer
    /// ``open(contentsOf:configuration:)``.
    /// - Throws: ``AudioError`` — `.notFound`, `.empty` (0 bytes), `.unsupportedFormat` (not audio, no audio
    ///   stream, no decoder; the message has a conversion command), `.corrupted` (recognised but unreadable),
    ///   `.io`.
    public init(contentsOf url: URL, configuration: Configuration = Configuration()) throws(AudioError) {
        self.url = url
        self.configuration = configuration
        let decoder = try DecoderState(
            path: url.path, inputFormat: nil, demuxerOptions: [], allowTruncated: configuration.allowTruncated)
        info = decoder.info
        state = Mutex(decoder)
    }

    /// Opens a headerless PCM file whose layout the caller knows (sample rate, channel count, sample format).
    ///
    /// A trailing partial sample frame is ignored.
    /// - Throws: ``AudioError`` — `.invalidArgument` for a rate outside 1 Hz…768 kHz or a channel count outside
    ///   1…64, and the errors of ``init(contentsOf:configuration:)``.
    public init(
        rawPCM url: URL, sampleRate: Int, channels: Int, format: RawPCMFormat,
        configuration: Configuration = Configuration()
    ) throws(AudioError) {
        guard (1...768_000).contains(sampleRate) else {
            throw AudioError(.invalidArgument, "raw PCM sample rate \(sampleRate) Hz is out of range (1…768000)")
        }
        guard (1...64).contains(channels) else {
            throw AudioError(.invalidArgument, "raw PCM channel count \(channels) is out of range (1…64)")
        }
        self.url = url
        self.configuration = configuration
        let decoder = try DecoderState(
            path: url.path, inputFormat: format.rawValue,
            demuxerOptions: [("sample_rate", "\(sampleRate)"), ("ch_layout", "\(channels)c")],
            allowTruncated: configuration.allowTruncated)
        info = decoder.info
        state = Mutex(decoder)
    }

    /// Opens and probes a file on the decoder queue, keeping the blocking probe off Swift's cooperative pool.
    public static func open(
        contentsOf url: URL, configuration: Configuration = Configuration()
    ) async throws -> AudioDecoder {
        try await offPool { () throws(AudioError) in try AudioDecoder(contentsOf: url, configuration: configuration) }
    }

    /// How decoding has gone so far (samples delivered, damaged packets skipped, truncation once at the end).
    public var report: DecodeReport { state.withLock { $0.report } }

    /// Decodes up to `maxSamples` more 16 kHz mono samples and appends them to `buffer`.
    ///
    /// Blocking: decodes as many packets as needed (a few ms for 30 s of MP3). Call it from a thread of your own,
    /// or use ``chunks(maxSamples:)`` from async code.
    /// - Returns: the number of samples appended; 0 only at the end of the stream. Fewer than `maxSamples` are
    ///   returned only at the end.
    /// - Throws: ``AudioError`` — `.truncated` (after the last good sample), `.empty`, `.corrupted`, `.failed`.
    @discardableResult
    public func read(into buffer: inout [Float], maxSamples: Int) throws(AudioError) -> Int {
        guard maxSamples > 0 else { throw AudioError(.invalidArgument, "maxSamples must be positive") }
        return try state.withLock { decoder throws(AudioError) in
            try decoder.read(into: &buffer, maxSamples: maxSamples, stop: nil)
        }
    }

    /// Decodes the whole stream into one array, refusing audio longer than
    /// ``Configuration/maxDecodeAllDuration`` (checked against the declared duration first, then while decoding).
    ///
    /// Blocking; from async code use ``decodeAll()-swift.method`` (the async overload).
    /// - Throws: ``AudioError`` — `.tooLong` with a hint to stream instead, and the errors of
    ///   ``read(into:maxSamples:)``.
    public func decodeAll() throws(AudioError) -> [Float] {
        try collectAll(stop: nil)
    }

    /// Decodes the whole stream into one array on the decoder queue; checks for cancellation between packets.
    /// - Throws: `CancellationError`, or the errors of the blocking ``decodeAll()-swift.method``.
    public func decodeAll() async throws -> [Float] {
        let flag = CancellationFlag()
        let samples = try await withTaskCancellationHandler {
            try await Self.offPool(on: queue) { () throws(AudioError) in
                try self.collectAll(stop: flag)
            }
        } onCancel: {
            flag.set()
        }
        if flag.isSet { throw CancellationError() }
        return samples
    }

    private func collectAll(stop: CancellationFlag?) throws(AudioError) -> [Float] {
        let limit = Int(configuration.maxDecodeAllDuration / .seconds(1) * Double(Self.sampleRate))
        let streamHint = "stream it with AudioDecoder.chunks(maxSamples:) instead, or raise maxDecodeAllDuration"
        if let declared = info.duration, declared > configuration.maxDecodeAllDuration {
            throw AudioError(
                .tooLong,
                "\(url.path) is \(Self.minutes(declared)) long, more than the \(Self.minutes(configuration.maxDecodeAllDuration)) "
                    + "decodeAll() accepts; \(streamHint)")
        }
        var samples: [Float] = []
        if let declared = info.duration {
            samples.reserveCapacity(min(limit, Int(declared / .seconds(1) * Double(Self.sampleRate)) + 1_024))
        }
        try state.withLock { decoder throws(AudioError) in
            while stop?.isSet != true {
                let count = try decoder.read(into: &samples, maxSamples: 65_536, stop: stop)
                if count == 0 { break }
                if samples.count > limit {
                    throw AudioError(
                        .tooLong,
                        "\(url.path) decodes to more than the \(Self.minutes(configuration.maxDecodeAllDuration)) "
                            + "decodeAll() accepts; \(streamHint)")
                }
            }
        }
        return samples
    }

    /// Reads one chunk on the decoder queue, stopping between packets when the task is cancelled.
    func nextChunk(maxSamples: Int) async throws -> [Float] {
        let flag = CancellationFlag()
        let chunk = try await withTaskCancellationHandler {
            try await Self.offPool(on: queue) { () throws(AudioError) in
                try self.state.withLock { decoder throws(AudioError) in
                    var chunk: [Float] = []
                    chunk.reserveCapacity(maxSamples)
                    _ = try decoder.read(into: &chunk, maxSamples: maxSamples, stop: flag)
                    return chunk
                }
            }
        } onCancel: {
            flag.set()
        }
        if flag.isSet { throw CancellationError() }
        return chunk
    }

    private static func minutes(_ duration: Duration) -> String {
        let seconds = duration / .seconds(1)
        return seconds >= 60 ? String(format: "%.1f min", seconds / 60) : String(format: "%.1f s", seconds)
    }

    private static let openQueue = DispatchQueue(
        label: "earshot.audio.open", qos: .userInitiated, attributes: .concurrent)

    /// Runs blocking work on a dispatch queue and resumes the caller with its result.
    static func offPool<T: Sendable>(
        on queue: DispatchQueue = openQueue, _ work: @escaping @Sendable () throws(AudioError) -> sending T
    ) async throws(AudioError) -> T {
        let result: Result<T, AudioError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(AudioError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}

/// A flag set by a task-cancellation handler and polled by blocking decode loops between packets.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
