internal import CFFmpeg
import EarshotCore
import Foundation

/// The FFmpeg objects of one open file and the decode loop over them: demux a packet, decode its frames,
/// resample and downmix each frame to 16 kHz mono `Float`, queue the result in `pending`.
///
/// Not thread-safe; ``AudioDecoder`` keeps it behind a mutex. Frees every FFmpeg object in `deinit`.
final class DecoderState {
    static let outputRate: Int32 = 16_000

    private enum Phase { case reading, flushingDecoder, flushingResampler, done }

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var streamIndex: Int32
    private let path: String
    private let allowTruncated: Bool

    /// The input the current resampler was built for; a change mid-stream (a concatenated MP3 switching sample
    /// rate) rebuilds it.
    private var resamplerInput: (format: Int32, rate: Int32, channels: Int32)?
    private var pending: [Float] = []
    private var pendingStart = 0
    private var phase = Phase.reading
    private var finalError: AudioError?
    private var readFailure: Int32?
    private var framesDecoded = 0
    private(set) var report: DecodeReport

    private(set) var info: AudioInfo

    /// Opens `path` with an optional forced demuxer (raw PCM) and its options; probes the best audio stream and
    /// opens its decoder.
    init(
        path: String, inputFormat: String?, demuxerOptions: [(String, String)], allowTruncated: Bool
    ) throws(AudioError) {
        self.path = path
        self.allowTruncated = allowTruncated
        try Self.checkFile(path)

        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        if inputFormat == nil { av_dict_set(&options, "format_whitelist", Self.acceptedContainers, 0) }
        for (key, value) in demuxerOptions { av_dict_set(&options, key, value, 0) }
        var forced: UnsafePointer<AVInputFormat>?
        if let inputFormat {
            forced = try check(
                av_find_input_format(inputFormat), "av_find_input_format", as: .unsupportedFormat,
                "opening \(path) as raw \(inputFormat)")
        }

        var opened: UnsafeMutablePointer<AVFormatContext>?
        let openResult = avformat_open_input(&opened, "file:" + path, forced, &options)
        guard openResult >= 0, let opened else { throw Self.openError(openResult, path: path) }
        format = opened
        // From here on `deinit` frees what has been allocated if a later step throws.
        streamIndex = -1
        info = AudioInfo(container: "", codec: "", sampleRate: 0, channels: 0, sampleFormat: "")
        report = DecodeReport(samplesDelivered: 0, damagedPackets: 0, isTruncated: false, isFinished: false)

        try check(
            avformat_find_stream_info(opened, nil), "avformat_find_stream_info", as: .corrupted,
            "reading stream parameters of \(path) (the file is damaged or truncated)")
        var decoder: UnsafePointer<AVCodec>?
        let found = av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        if found == earshot_averror_stream_not_found() {
            throw AudioError(
                .unsupportedFormat,
                "\(path) contains no audio stream (\(Self.containerName(opened))); upload a recording with sound")
        }
        if found == earshot_averror_decoder_not_found() {
            let audio = av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
            let name =
                audio >= 0
                ? String(
                    cString: avcodec_get_name(opened.pointee.streams[Int(audio)]!.pointee.codecpar.pointee.codec_id))
                : "of this file"
            throw AudioError(
                .unsupportedFormat,
                "\(path): the audio codec \(name) cannot be decoded by this FFmpeg build; convert it with: "
                    + ConversionCommand.toCompliantWAV(input: path))
        }
        try check(found, "av_find_best_stream", "finding the audio stream of \(path)")
        let stream = opened.pointee.streams[Int(found)]!
        for index in 0..<Int(opened.pointee.nb_streams) where index != Int(found) {
            opened.pointee.streams[index]!.pointee.discard = AVDISCARD_ALL
        }

        let context = try check(avcodec_alloc_context3(decoder), "avcodec_alloc_context3", "decoding \(path)")
        codec = context
        let parameters = stream.pointee.codecpar!
        try check(
            avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context", "decoding \(path)")
        context.pointee.pkt_timebase = stream.pointee.time_base
        context.pointee.thread_count = 1
        try check(
            avcodec_open2(context, decoder, nil), "avcodec_open2", as: .unsupportedFormat,
            "opening the \(String(cString: avcodec_get_name(parameters.pointee.codec_id))) decoder for \(path)")
        packet = try check(av_packet_alloc(), "av_packet_alloc", "decoding \(path)")
        frame = try check(av_frame_alloc(), "av_frame_alloc", "decoding \(path)")

        let probed = Self.describe(opened, stream: stream, codec: context)
        var expected: Int?
        if av_fmt_ctx_get_duration_estimation_method(opened) != AVFMT_DURATION_FROM_BITRATE,
            let duration = probed.duration
        {
            expected = duration.samples(atRate: 16_000)
        }
        if probed.container == "wav" { expected = Self.declaredWAVLength(path) ?? expected }
        streamIndex = found
        info = probed
        report.expectedSamples = expected
    }

    /// FFmpeg's WAV demuxer trusts the file size over a larger declared data size, so a cut WAV would look
    /// complete; the header's own data size (in 16 kHz samples) tells the truth.
    private static func declaredWAVLength(_ path: String) -> Int? {
        guard let inspection = try? WAVInspector.inspect(URL(fileURLWithPath: path)),
            let format = inspection.format, format.sampleRate > 0, format.frameCount > 0
        else { return nil }
        return Int(format.frameCount * 16_000 / Int64(format.sampleRate))
    }

    deinit {
        if resampler != nil { swr_free(&resampler) }
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
        if codec != nil { avcodec_free_context(&codec) }
        if format != nil { avformat_close_input(&format) }
    }

    // MARK: Reading

    /// Appends up to `maxSamples` samples to `output`; returns how many (0 = end of stream). Throws the final
    /// error (truncated, empty, corrupted) only once every decoded sample has been handed out.
    func read(into output: inout [Float], maxSamples: Int, stop: CancellationFlag?) throws(AudioError) -> Int {
        var appended = 0
        while appended < maxSamples {
            if pendingStart < pending.count {
                let take = min(maxSamples - appended, pending.count - pendingStart)
                output.append(contentsOf: pending[pendingStart..<(pendingStart + take)])
                pendingStart += take
                appended += take
                report.samplesDelivered += take
                if pendingStart == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    pendingStart = 0
                }
                continue
            }
            if phase == .done {
                if appended == 0, let finalError { throw finalError }
                return appended
            }
            if stop?.isSet == true { return appended }
            try step()
        }
        return appended
    }

