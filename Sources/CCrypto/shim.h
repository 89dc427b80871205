#ifndef EARSHOT_CCRYPTO_SHIM_H
#define EARSHOT_CCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian libssl-dev): digests, HMAC, randomness, constant-time compare.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#endif
