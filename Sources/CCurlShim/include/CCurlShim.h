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

#endif