    private func step() throws(AudioError) {
        switch phase {
        case .reading:
            let result = av_read_frame(format, packet)
            if result == earshot_averror_eof() {
                try flushDecoder()
            } else if result < 0 {
                if result == earshot_averror_enomem() {
                    try check(result, "av_read_frame", "reading \(path)")
                }
                readFailure = result
                try flushDecoder()
            } else {
                defer { av_packet_unref(packet) }
                guard packet!.pointee.stream_index == streamIndex else { return }
                let sent = avcodec_send_packet(codec, packet)
                if sent == earshot_averror_enomem() { try check(sent, "avcodec_send_packet", "decoding \(path)") }
                if sent < 0 { report.damagedPackets += 1 }
                try receiveFrames()
            }
        case .flushingDecoder:
            try receiveFrames()
            phase = .flushingResampler
        case .flushingResampler:
            if try !drainResampler() { finish() }
        case .done:
            return
        }
    }

    private func flushDecoder() throws(AudioError) {
        avcodec_send_packet(codec, nil)
        phase = .flushingDecoder
    }

    private func receiveFrames() throws(AudioError) {
        while true {
            let result = avcodec_receive_frame(codec, frame)
            if result == earshot_averror_eagain() || result == earshot_averror_eof() { return }
            if result == earshot_averror_enomem() { try check(result, "avcodec_receive_frame", "decoding \(path)") }
            if result < 0 {
                report.damagedPackets += 1
                return
            }
            defer { av_frame_unref(frame) }
            framesDecoded += 1
            try convert(frame!)
        }
    }

