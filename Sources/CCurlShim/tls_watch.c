// The server's certificates as a handshake saw them, for the message of a failed verification.
// See pcurl_tls_watch in CCurlShim.h. OpenSSL is used here only, never from Swift.
#include "CCurlShim.h"
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/// What one connection's handshakes showed; kept on its SSL_CTX (ex_data), freed with it.
struct pcurl_peer_note {
    /// The server's own certificate (depth 0), once the chain reached it.
    X509 *leaf;
    /// The first certificate that failed verification, and its depth.
    X509 *failed;
    int failed_depth;
};

struct pcurl_tls_watch {
    /// The SSL_CTX of the transfer's last new connection, with a reference of the watch's own.
    SSL_CTX *ctx;
};

static int note_index = -1;
static pthread_once_t note_index_once = PTHREAD_ONCE_INIT;

static void free_note(void *parent, void *pointer, CRYPTO_EX_DATA *data, int index, long argl, void *argp) {
    (void)parent; (void)data; (void)index; (void)argl; (void)argp;
    struct pcurl_peer_note *note = pointer;
    if (!note) return;
    X509_free(note->leaf);
    X509_free(note->failed);
    free(note);
}

static void make_note_index(void) {
    note_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_note);
}

int pcurl_tls_watch_supported(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    if (!info || !info->ssl_version) return 0;
    // The active backend comes first; a MultiSSL build lists the others in parentheses.
    const char *prefix = "OpenSSL/";
    size_t length = strlen(prefix);
    if (strncmp(info->ssl_version, prefix, length) != 0) return 0;
    long major = strtol(info->ssl_version + length, NULL, 10);
    return major == OPENSSL_VERSION_MAJOR && (long)(OpenSSL_version_num() >> 28) == OPENSSL_VERSION_MAJOR;
}

/// OpenSSL's verify callback: records the certificates and returns OpenSSL's own verdict.
static int record_peer(int ok, X509_STORE_CTX *store) {
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    struct pcurl_peer_note *note = ssl ? SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), note_index) : NULL;
    X509 *certificate = X509_STORE_CTX_get_current_cert(store);
    if (!note || !certificate) return ok;
    int depth = X509_STORE_CTX_get_error_depth(store);
    if (depth == 0 && !note->leaf && X509_up_ref(certificate)) note->leaf = certificate;
    if (!ok && !note->failed && X509_up_ref(certificate)) {
        note->failed = certificate;
        note->failed_depth = depth;
    }
    return ok;
}

/// CURLOPT_SSL_CTX_FUNCTION: called once per new TLS connection, before its handshake. It never
/// fails the connection: without memory for a note, the message only lacks the names.
static CURLcode watch_connection(CURL *handle, void *ssl_ctx, void *user) {
    (void)handle;
    struct pcurl_tls_watch *watch = user;
    SSL_CTX *ctx = ssl_ctx;
    pthread_once(&note_index_once, make_note_index);
    if (!watch || !ctx || note_index < 0) return CURLE_OK;
    if (!SSL_CTX_get_ex_data(ctx, note_index)) {
        struct pcurl_peer_note *note = calloc(1, sizeof *note);
        if (!note) return CURLE_OK;
        if (!SSL_CTX_set_ex_data(ctx, note_index, note)) {
            free(note);
            return CURLE_OK;
        }
    }
    // The mode libcurl chose (verify or not) stays; only the callback is ours.
    SSL_CTX_set_verify(ctx, SSL_CTX_get_verify_mode(ctx), record_peer);
    if (watch->ctx != ctx && SSL_CTX_up_ref(ctx)) {
        SSL_CTX_free(watch->ctx);
        watch->ctx = ctx;
    }
    return CURLE_OK;
}

pcurl_tls_watch *pcurl_tls_watch_new(void) {
    return calloc(1, sizeof(struct pcurl_tls_watch));
}

void pcurl_tls_watch_free(pcurl_tls_watch *watch) {
    if (!watch) return;
    SSL_CTX_free(watch->ctx);
    free(watch);
}

CURLcode pcurl_easy_watch_tls(CURL *handle, pcurl_tls_watch *watch) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, watch_connection);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, (void *)watch);
}

static const struct pcurl_peer_note *note_of(const pcurl_tls_watch *watch) {
    if (!watch || !watch->ctx || note_index < 0) return NULL;
    return SSL_CTX_get_ex_data(watch->ctx, note_index);
}

int pcurl_tls_watch_failed_depth(const pcurl_tls_watch *watch) {
    const struct pcurl_peer_note *note = note_of(watch);
    return note && note->failed ? note->failed_depth : -1;
}

int pcurl_tls_watch_name(const pcurl_tls_watch *watch, int which, char *buffer, size_t size) {
    const struct pcurl_peer_note *note = note_of(watch);
    if (!note || !buffer || size == 0) return -1;
    X509 *certificate = which == 2 ? note->leaf : (note->failed ? note->failed : note->leaf);
    if (!certificate) return -1;
    X509_NAME *name = which == 1 ? X509_get_issuer_name(certificate) : X509_get_subject_name(certificate);
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return -1;
    // RFC 2253 (most specific first: CN=…,O=…), with UTF-8 left as it is rather than escaped.
    int printed = X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
    int length = printed < 0 ? -1 : BIO_read(bio, buffer, (int)(size - 1));
    BIO_free(bio);
    if (printed < 0) return -1;
    if (length < 0) length = 0;   // an empty name
    buffer[length] = '\0';
    return length;
}
