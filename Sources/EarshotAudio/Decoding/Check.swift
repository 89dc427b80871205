internal import CFFmpeg

/// Turns a libav* return code (negative = failure) into an ``AudioError`` that names the C function and carries
/// FFmpeg's text for the code. Every libav call in this module goes through one of these.
///
/// - Parameters:
///   - code: the code to report; by default it is derived from the FFmpeg error (ENOENT → notFound, invalid data
///     → corrupted, EIO/EACCES → io, anything else → failed).
///   - context: what was being done, for the message ("opening /x.mp3").
@discardableResult
@inline(__always)
func check(
    _ result: Int32, _ function: StaticString, as code: AudioError.Code? = nil, _ context: @autoclosure () -> String
) throws(AudioError) -> Int32 {
    guard result < 0 else { return result }
    throw libraryError(result, function, as: code, context())
}

/// Turns a nil pointer from a libav allocation or lookup into an ``AudioError`` naming `function`.
@inline(__always)
func check<T>(
    _ result: T?, _ function: StaticString, as code: AudioError.Code? = nil, _ context: @autoclosure () -> String
) throws(AudioError) -> T {
    guard let result else {
        throw AudioError(
            code ?? .failed, "\(context()): \(function) failed",
            underlying: LibraryCallError(function: "\(function)", code: 0, text: "returned NULL"))
    }
    return result
}

/// FFmpeg's text for an error code (`av_strerror`).
func ffmpegErrorText(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    return buffer.withUnsafeMutableBufferPointer { pointer in
        String(cString: earshot_err2str(code, pointer.baseAddress, pointer.count))
    }
}

func libraryError(_ result: Int32, _ function: StaticString, as code: AudioError.Code?, _ context: String)
    -> AudioError
{
    let text = ffmpegErrorText(result)
    let underlying = LibraryCallError(function: "\(function)", code: result, text: text)
    let resolved = code ?? defaultCode(for: result)
    return AudioError(resolved, "\(context): \(function) failed: \(text)", underlying: underlying)
}

private func defaultCode(for result: Int32) -> AudioError.Code {
    switch result {
    case earshot_averror(ENOENT): .notFound
    case earshot_averror(EIO), earshot_averror(EACCES), earshot_averror(EPERM), earshot_averror(ENOSPC): .io
    case earshot_averror_invalid_data(): .corrupted
    case earshot_averror_eof(): .truncated
    case earshot_averror_decoder_not_found(), earshot_averror_demuxer_not_found(): .unsupportedFormat
    default: .failed
    }
}
