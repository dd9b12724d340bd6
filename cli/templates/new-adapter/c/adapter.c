/* The gapscore adapter `@NAME@`, C ABI v2 (docs/abi.md): one `<status> <name>[: <message>]` a
 * line, `<status>` one of passed, failed, errored, skipped, xfailed, xpassed, todo; blank lines
 * and lines starting with '#' are skipped. The input is pulled through host->read in chunks and
 * each test goes to host->test_finished as soon as its line is read, so memory does not grow
 * with the file. Replace handle_line with your format's reader and detect with what tells your
 * files apart; keep the shape. */
#include <stdlib.h>
#include <string.h>
#include "gapscore_adapter.h"

static const struct {
    const char *word;
    uint32_t status;
} STATUSES[] = {
    {"passed", GAPSCORE_STATUS_PASSED},   {"failed", GAPSCORE_STATUS_FAILED},
    {"errored", GAPSCORE_STATUS_ERRORED}, {"skipped", GAPSCORE_STATUS_SKIPPED},
    {"xfailed", GAPSCORE_STATUS_XFAILED}, {"xpassed", GAPSCORE_STATUS_XPASSED},
    {"todo", GAPSCORE_STATUS_TODO},
};

/* The status a word names, or 0 (never a valid status): never guess one. */
static uint32_t status_of(const uint8_t *s, size_t len) {
    size_t i;
    for (i = 0; i < sizeof STATUSES / sizeof STATUSES[0]; i++) {
        if (strlen(STATUSES[i].word) == len && memcmp(STATUSES[i].word, s, len) == 0) {
            return STATUSES[i].status;
        }
    }
    return 0;
}

static size_t word_len(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len && s[i] != ' ' && s[i] != '\n' && s[i] != '\r') i++;
    return i;
}

/* 0..=100 from at most the first 64 KiB and the file name (NULL for standard input): 60 when
 * the first line that is not a comment starts with a status word, 80 when the file name ends
 * in ".@NAME@" too. */
static uint32_t detect(const uint8_t *prefix, size_t len, const char *file_name) {
    static const char SUFFIX[] = ".@NAME@";
    size_t at = 0, n, name_len;
    if (len >= 3 && memcmp(prefix, "\xEF\xBB\xBF", 3) == 0) at = 3; /* a byte order mark */
    while (at < len && (prefix[at] == '#' || prefix[at] == '\n' || prefix[at] == '\r')) {
        while (at < len && prefix[at] != '\n') at++; /* skip a comment or blank line */
        if (at < len) at++;
    }
    n = word_len(prefix + at, len - at);
    if (at + n >= len || prefix[at + n] != ' ' || status_of(prefix + at, n) == 0) return 0;
    name_len = file_name == NULL ? 0 : strlen(file_name);
    if (name_len >= sizeof SUFFIX - 1 &&
        strcmp(file_name + name_len - (sizeof SUFFIX - 1), SUFFIX) == 0) {
        return 80;
    }
    return 60;
}

static GapscoreStr view(const uint8_t *ptr, size_t len) {
    GapscoreStr s;
    s.ptr = ptr; /* NULL: absent */
    s.len = len;
    return s;
}

/* The reason for a failing status, given to the host before returning it. */
static int32_t fail(const GapscoreHost *host, int32_t status, const char *message,
                    uint64_t line, uint64_t column) {
    host->error(host->ctx, view((const uint8_t *)message, strlen(message)), line, column,
                GAPSCORE_NO_OFFSET);
    return status;
}

/* One line, without its '\n'. The host checks that every string is valid UTF-8 and fails the
 * parse otherwise. */
