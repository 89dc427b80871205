internal import CFFmpeg

/// Mono samples → a compressed audio file in memory with ffmpeg's encoders and muxers: MP3 (libmp3lame), AAC in
/// ADTS (ffmpeg's native encoder) or FLAC — what OpenAI's speech endpoint answers besides WAV, PCM and Opus.
///
/// ```swift
/// let mp3 = try AudioFileEncoder.encode(samples, sampleRate: 24_000, as: .mp3)
/// ```
///
/// One call encodes the whole input (speech replies are short); each call owns its codec and muxer contexts, so
/// calls may run on many threads at once.
public enum AudioFileEncoder {
    /// A container and codec.
    public enum Format: String, Sendable, CaseIterable {
        /// MPEG-1/2 Layer III through libmp3lame, 64 kb/s.
        case mp3
        /// AAC-LC in ADTS frames, 64 kb/s.
        case aac
        /// FLAC, lossless, 16-bit.
        case flac

        var encoderName: String {
            switch self {
            case .mp3: "libmp3lame"
            case .aac: "aac"
            case .flac: "flac"
            }
        }

        var muxerName: String {
            switch self {
            case .mp3: "mp3"
            case .aac: "adts"
            case .flac: "flac"
            }
        }
    }

    /// Encodes `samples` (mono, [-1, 1], at `sampleRate`) as `format`.
    ///
    /// - Throws: ``AudioError`` `.unsupportedFormat` when this ffmpeg lacks the encoder or the rate, `.failed` when a
    ///   libav call fails (naming it).
    public static func encode(_ samples: [Float], sampleRate: Int, as format: Format) throws(AudioError) -> [UInt8] {
        let context = "encoding \(format.rawValue)"
        let codec = try check(
            avcodec_find_encoder_by_name(format.encoderName), "avcodec_find_encoder_by_name", as: .unsupportedFormat,
            "\(context): this ffmpeg has no \(format.encoderName) encoder")
        var muxer: UnsafeMutablePointer<AVFormatContext>?
        try check(
            avformat_alloc_output_context2(&muxer, nil, format.muxerName, nil), "avformat_alloc_output_context2",
            as: .unsupportedFormat, context)
        guard let muxer else { throw AudioError(.failed, "\(context): avformat_alloc_output_context2 gave nothing") }
        var encoder = avcodec_alloc_context3(codec)
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        var output: UnsafeMutablePointer<UInt8>?
        defer {
            if let io = muxer.pointee.pb {
                // Closing the dynamic buffer hands its bytes over; free them if they were not taken.
                let size = avio_close_dyn_buf(io, &output)
                _ = size
                av_free(output)
            }
            avformat_free_context(muxer)
            avcodec_free_context(&encoder)
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        guard let encoder, let packet, let frame else {
            throw AudioError(.failed, "\(context): out of memory allocating the encoder")
        }
        let sampleFormat = try Self.sampleFormat(for: codec, context)
        encoder.pointee.sample_fmt = sampleFormat
        encoder.pointee.sample_rate = Int32(sampleRate)
        earshot_channel_layout_mono(&encoder.pointee.ch_layout)
        encoder.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if format != .flac { encoder.pointee.bit_rate = 64_000 }
        if muxer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            encoder.pointee.flags |= earshot_codec_flag_global_header()
        }
        try check(
            avcodec_open2(encoder, codec, nil), "avcodec_open2", as: .unsupportedFormat,
            "\(context) at \(sampleRate) Hz")
        let stream = try check(avformat_new_stream(muxer, nil), "avformat_new_stream", context)
        try check(
            avcodec_parameters_from_context(stream.pointee.codecpar, encoder), "avcodec_parameters_from_context",
            context)
        stream.pointee.time_base = encoder.pointee.time_base
        try check(avio_open_dyn_buf(&muxer.pointee.pb), "avio_open_dyn_buf", context)
        try check(avformat_write_header(muxer, nil), "avformat_write_header", context)

        let frameSize = encoder.pointee.frame_size > 0 ? Int(encoder.pointee.frame_size) : 4096
        var start = 0
        while start < samples.count {
            let count = min(frameSize, samples.count - start)
            av_frame_unref(frame)
            frame.pointee.nb_samples = Int32(count)
            frame.pointee.format = sampleFormat.rawValue
            frame.pointee.sample_rate = Int32(sampleRate)
            earshot_channel_layout_mono(&frame.pointee.ch_layout)
            try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer", context)
            Self.fill(frame, with: samples[start..<start + count], format: sampleFormat)
            frame.pointee.pts = Int64(start)
            try check(avcodec_send_frame(encoder, frame), "avcodec_send_frame", context)
            try drain(encoder, packet, into: muxer, stream: stream, context)
            start += count
        }
        try check(avcodec_send_frame(encoder, nil), "avcodec_send_frame", context)
        try drain(encoder, packet, into: muxer, stream: stream, context)
        try check(av_write_trailer(muxer), "av_write_trailer", context)
        guard let io = muxer.pointee.pb else { return [] }
        let size = avio_close_dyn_buf(io, &output)
        muxer.pointee.pb = nil
        guard let output, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// The first of the encoder's sample formats that ``fill(_:with:format:)`` writes.
    private static func sampleFormat(for codec: UnsafePointer<AVCodec>, _ context: String) throws(AudioError)
        -> AVSampleFormat
    {
        let written: [AVSampleFormat] = [
            AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S32P,
            AV_SAMPLE_FMT_S32,
        ]
        guard var next = codec.pointee.sample_fmts else { return AV_SAMPLE_FMT_FLTP }
        while next.pointee != AV_SAMPLE_FMT_NONE {
            if written.contains(next.pointee) { return next.pointee }
            next += 1
        }
        throw AudioError(.unsupportedFormat, "\(context): the encoder takes no sample format Earshot writes")
    }

    /// Writes `samples` into the frame's one plane (mono: planar and packed are the same).
    private static func fill(
        _ frame: UnsafeMutablePointer<AVFrame>, with samples: ArraySlice<Float>, format: AVSampleFormat
    ) {
        guard let plane = frame.pointee.data.0 else { return }
        switch format {
        case AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT:
            let target = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
            for (index, sample) in samples.enumerated() { target[index] = max(-1, min(1, sample)) }
        case AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S16:
            let target = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Int16.self)
            for (index, sample) in samples.enumerated() {
                target[index] = Int16(pcmSample: sample)
            }
        default:
            let target = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Int32.self)
            for (index, sample) in samples.enumerated() {
                target[index] = Int32(
                    max(-2_147_483_648, min(2_147_483_647, (Double(sample) * 2_147_483_648).rounded())))
            }
        }
    }

    /// Moves every packet the encoder has ready into the muxer.
    private static func drain(
        _ encoder: UnsafeMutablePointer<AVCodecContext>, _ packet: UnsafeMutablePointer<AVPacket>,
        into muxer: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>, _ context: String
    ) throws(AudioError) {
        while true {
            let result = avcodec_receive_packet(encoder, packet)
            if result == earshot_averror_eagain() || result == earshot_averror_eof() { return }
            try check(result, "avcodec_receive_packet", context)
            av_packet_rescale_ts(packet, encoder.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            // av_interleaved_write_frame takes the packet's reference and leaves it blank.
            try check(av_interleaved_write_frame(muxer, packet), "av_interleaved_write_frame", context)
        }
    }
}
