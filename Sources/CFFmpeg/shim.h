#ifndef EARSHOT_CFFMPEG_SHIM_H
#define EARSHOT_CFFMPEG_SHIM_H
// FFmpeg's demuxing, decoding and resampling libraries (Debian libavformat-dev, libavcodec-dev,
// libswresample-dev, libavutil-dev; FFmpeg 5.1 in Debian 12). Imported only by EarshotAudio.
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>

// Error-code macros (AVERROR(e) negates errno values; the tag codes are built with casts Swift cannot import).
static inline int earshot_averror(int posix_error) { return AVERROR(posix_error); }
static inline int earshot_averror_eof(void) { return AVERROR_EOF; }
static inline int earshot_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int earshot_averror_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int earshot_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int earshot_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int earshot_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int earshot_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int earshot_averror_enoent(void) { return AVERROR(ENOENT); }
static inline int earshot_averror_eacces(void) { return AVERROR(EACCES); }
static inline int earshot_averror_eio(void) { return AVERROR(EIO); }

/// av_err2str uses a compound literal; this writes the same text into a caller-owned buffer.
static inline const char *earshot_err2str(int code, char *buffer, size_t size) {
    if (av_strerror(code, buffer, size) < 0) {
        snprintf(buffer, size, "unknown error %d", code);
    }
    return buffer;
}

/// AV_NOPTS_VALUE is a cast of an unsigned literal.
static inline int64_t earshot_nopts_value(void) { return AV_NOPTS_VALUE; }

/// AV_CODEC_FLAG_GLOBAL_HEADER is a shift expression (muxers that keep codec headers in the container).
static inline int earshot_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }

/// AV_CHANNEL_LAYOUT_MONO is a compound-literal initialiser.
static inline void earshot_channel_layout_mono(AVChannelLayout *layout) {
    AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
    *layout = mono;
}

/// True when the layout is unspecified (order AV_CHANNEL_ORDER_UNSPEC) or has no channels.
static inline int earshot_channel_layout_is_unspecified(const AVChannelLayout *layout) {
    return layout->order == AV_CHANNEL_ORDER_UNSPEC || layout->nb_channels <= 0;
}

#endif
