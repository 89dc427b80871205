internal import CFFmpeg

/// Streams mono 16-bit little-endian PCM at any rate into the engine's 16 kHz mono `Float`, chunk by chunk (live
/// audio: the OpenAI Realtime API's `pcm16` is 24 kHz).
///
/// ```swift
/// let resampler = try PCMResampler(inputRate: 24_000)
/// samples += try resampler.convert(chunk)      // any number of bytes; an odd trailing byte waits for the next
/// samples += try resampler.flush()             // at the end: what the filter still holds
/// ```
///
/// Another output rate can be asked for (`outputRate`: synthesized speech goes out at 24 kHz). Input already at the
/// output rate is only converted to `Float` (no filter, no delay). Other rates go through libswresample's
/// polyphase windowed-sinc filter (the file decoder's settings), which keeps state across chunks, so a stream cut
/// into chunks gives the same samples as one piece. Not thread-safe: one owner at a time.
public final class PCMResampler {
    /// The input's sample rate in Hz.
    public let inputRate: Int
    /// The output's sample rate in Hz (16 kHz, the engine's, unless asked otherwise).
    public let outputRate: Int
    private var context: OpaquePointer?
    private var carry: UInt8?

    /// - Throws: ``AudioError/Code/invalidArgument`` for a rate outside 8…192 kHz, ``AudioError/Code/failed`` when
    ///   libswresample cannot be set up.
    public init(inputRate: Int, outputRate: Int = 16_000) throws(AudioError) {
        for rate in [inputRate, outputRate] where !(8000...192_000).contains(rate) {
            throw AudioError(.invalidArgument, "sample rate \(rate) Hz is outside 8000…192000")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        guard inputRate != outputRate else { return }
        var outputLayout = AVChannelLayout()
        earshot_channel_layout_mono(&outputLayout)
        var inputLayout = AVChannelLayout()
        earshot_channel_layout_mono(&inputLayout)
        var context: OpaquePointer?
        try check(
            swr_alloc_set_opts2(
                &context, &outputLayout, AV_SAMPLE_FMT_FLT, Int32(outputRate), &inputLayout, AV_SAMPLE_FMT_S16,
                Int32(inputRate), 0, nil),
            "swr_alloc_set_opts2", "setting up a \(inputRate) Hz resampler")
        guard let context else { throw AudioError(.failed, "swr_alloc_set_opts2 gave no context") }
        var owned: OpaquePointer? = context
        do {
            let raw = UnsafeMutableRawPointer(context)
            try check(av_opt_set_int(raw, "filter_size", 32, 0), "av_opt_set_int", "configuring the resampler")
            try check(av_opt_set_int(raw, "phase_shift", 10, 0), "av_opt_set_int", "configuring the resampler")
            try check(av_opt_set_int(raw, "linear_interp", 1, 0), "av_opt_set_int", "configuring the resampler")
            try check(av_opt_set_double(raw, "cutoff", 0.97, 0), "av_opt_set_double", "configuring the resampler")
            try check(swr_init(context), "swr_init", "setting up a \(inputRate) Hz resampler")
        } catch {
            swr_free(&owned)
            throw error
        }
        self.context = context
    }

    deinit {
        if context != nil { swr_free(&context) }
    }

    /// The samples at ``outputRate`` for the next `bytes` of PCM16 (little-endian). An odd final byte is kept for the next call.
    public func convert(_ bytes: [UInt8]) throws(AudioError) -> [Float] {
        var input: [Int16] = []
        input.reserveCapacity((bytes.count + 1) / 2)
        var index = 0
        if let low = carry, let high = bytes.first {
            input.append(Int16(bitPattern: UInt16(low) | UInt16(high) << 8))
            carry = nil
            index = 1
        }
        while index + 1 < bytes.count {
            input.append(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
            index += 2
        }
        if index < bytes.count { carry = bytes[index] }
        guard let context else { return input.map { Float($0) / 32768 } }
        guard !input.isEmpty else { return [] }
        let capacity = swr_get_out_samples(context, Int32(input.count)) + 16
        var output = [Float](repeating: 0, count: Int(capacity))
        let produced = try input.withUnsafeBufferPointer { source throws(AudioError) in
            try output.withUnsafeMutableBufferPointer { target throws(AudioError) in
                var inPlane: UnsafePointer<UInt8>? = UnsafeRawPointer(source.baseAddress!).assumingMemoryBound(
                    to: UInt8.self)
                var outPlane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(target.baseAddress!)
                    .assumingMemoryBound(to: UInt8.self)
                return try check(
                    swr_convert(context, &outPlane, capacity, &inPlane, Int32(input.count)), "swr_convert",
                    "resampling live audio")
            }
        }
        output.removeLast(output.count - Int(produced))
        return output
    }

    /// What the filter still holds at the end of the stream (a few milliseconds).
    public func flush() throws(AudioError) -> [Float] {
        guard let context else { return [] }
        var output = [Float](repeating: 0, count: 4096)
        let produced = try output.withUnsafeMutableBufferPointer { target throws(AudioError) in
            var outPlane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(target.baseAddress!)
                .assumingMemoryBound(to: UInt8.self)
            return try check(swr_convert(context, &outPlane, 4096, nil, 0), "swr_convert", "flushing the resampler")
        }
        output.removeLast(output.count - Int(produced))
        return output
    }
}
