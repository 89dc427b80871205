#ifndef EARSHOT_CZLIB_SHIM_H
#define EARSHOT_CZLIB_SHIM_H
// zlib (Debian zlib1g-dev). Only EarshotSpeech imports this module: the compression ratio of decoded text, as
// OpenAI's Whisper reports it (a repetitive segment compresses well).
#include <zlib.h>
#endif
