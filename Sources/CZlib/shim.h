#ifndef EARSHOT_CZLIB_SHIM_H
#define EARSHOT_CZLIB_SHIM_H
// zlib (Debian zlib1g-dev). EarshotSpeech imports it for the compression ratio of decoded text, as OpenAI's
// Whisper reports it (a repetitive segment compresses well); EarshotCrypto for CRC-32 (`x-amz-checksum-crc32`).
#include <zlib.h>
#endif
