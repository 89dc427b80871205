#ifndef EARSHOT_CCRYPTO_SHIM_H
#define EARSHOT_CCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian libssl-dev): digests, HMAC, randomness, constant-time compare.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

// A SHA-256 whose state can be saved and restored (a multipart upload's running digest survives a restart).
// EVP contexts are opaque, so this uses the low-level SHA256_CTX, deprecated for new code in OpenSSL 3 but
// kept and still dispatching to SHA-NI/AVX2; the wrappers keep the deprecation inside this header.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/// The saved form: 8 big-endian state words, the byte count (big-endian 64-bit), then the count % 64 pending bytes.
#define EARSHOT_SHA256_STATE_MAX 104

static inline int earshot_sha256_init(SHA256_CTX *c) { return SHA256_Init(c); }

static inline int earshot_sha256_update(SHA256_CTX *c, const void *data, size_t length) {
    return SHA256_Update(c, data, length);
}

static inline int earshot_sha256_final(SHA256_CTX *c, unsigned char out[32]) { return SHA256_Final(out, c); }

/// Writes the state to `out` (at least EARSHOT_SHA256_STATE_MAX bytes); returns the bytes written.
static inline size_t earshot_sha256_save(const SHA256_CTX *c, unsigned char *out) {
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(c->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)c->h[i];
    }
    uint64_t bits = ((uint64_t)c->Nh << 32) | (uint64_t)c->Nl;
    uint64_t bytes = bits >> 3;
    for (int i = 0; i < 8; i++) out[32 + i] = (unsigned char)(bytes >> (56 - 8 * i));
    size_t pending = (size_t)c->num;
    memcpy(out + 40, (const unsigned char *)c->data, pending);
    return 40 + pending;
}

/// Restores a state written by earshot_sha256_save; returns 0 when `length` does not fit a saved state.
static inline int earshot_sha256_restore(SHA256_CTX *c, const unsigned char *in, size_t length) {
    if (length < 40) return 0;
    uint64_t bytes = 0;
    for (int i = 0; i < 8; i++) bytes = (bytes << 8) | in[32 + i];
    size_t pending = (size_t)(bytes % 64);
    if (length != 40 + pending || bytes > (UINT64_MAX >> 3)) return 0;
    SHA256_Init(c);
    for (int i = 0; i < 8; i++) {
        c->h[i] = ((SHA_LONG)in[4 * i] << 24) | ((SHA_LONG)in[4 * i + 1] << 16) | ((SHA_LONG)in[4 * i + 2] << 8)
            | (SHA_LONG)in[4 * i + 3];
    }
    uint64_t bits = bytes << 3;
    c->Nl = (SHA_LONG)(bits & 0xffffffffu);
    c->Nh = (SHA_LONG)(bits >> 32);
    memcpy((unsigned char *)c->data, in + 40, pending);
    c->num = (unsigned int)pending;
    return 1;
}

#pragma clang diagnostic pop
#endif