static int32_t handle_line(const GapscoreHost *host, const uint8_t *s, size_t len,
                           uint64_t line_no) {
    GapscoreTest test;
    size_t n, i;
    if (line_no == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) { /* byte order mark */
        s += 3;
        len -= 3;
    }
    if (len > 0 && s[len - 1] == '\r') len--;
    if (len == 0 || s[0] == '#') return GAPSCORE_OK;
    memset(&test, 0, sizeof test); /* every string absent ({NULL, 0}), every code 0 */
    test.struct_size = (uint32_t)sizeof test;
    n = word_len(s, len);
    test.status = status_of(s, n);
    if (test.status == 0) {
        return fail(host, GAPSCORE_ERR_PARSE,
                    "unknown status (expected passed, failed, errored, skipped, xfailed, "
                    "xpassed or todo)",
                    line_no, 1);
    }
    if (n + 1 >= len) return fail(host, GAPSCORE_ERR_PARSE, "empty test name", line_no, n + 1);
    test.name = view(s + n + 1, len - n - 1);
    for (i = n + 1; i + 1 < len; i++) {
        if (s[i] == ':' && s[i + 1] == ' ') { /* <status> <name>: <message> */
            test.name = view(s + n + 1, i - n - 1);
            test.message = view(s + i + 2, len - i - 2);
            break;
        }
    }
    if (test.name.len == 0) return fail(host, GAPSCORE_ERR_PARSE, "empty test name", line_no, n + 2);
    /* The strings point into the line buffer: the host copies what it keeps before returning. */
    return host->test_finished(host->ctx, &test) == 0 ? GAPSCORE_OK : GAPSCORE_ERR_STOPPED;
}

static int32_t parse_stream(const GapscoreHost *host, const uint8_t *options_json,
                            size_t options_len) {
    uint8_t chunk[16384];
    uint8_t *line = NULL; /* the line being read, across chunks */
    size_t len = 0, cap = 0;
    uint64_t line_no = 0;
    int32_t status = GAPSCORE_OK;
    intptr_t n, i;
    /* {"source_name": ..., "format_id": ...}, borrowed for the call: this adapter needs neither. */
    (void)options_json;
    (void)options_len;
    /* The size rule (docs/abi.md): accept any table that holds the first v2 members (up to
     * `error`); read a later member only when struct_size covers it. */
    if (host == NULL || host->struct_size < GAPSCORE_HOST_BASE_SIZE) {
        return GAPSCORE_ERR_INVALID_ARG;
    }
    while (status == GAPSCORE_OK) {
        n = host->read(host->ctx, chunk, sizeof chunk); /* 0: end of input */
        if (n < 0) {
            status = GAPSCORE_ERR_STOPPED; /* the host cannot go on, and knows why */
            break;
        }
        for (i = 0; i < n && status == GAPSCORE_OK; i++) {
            if (chunk[i] == '\n') {
                status = handle_line(host, line, len, ++line_no);
                len = 0;
                continue;
            }
            if (len == cap) {
                uint8_t *bigger = realloc(line, cap ? 2 * cap : 256);
                if (bigger == NULL) {
                    status = fail(host, GAPSCORE_ERR_INTERNAL, "out of memory", 0, 0);
                    break;
                }
                line = bigger;
                cap = cap ? 2 * cap : 256;
            }
            line[len++] = chunk[i];
        }
        if (n == 0) {
            if (len > 0 && status == GAPSCORE_OK) { /* a last line without '\n' */
                status = handle_line(host, line, len, ++line_no);
            }
            break;
        }
    }
    free(line);
    return status;
}

static const char *const FORMAT_IDS[] = {"@NAME@"};

static const GapscoreAdapterV2 DESCRIPTOR = {
    GAPSCORE_ABI_V2,
    (uint32_t)sizeof(GapscoreAdapterV2),
    "@NAME@", /* the name: must match the entry symbol below */
    "0.1.0",
    FORMAT_IDS,
    1,
    detect,
    parse_stream,
};

/* The entry point: "gapscore_adapter_" + the name with '-' written '_'. */
GAPSCORE_EXPORT const GapscoreAdapterV2 *@SYMBOL@(void);
GAPSCORE_EXPORT const GapscoreAdapterV2 *@SYMBOL@(void) { return &DESCRIPTOR; }
