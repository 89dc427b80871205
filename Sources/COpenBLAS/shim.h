#ifndef EARSHOT_COPENBLAS_SHIM_H
#define EARSHOT_COPENBLAS_SHIM_H
// OpenBLAS's CBLAS interface (Debian libopenblas-dev). Only EarshotDiarization imports this module.
#include <cblas.h>
#endif
