#ifndef EARSHOT_CWHISPER_SHIM_H
#define EARSHOT_CWHISPER_SHIM_H
// whisper.cpp v1.8.5 C API (built by scripts/setup into $EARSHOT_HOME/whisper; found through whisper.pc).
#include <whisper.h>
#endif
