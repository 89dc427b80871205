internal import CFFmpeg

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DecoderState {
    /// Containers the decoder accepts (FFmpeg demuxer names). Anything else — playlists (HLS, concat), image
    /// sequences, subtitles — is refused before FFmpeg follows any reference inside the file, so an uploaded file
    /// can never make the server open another file or a URL.
    static let acceptedContainers =
        "wav,w64,mp3,mov,mp4,m4a,3gp,flac,ogg,matroska,webm,aac,aiff,caf,amr,amrnb,amrwb,wv,asf,au,avi"

    /// FFmpeg's own log lines ("misdetection possible", "invalid frame"…) would go straight to the server's
    /// standard error; every failure that matters reaches the caller as an ``AudioError`` instead, so only fatal
    /// library messages are let through. Evaluated once, before the first file is opened.
    static let quietLibraryLog: Void = av_log_set_level(AV_LOG_FATAL)

    /// Refuses missing, non-regular, unreadable and zero-byte files with a clear message before FFmpeg sees them.
    static func checkFile(_ path: String) throws(AudioError) {
        _ = quietLibraryLog
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw AudioError(.notFound, "no such file: \(path)")
            }
            throw AudioError(.io, "cannot read \(path): \(String(cString: strerror(code)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw AudioError(.notFound, "\(path) is not a regular file (a directory or a device); pass an audio file")
        }
        guard access(path, R_OK) == 0 else {
            throw AudioError(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_size > 0 else {
            throw AudioError(.empty, "\(path) is empty (0 bytes): the recording or upload produced no data")
        }
    }

    /// Explains a failed `avformat_open_input`: if FFmpeg recognises the first bytes as a container, the file is
    /// that container but damaged or cut short (an MP4 whose index was never written is the common case);
    /// otherwise it is not an audio file at all.
    static func openError(_ result: Int32, path: String) -> AudioError {
        let command = ConversionCommand.toCompliantWAV(input: path)
        if result == earshot_averror(ENOENT) { return AudioError(.notFound, "no such file: \(path)") }
        if result == earshot_averror(EACCES) || result == earshot_averror(EPERM) {
            return libraryError(result, "avformat_open_input", as: .io, "opening \(path)")
        }
        // EIO here is a demuxer reading past the end of a short file (the file itself was readable).
        guard let recognised = probeContainer(path) else {
            return libraryError(
                result, "avformat_open_input", as: .unsupportedFormat,
                "\(path) is not an audio file FFmpeg recognises (not WAV, MP3, M4A/AAC, FLAC, Ogg/Opus or WebM); "
                    + "if it is audio in another format, convert it with: \(command)")
        }
        let accepted = acceptedContainers.split(separator: ",")
        if !recognised.name.split(separator: ",").contains(where: { accepted.contains($0) }) {
            return libraryError(
                result, "avformat_open_input", as: .unsupportedFormat,
                "\(path) is \(recognised.longName) (\(recognised.name)), which is not accepted as an audio upload; "
                    + "convert it with: \(command)")
        }
        return libraryError(
            result, "avformat_open_input", as: .corrupted,
            "\(path) looks like \(recognised.longName) but cannot be opened: the file is damaged or truncated "
                + "(an MP4/M4A recording that stopped before its index was written has this symptom); re-upload the "
                + "complete file, or try to salvage it with: \(command)")
    }

    /// FFmpeg's guess at the container of the file's first 64 KiB, nil when nothing matches.
    private static func probeContainer(_ path: String) -> (name: String, longName: String)? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        let padding = 64  // ≥ AVPROBE_PADDING_SIZE, zero-filled as av_probe_input_format requires
        var buffer = [UInt8](repeating: 0, count: 65_536 + padding)
        let count = fread(&buffer, 1, 65_536, file)
        guard count > 0 else { return nil }
        return buffer.withUnsafeMutableBufferPointer { bytes in
            var probe = AVProbeData()
            probe.buf = bytes.baseAddress
            probe.buf_size = Int32(count)
            // Judge by content only: with the file name, a text file called notes.mp3 "looks like" MP3.
            return "".withCString { name in
                probe.filename = name
                guard let format = av_probe_input_format(&probe, 1) else { return nil }
                let longName = format.pointee.long_name.map { String(cString: $0) } ?? "an unknown container"
                return (String(cString: format.pointee.name), longName)
            }
        }
    }

    static func containerName(_ format: UnsafeMutablePointer<AVFormatContext>) -> String {
        guard let input = format.pointee.iformat else { return "unknown container" }
        return String(cString: input.pointee.name)
    }

    /// Reads what the probe found into an ``AudioInfo``.
    static func describe(
        _ format: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>,
        codec: UnsafeMutablePointer<AVCodecContext>
    ) -> AudioInfo {
        let parameters = stream.pointee.codecpar.pointee
        let sampleFormat = av_get_sample_fmt_name(codec.pointee.sample_fmt).map { String(cString: $0) } ?? "unknown"
        let bits =
            parameters.bits_per_raw_sample > 0
            ? Int(parameters.bits_per_raw_sample)
            : (parameters.bits_per_coded_sample > 0 ? Int(parameters.bits_per_coded_sample) : nil)
        let lossless = av_get_bytes_per_sample(codec.pointee.sample_fmt) > 0 && isPCMOrLossless(parameters.codec_id)
        var duration: Duration?
        if stream.pointee.duration != earshot_nopts_value(), stream.pointee.duration > 0 {
            let base = stream.pointee.time_base
            let microseconds = av_rescale(stream.pointee.duration, Int64(base.num) * 1_000_000, Int64(base.den))
            duration = .microseconds(microseconds)
        } else if format.pointee.duration != earshot_nopts_value(), format.pointee.duration > 0 {
            duration = .microseconds(format.pointee.duration * 1_000_000 / Int64(AV_TIME_BASE))
        }
        let bitRate = parameters.bit_rate > 0 ? parameters.bit_rate : format.pointee.bit_rate
        return AudioInfo(
            container: containerName(format),
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            sampleRate: Int(parameters.sample_rate),
            channels: Int(parameters.ch_layout.nb_channels),
            sampleFormat: sampleFormat,
            bitsPerSample: lossless ? bits : nil,
            duration: duration,
            bitRate: bitRate > 0 ? Int(bitRate) : nil)
    }

    private static func isPCMOrLossless(_ id: AVCodecID) -> Bool {
        guard let descriptor = avcodec_descriptor_get(id) else { return false }
        return descriptor.pointee.props & AV_CODEC_PROP_LOSSLESS != 0
    }
}
