#ifndef EARSHOT_COPUS_SHIM_H
#define EARSHOT_COPUS_SHIM_H
// libopus (Debian libopus-dev): Opus encoding for recorder devices and decoding of live Opus packets, in
// EarshotAudio. opus_encoder_ctl is variadic and its requests are macros, which Swift cannot import: one
// static inline wrapper per request used.
#include <opus.h>

static inline int earshot_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}
static inline int earshot_opus_set_complexity(OpusEncoder *encoder, opus_int32 complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
static inline int earshot_opus_set_signal_voice(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
}
static inline int earshot_opus_get_lookahead(OpusEncoder *encoder, opus_int32 *lookahead) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(lookahead));
}
#endif
