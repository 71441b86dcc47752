#ifndef CCURLSHIM_H
#define CCURLSHIM_H
// Fixed-arity wrappers around libcurl's variadic calls (curl_easy_setopt, curl_easy_getinfo,
// curl_multi_setopt), which Swift cannot call. Each passes its argument through with the exact
// C type libcurl reads with va_arg for that kind of option, and returns libcurl's result code.
// The CCurl module's own header, so that libcurl's declarations belong to CCurl alone (a second
// textual copy here would make some of them visible only through this module).
#include "../../CCurl/shim.h"

/// curl_easy_setopt for a `long` option (flags, counts, milliseconds, enums).
CURLcode pcurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
/// curl_easy_setopt for a `curl_off_t` option (`*_LARGE` sizes).
CURLcode pcurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// curl_easy_setopt for a `char *` option; libcurl copies strings (except CURLOPT_POSTFIELDS).
CURLcode pcurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
/// curl_easy_setopt for an object pointer option (`struct curl_slist *`, user data, buffers).
CURLcode pcurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
/// curl_easy_setopt for CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION.
CURLcode pcurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback);
/// curl_easy_setopt for CURLOPT_PREREQFUNCTION (libcurl 7.80 or later).
CURLcode pcurl_easy_setopt_prereq_function(CURL *handle, curl_prereq_callback callback);

/// curl_easy_setopt for CURLOPT_OPENSOCKETFUNCTION.
CURLcode pcurl_easy_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback);
/// The IP address libcurl is about to connect to: copies its 4 (IPv4) or 16 (IPv6) bytes, most
/// significant first, into `bytes` and returns that count; 0 for any other family. Reads the
/// address through its family's own struct, since libcurl's storage is larger than the
/// `struct sockaddr` the public type declares.
int pcurl_sockaddr_ip(const struct curl_sockaddr *address, unsigned char bytes[16]);

/// curl_easy_getinfo for a `long` item.
CURLcode pcurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// curl_easy_getinfo for a `double` item.
CURLcode pcurl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value);
/// curl_easy_getinfo for a `curl_off_t` item (`*_T`).
CURLcode pcurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
/// curl_easy_getinfo for a string item; the string belongs to the handle (do not free it).
CURLcode pcurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);

/// curl_multi_setopt for a `long` option.
CURLMcode pcurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// What a TLS handshake showed of the server's certificates, for the message of a failed
/// verification: libcurl reports only OpenSSL's reason ("unable to get local issuer
/// certificate"), and CURLOPT_CERTINFO is filled only once verification succeeded. One watch per
/// transfer; it keeps the SSL_CTX of the transfer's last new connection (a reference of its
/// own), whose notes outlive the connection until the watch is freed. OpenSSL stays inside
/// shim.c: Swift sees only this opaque type.
typedef struct pcurl_tls_watch pcurl_tls_watch;

/// Whether watches work with this libcurl: its TLS backend is OpenSSL of the major version this
/// shim was built against (a SSL_CTX of another library must never reach OpenSSL's calls here).
int pcurl_tls_watch_supported(void);
/// A new, empty watch, or NULL when memory runs out.
pcurl_tls_watch *pcurl_tls_watch_new(void);
/// Frees `watch` (NULL is allowed) and its reference to the connection's SSL_CTX.
void pcurl_tls_watch_free(pcurl_tls_watch *watch);
/// Sets CURLOPT_SSL_CTX_FUNCTION and CURLOPT_SSL_CTX_DATA so that each new TLS connection of the
/// transfer records the server's certificate, and the one that failed verification, in `watch`.
/// The recording never changes a verification's outcome. `watch` must outlive the transfer.
CURLcode pcurl_easy_watch_tls(CURL *handle, pcurl_tls_watch *watch);
/// The chain depth of the certificate that failed verification (0: the server's own), or -1
/// when none failed (or nothing was recorded).
int pcurl_tls_watch_failed_depth(const pcurl_tls_watch *watch);
/// Writes a distinguished name (RFC 2253, UTF-8), NUL-terminated and cut to `size`, into
/// `buffer`: `which` 0 is the subject and 1 the issuer of the certificate that failed
/// verification, else of the server's own; 2 is the subject of the server's own certificate.
/// Returns the length written, or -1 when there is no such certificate.
int pcurl_tls_watch_name(const pcurl_tls_watch *watch, int which, char *buffer, size_t size);

#endif
