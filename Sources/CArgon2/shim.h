#ifndef EARSHOT_CARGON2_SHIM_H
#define EARSHOT_CARGON2_SHIM_H
// The Argon2 reference implementation (Debian libargon2-dev): Argon2id password hashing for EarshotAccounts.
#include <argon2.h>
#endif
