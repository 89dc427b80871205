#ifndef EARSHOT_CCURL_SHIM_H
#define EARSHOT_CCURL_SHIM_H
// libcurl (Debian libcurl4-openssl-dev): SMTP with STARTTLS for EarshotAccounts' e-mail delivery.
// curl_easy_setopt and curl_easy_getinfo are variadic, so Swift cannot call them: one typed wrapper per argument kind.
#include <curl/curl.h>

static inline CURLcode earshot_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode earshot_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode earshot_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode earshot_curl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*earshot_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode earshot_curl_setopt_read_function(CURL *handle, earshot_curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

static inline CURLcode earshot_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
