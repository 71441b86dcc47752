// The floor of the download rows (N2-floor): the least a loader on libcurl's multi interface
// must do to hand each response body to its caller. One thread, `parallel` easy handles reused
// from one transfer to the next, a 100 kB receive buffer (the size curl's tool and Pictor's
// transport use) and a write callback that copies each body into a growing buffer that is kept
// for the next body: what curl --parallel does, minus its config parsing and progress meter,
// plus the one copy out of libcurl's buffer that writing to /dev/null avoids.
//
//   curl-multi-floor <url-list> <parallel>
//
// Exits 0 when every URL answered 200 with a body, 1 otherwise (2 on bad arguments).
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct body {
    char *bytes;
    size_t length, capacity;
};

static size_t receive(char *data, size_t size, size_t count, void *user) {
    struct body *body = user;
    size_t length = size * count;
    if (body->length + length > body->capacity) {
        size_t capacity = (body->length + length) * 2;
        char *grown = realloc(body->bytes, capacity);
        if (!grown) return 0;
        body->bytes = grown;
        body->capacity = capacity;
    }
    memcpy(body->bytes + body->length, data, length);
    body->length += length;
    return length;
}

static char **read_urls(const char *path, int *count) {
    FILE *file = fopen(path, "r");
    if (!file) return NULL;
    int capacity = 1024;
    char **urls = malloc(sizeof(char *) * capacity);
    char line[8192];
    *count = 0;
    while (urls && fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!*line) continue;
        if (*count == capacity) {
            capacity *= 2;
            urls = realloc(urls, sizeof(char *) * capacity);
            if (!urls) break;
        }
        urls[(*count)++] = strdup(line);
    }
    fclose(file);
    return urls;
}

static void start(CURLM *multi, CURL *easy, const char *url, struct body *body) {
    body->length = 0;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, receive);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, body);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 102400L);
    curl_multi_add_handle(multi, easy);
}

int main(int argc, char **argv) {
    int parallel = argc > 2 ? atoi(argv[2]) : 0, count = 0;
    char **urls = argc > 2 ? read_urls(argv[1], &count) : NULL;
    if (!urls || parallel < 1) {
        fprintf(stderr, "usage: curl-multi-floor <url-list> <parallel>\n");
        return 2;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 1;
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)parallel);
    struct body *bodies = calloc(parallel, sizeof *bodies);
    int next = 0, running = 0, failures = 0;
    for (int i = 0; i < parallel && next < count; i++) start(multi, curl_easy_init(), urls[next++], &bodies[i]);
    do {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            struct body *body;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&body);
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result != CURLE_OK || status != 200 || body->length == 0) failures++;
            curl_multi_remove_handle(multi, easy);
            if (next < count) {
                start(multi, easy, urls[next++], body);
                running++;
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (running) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    } while (running);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return failures ? 1 : 0;
}