    // MARK: Resampling

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws(AudioError) {
        let input = (frame.pointee.format, frame.pointee.sample_rate, frame.pointee.ch_layout.nb_channels)
        guard input.1 > 0, input.2 > 0 else {
            report.damagedPackets += 1
            return
        }
        if let current = resamplerInput, current != input {
            while try drainResampler() {}
            swr_free(&resampler)
            resamplerInput = nil
        }
        if resampler == nil {
            resampler = try makeResampler(for: frame)
            resamplerInput = input
        }
        let count = frame.pointee.nb_samples
        let capacity = swr_get_out_samples(resampler, count) + 16
        let source = UnsafeMutableRawPointer(frame.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        try appendResampled(capacity: capacity) { output throws(AudioError) in
            var outputPlane: UnsafeMutablePointer<UInt8>? = output
            return try check(
                swr_convert(resampler, &outputPlane, capacity, source, count), "swr_convert",
                "resampling \(path)")
        }
    }

    /// Pulls what the resampler still holds (its filter delay); returns false when it gave nothing.
    private func drainResampler() throws(AudioError) -> Bool {
        guard let resampler else { return false }
        let capacity: Int32 = 4096
        var produced: Int32 = 0
        try appendResampled(capacity: capacity) { output throws(AudioError) in
            var outputPlane: UnsafeMutablePointer<UInt8>? = output
            produced = try check(
                swr_convert(resampler, &outputPlane, capacity, nil, 0), "swr_convert", "flushing the resampler")
            return produced
        }
        return produced > 0
    }

    private func appendResampled(
        capacity: Int32, _ body: (UnsafeMutablePointer<UInt8>) throws(AudioError) -> Int32
    ) throws(AudioError) {
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: Int(capacity)))
        let produced = try pending.withUnsafeMutableBufferPointer { buffer throws(AudioError) in
            try body(UnsafeMutableRawPointer(buffer.baseAddress! + start).assumingMemoryBound(to: UInt8.self))
        }
        pending.removeLast(Int(capacity) - Int(produced))
    }

    /// A resampler from the frame's format, rate and layout to 16 kHz mono `Float`, with a custom downmix matrix
    /// that averages the channels (LFE excluded) instead of FFmpeg's default −3 dB sum, so a full-scale stereo
    /// signal stays full scale and never clips.
    private func makeResampler(for frame: UnsafeMutablePointer<AVFrame>) throws(AudioError) -> OpaquePointer {
        var inputLayout = AVChannelLayout()
        defer { av_channel_layout_uninit(&inputLayout) }
        if earshot_channel_layout_is_unspecified(&frame.pointee.ch_layout) != 0 {
            av_channel_layout_default(&inputLayout, frame.pointee.ch_layout.nb_channels)
        } else {
            try check(
                av_channel_layout_copy(&inputLayout, &frame.pointee.ch_layout), "av_channel_layout_copy",
                "resampling \(path)")
        }
        var mono = AVChannelLayout()
        earshot_channel_layout_mono(&mono)
        var context: OpaquePointer?
        try check(
            swr_alloc_set_opts2(
                &context, &mono, AV_SAMPLE_FMT_FLT, Self.outputRate, &inputLayout,
                AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2", "resampling \(path)")
        guard let context else { throw AudioError(.failed, "resampling \(path): swr_alloc_set_opts2 gave no context") }
        var owned: OpaquePointer? = context
        do {
            // swr's own polyphase resampler: 32-tap windowed sinc, 1024 phases with linear interpolation between
            // them, cutoff at 97 % of the output Nyquist frequency.
            let raw = UnsafeMutableRawPointer(context)
            try check(av_opt_set_int(raw, "filter_size", 32, 0), "av_opt_set_int", "configuring the resampler")
            try check(av_opt_set_int(raw, "phase_shift", 10, 0), "av_opt_set_int", "configuring the resampler")
            try check(av_opt_set_int(raw, "linear_interp", 1, 0), "av_opt_set_int", "configuring the resampler")
            try check(av_opt_set_double(raw, "cutoff", 0.97, 0), "av_opt_set_double", "configuring the resampler")
            let channels = Int(inputLayout.nb_channels)
            let lfe = Int(av_channel_layout_index_from_channel(&inputLayout, AV_CHAN_LOW_FREQUENCY))
            let averaged = channels > 1 && lfe >= 0 ? channels - 1 : channels
            let matrix = (0..<channels).map { $0 == lfe && channels > 1 ? 0 : 1 / Double(averaged) }
            try check(swr_set_matrix(context, matrix, Int32(channels)), "swr_set_matrix", "downmixing \(path)")
            try check(swr_init(context), "swr_init", "resampling \(path)")
        } catch {
            swr_free(&owned)
            throw error
        }
        return context
    }

    // MARK: End of stream

    private func finish() {
        phase = .done
        report.isFinished = true
        let total = report.samplesDelivered + (pending.count - pendingStart)
        if total == 0 {
            if framesDecoded == 0 && (report.damagedPackets > 0 || readFailure != nil) {
                let why = readFailure.map { ffmpegErrorText($0) } ?? "every packet was rejected by the decoder"
                finalError = AudioError(
                    .corrupted,
                    "\(path) is damaged: no audio could be decoded (\(why)); re-export or re-upload the original "
                        + "recording")
            } else {
                finalError = AudioError(
                    .empty, "\(path) contains no audio samples (\(info.container)/\(info.codec) stream of length 0)")
            }
            return
        }
        var truncated = false
        var detail = ""
        if let readFailure {
            truncated = true
            detail = "reading stopped with \"\(ffmpegErrorText(readFailure))\""
        }
        if let expected = report.expectedSamples, expected - total > max(8_000, expected / 100) {
            truncated = true
            let declared = String(format: "%.2f", Double(expected) / 16_000)
            let found = String(format: "%.2f", Double(total) / 16_000)
            detail = "its header declares \(declared) s of audio but the data ends after \(found) s"
        }
        report.isTruncated = truncated
        if truncated && !allowTruncated {
            finalError = AudioError(
                .truncated,
                "\(path) is truncated: \(detail). The \(String(format: "%.2f", Double(total) / 16_000)) s before the "
                    + "break were decoded; upload the complete file, or accept partial audio "
                    + "(AudioDecoder.Configuration.allowTruncated)")
        }
    }
}
