/* gapscore adapter plugin "c-lines", written in plain C11 against the adapter C ABI v2
 * (adapters/sdk/include/gapscore_adapter.h; the contract is docs/abi.md). It streams: the input
 * is pulled through host->read in chunks and each test goes to host->test_finished as soon as
 * its line is read, so memory does not grow with the file (only with its longest line).
 *
 * It reads the "lines" format, one test result per line:
 *
 *     # comment
 *     PASS <name>
 *     FAIL <name>: <message>
 *     ERROR <name>: <message>
 *     SKIP <name>: <reason>
 *     TODO <name>
 *
 * For FAIL, ERROR and SKIP the name ends at the first ": " and the message is optional. Blank
 * lines (empty or only spaces and tabs) and lines starting with '#' are ignored; CRLF line ends
 * and a leading UTF-8 byte order mark are accepted. Anything else is a parse error reported
 * through host->error with its line and column (1-based; columns count bytes).
 *
 * Thread safety: there is no mutable global state; every call works on its arguments and on
 * heap memory it owns, so detect/parse_stream may run concurrently on any thread.
 *
 * Build (Linux; see README.md for macOS and Windows):
 *     cc -std=c11 -Wall -Wextra -Werror -pedantic -shared -fPIC -fvisibility=hidden \
 *        -I adapters/sdk/include -o libgapscore_adapter_c_lines.so \
 *        adapters/examples/c-lines/gapscore_adapter_c_lines.c
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gapscore_adapter.h"

#define ADAPTER_NAME "c-lines"
#define ADAPTER_VERSION "0.1.0"
#define FORMAT_ID "lines"

/* The longest keyword quoted back in an "unknown keyword" message, in bytes. */
#define MAX_QUOTED_KEYWORD 32u

/* ---------------------------------------------------------------------------------------------
 * Keywords
 * ------------------------------------------------------------------------------------------- */

typedef struct Keyword {
    const char *text;
    size_t len;
    uint32_t status;      /* GAPSCORE_STATUS_* */
    int takes_message;    /* 1: the name ends at the first ": " */
} Keyword;

static const Keyword KEYWORDS[] = {
    {"PASS", 4, GAPSCORE_STATUS_PASSED, 0},
    {"FAIL", 4, GAPSCORE_STATUS_FAILED, 1},
    {"ERROR", 5, GAPSCORE_STATUS_ERRORED, 1},
    {"SKIP", 4, GAPSCORE_STATUS_SKIPPED, 1},
    {"TODO", 4, GAPSCORE_STATUS_TODO, 0},
};

#define KEYWORD_COUNT (sizeof(KEYWORDS) / sizeof(KEYWORDS[0]))

#define EXPECTED_KEYWORDS "(expected PASS, FAIL, ERROR, SKIP or TODO)"

/* The keyword spelled exactly by s[0..len), or NULL. */
static const Keyword *find_keyword(const uint8_t *s, size_t len) {
    size_t i;
    for (i = 0; i < KEYWORD_COUNT; i++) {
        if (KEYWORDS[i].len == len && memcmp(s, KEYWORDS[i].text, len) == 0) {
            return &KEYWORDS[i];
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Lines
 * ------------------------------------------------------------------------------------------- */

/* Length of the UTF-8 byte order mark at the start of s, if any. */
static size_t bom_len(const uint8_t *s, size_t len) {
    if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
        return 3;
    }
    return 0;
}

/* Splits off the next line of s[*pos..len): sets *line and *line_len (without the '\n' and
 * without one '\r' before it) and advances *pos past the '\n'. Returns 0 at the end of input. */
static int next_line(const uint8_t *s, size_t len, size_t *pos, const uint8_t **line,
                     size_t *line_len) {
    const uint8_t *start;
    const uint8_t *nl;
    size_t n;
    if (*pos >= len) {
        return 0;
    }
    start = s + *pos;
    nl = (const uint8_t *)memchr(start, '\n', len - *pos);
    if (nl != NULL) {
        n = (size_t)(nl - start);
        *pos += n + 1;
    } else {
        n = len - *pos;
        *pos = len;
    }
    if (n > 0 && start[n - 1] == '\r') {
        n--;
    }
    *line = start;
    *line_len = n;
    return 1;
}

static int is_blank(const uint8_t *s, size_t len) {
    size_t i;
    for (i = 0; i < len; i++) {
        if (s[i] != ' ' && s[i] != '\t') {
            return 0;
        }
    }
    return 1;
}

/* Blank lines and comments carry no result. */
static int is_ignored(const uint8_t *s, size_t len) {
    return is_blank(s, len) || s[0] == '#';
}

/* Offset of the first byte of s[0..len) that does not start a well-formed UTF-8 sequence
 * (RFC 3629: no overlong forms, no surrogates U+D800..U+DFFF, nothing above U+10FFFF), or len
 * when all of it is well formed. */
static size_t utf8_invalid_at(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t b = s[i];
        size_t need;
        uint8_t lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        size_t k;
        if (b < 0x80) {
            i++;
            continue;
        } else if (b >= 0xC2 && b <= 0xDF) {
            need = 1;
        } else if (b == 0xE0) {
            need = 2;
            lo = 0xA0; /* no overlongs */
        } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
            need = 2;
        } else if (b == 0xED) {
            need = 2;
            hi = 0x9F; /* no surrogates */
        } else if (b == 0xF0) {
            need = 3;
            lo = 0x90; /* no overlongs */
        } else if (b >= 0xF1 && b <= 0xF3) {
            need = 3;
        } else if (b == 0xF4) {
            need = 3;
            hi = 0x8F; /* nothing above U+10FFFF */
        } else {
            return i; /* 0x80..0xC1 (continuation or overlong lead), 0xF5..0xFF */
        }
        if (len - i <= need) {
            return i; /* truncated sequence */
        }
        if (s[i + 1] < lo || s[i + 1] > hi) {
            return i;
        }
        for (k = 2; k <= need; k++) {
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) {
                return i;
            }
        }
        i += need + 1;
    }
    return len;
}

/* ---------------------------------------------------------------------------------------------
 * The line buffer
 * ------------------------------------------------------------------------------------------- */

/* The longest line accepted, in bytes (the host refuses longer strings anyway). */
#define MAX_LINE_LEN ((size_t)16 * 1024 * 1024)

/* How many bytes each host->read asks for. */
#define CHUNK_LEN 16384u

/* A growable byte buffer owned by one call. */
typedef struct Buf {
    uint8_t *ptr;
    size_t len;
    size_t cap;
} Buf;

/* Appends n bytes; returns 0 when out of memory or past MAX_LINE_LEN. */
static int buf_put(Buf *b, const void *bytes, size_t n) {
    if (n == 0) {
        return 1;
    }
    if (n > MAX_LINE_LEN - b->len) {
        return 0;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *p;
        while (cap < b->len + n) {
            cap *= 2;
        }
        p = (uint8_t *)realloc(b->ptr, cap);
        if (p == NULL) {
            return 0;
        }
        b->ptr = p;
        b->cap = cap;
    }
    memcpy(b->ptr + b->len, bytes, n);
    b->len += n;
    return 1;
}

static GapscoreStr view(const uint8_t *s, size_t len) {
    GapscoreStr v;
    v.ptr = s;
    v.len = len;
    return v;
}

static GapscoreStr absent(void) { return view(NULL, 0); }

/* Reports a failure's message (a C string) to the host and returns `status`. */
static int32_t fail_with(const GapscoreHost *host, int32_t status, const char *msg) {
    host->error(host->ctx, view((const uint8_t *)msg, strlen(msg)), 0, 0, GAPSCORE_NO_OFFSET);
    return status;
}

/* ---------------------------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------------------------- */

/* A parse error: a message made of up to three parts (a prefix, a quoted piece of the input,
 * a suffix) and its place. */
typedef struct ParseError {
    const char *prefix;
    const uint8_t *quoted;
    size_t quoted_len;
    const char *suffix;
    size_t line;
    size_t column;
} ParseError;

static void set_error(ParseError *e, size_t line, size_t column, const char *prefix,
                      const uint8_t *quoted, size_t quoted_len, const char *suffix) {
    e->prefix = prefix;
    e->quoted = quoted;
    e->quoted_len = quoted_len;
    e->suffix = suffix;
    e->line = line;
    e->column = column;
}

/* Shortens s[0..len) (well-formed UTF-8) to at most `max` bytes without splitting a character. */
static size_t utf8_prefix_len(const uint8_t *s, size_t len, size_t max) {
    if (len <= max) {
        return len;
    }
    while (max > 0 && (s[max] & 0xC0) == 0x80) {
        max--;
    }
    return max;
}

/* Hands a parse error to host->error and returns GAPSCORE_ERR_PARSE. The message is built in a
 * fixed buffer: its parts are short static texts and a quote of at most MAX_QUOTED_KEYWORD
 * bytes. */
static int32_t report_parse_error(const GapscoreHost *host, const ParseError *e) {
    uint8_t msg[512];
    size_t n = 0;
    size_t k;
    k = strlen(e->prefix);
    memcpy(msg + n, e->prefix, k);
    n += k;
    if (e->quoted != NULL) {
        k = utf8_prefix_len(e->quoted, e->quoted_len, MAX_QUOTED_KEYWORD);
        memcpy(msg + n, e->quoted, k);
        n += k;
        if (k < e->quoted_len) {
            memcpy(msg + n, "\xE2\x80\xA6", 3); /* U+2026 HORIZONTAL ELLIPSIS */
            n += 3;
        }
    }
    k = strlen(e->suffix);
    memcpy(msg + n, e->suffix, k);
    n += k;
    host->error(host->ctx, view(msg, n), (uint64_t)e->line, (uint64_t)e->column,
                GAPSCORE_NO_OFFSET);
    return GAPSCORE_ERR_PARSE;
}

/* Reads one result line (already known to be well-formed UTF-8, neither blank nor a comment)
 * and sends its test to the host. Returns GAPSCORE_OK, GAPSCORE_ERR_PARSE with `err` filled,
 * or GAPSCORE_ERR_STOPPED when the host asked to stop. */
static int32_t parse_result_line(const GapscoreHost *host, const uint8_t *s, size_t len,
                                 size_t line_no, ParseError *err) {
    size_t tok = 0;
    const Keyword *kw;
    const uint8_t *name;
    size_t name_len;
    const uint8_t *msg = NULL;
    size_t msg_len = 0;
    size_t i;
    GapscoreTest test;

    if (s[0] == ' ' || s[0] == '\t') {
        set_error(err, line_no, 1,
                  "unexpected whitespace at the start of the line " EXPECTED_KEYWORDS, NULL, 0,
                  "");
        return GAPSCORE_ERR_PARSE;
    }
    while (tok < len && s[tok] != ' ' && s[tok] != '\t') {
        tok++;
    }
    kw = find_keyword(s, tok);
    if (kw == NULL) {
        set_error(err, line_no, 1, "unknown keyword \"", s, tok, "\" " EXPECTED_KEYWORDS);
        return GAPSCORE_ERR_PARSE;
    }
    if (tok == len) {
        set_error(err, line_no, tok + 1, "missing test name after \"", s, tok, "\"");
        return GAPSCORE_ERR_PARSE;
    }
    if (s[tok] != ' ') {
        set_error(err, line_no, tok + 1, "expected a space after \"", s, tok, "\"");
        return GAPSCORE_ERR_PARSE;
    }
    name = s + tok + 1;
    name_len = len - tok - 1;
    if (kw->takes_message) {
        for (i = 0; i + 1 < name_len; i++) {
            if (name[i] == ':' && name[i + 1] == ' ') {
                msg = name + i + 2;
                msg_len = name_len - i - 2;
                name_len = i;
                break;
            }
        }
    }
    if (is_blank(name, name_len)) {
        set_error(err, line_no, tok + 2, "empty test name", NULL, 0, "");
        return GAPSCORE_ERR_PARSE;
    }
    /* Every member set: absent strings are {NULL, 0}, codes 0 where "none" is allowed. */
    memset(&test, 0, sizeof test);
    test.struct_size = (uint32_t)sizeof test;
    test.status = kw->status;
    test.id = absent(); /* derived by the host from the name */
    test.suite = absent();
    test.name = view(name, name_len);
    test.message = (msg != NULL && msg_len > 0) ? view(msg, msg_len) : absent();
    test.expected = absent();
    test.actual = absent();
    test.output = absent();
    test.file = absent();
    test.parent_id = absent();
    test.attempts = NULL;
    test.attempt_count = 0;
    test.category = GAPSCORE_CATEGORY_NONE;
    /* The views point into the line buffer, which stays put until the call returns. */
    if (host->test_finished(host->ctx, &test) != 0) {
        return GAPSCORE_ERR_STOPPED;
    }
    return GAPSCORE_OK;
}

/* Handles one line (without its '\n'). */
static int32_t handle_line(const GapscoreHost *host, const uint8_t *line, size_t line_len,
                           size_t line_no) {
    ParseError err;
    size_t bad;
    int32_t status;
    if (line_no == 1) {
        size_t skip = bom_len(line, line_len);
        line += skip;
        line_len -= skip;
    }
    if (line_len > 0 && line[line_len - 1] == '\r') {
        line_len--;
    }
    bad = utf8_invalid_at(line, line_len);
    if (bad < line_len) {
        static const char hex[] = "0123456789ABCDEF";
        /* "00" becomes the byte in hex (the array ends with ')' and the NUL). */
        char suffix[] = "invalid UTF-8 (byte 0x00)";
        suffix[sizeof suffix - 4] = hex[line[bad] >> 4];
        suffix[sizeof suffix - 3] = hex[line[bad] & 0x0F];
        set_error(&err, line_no, bad + 1, "", NULL, 0, suffix);
        return report_parse_error(host, &err);
    }
    if (is_ignored(line, line_len)) {
        return GAPSCORE_OK;
    }
    status = parse_result_line(host, line, line_len, line_no, &err);
    if (status == GAPSCORE_ERR_PARSE) {
        return report_parse_error(host, &err);
    }
    return status;
}

static int32_t c_lines_parse_stream(const GapscoreHost *host, const uint8_t *options_json,
                                    size_t options_len) {
    uint8_t chunk[CHUNK_LEN];
    Buf line = {NULL, 0, 0};
    size_t line_no = 0;
    int32_t status = GAPSCORE_OK;

    /* The members from `parts` on (reading in parts) are newer and unused here: a host table
     * that ends before them is accepted. */
    if (host == NULL || host->struct_size < GAPSCORE_HOST_BASE_SIZE || host->read == NULL ||
        host->test_finished == NULL || host->error == NULL) {
        return GAPSCORE_ERR_INVALID_ARG;
    }
    if (options_json == NULL && options_len > 0) {
        return fail_with(host, GAPSCORE_ERR_INVALID_ARG,
                         "options_json is NULL with a non-zero length");
    }
    /* The options ({"source_name", "format_id"}) change nothing for this one-format adapter;
     * the host records the source itself. */

    for (;;) {
        intptr_t n = host->read(host->ctx, chunk, sizeof chunk);
        size_t i = 0;
        if (n < 0) {
            status = GAPSCORE_ERR_STOPPED; /* the host knows why */
            break;
        }
        if (n == 0) {
            /* A last line without '\n'. */
            if (line.len > 0) {
                status = handle_line(host, line.ptr, line.len, ++line_no);
            }
            break;
        }
        while (i < (size_t)n && status == GAPSCORE_OK) {
            const uint8_t *nl = (const uint8_t *)memchr(chunk + i, '\n', (size_t)n - i);
            size_t take = nl != NULL ? (size_t)(nl - (chunk + i)) : (size_t)n - i;
            if (nl != NULL && line.len == 0) {
                /* The whole line is in the chunk: no copy. */
                status = handle_line(host, chunk + i, take, ++line_no);
            } else {
                if (!buf_put(&line, chunk + i, take)) {
                    status = fail_with(host, GAPSCORE_ERR_INTERNAL,
                                       "out of memory, or a line longer than 16 MiB");
                    break;
                }
                if (nl != NULL) {
                    status = handle_line(host, line.ptr, line.len, ++line_no);
                    line.len = 0;
                }
            }
            i += take + (nl != NULL ? 1u : 0u);
        }
        if (status != GAPSCORE_OK) {
            break;
        }
    }
    free(line.ptr);
    return status;
}

/* ---------------------------------------------------------------------------------------------
 * Detection
 * ------------------------------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s);
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static uint32_t c_lines_detect(const uint8_t *prefix, size_t len, const char *file_name) {
    size_t pos;
    const uint8_t *line;
    size_t line_len;
    size_t i;

    if (prefix == NULL) {
        return 0;
    }
    pos = bom_len(prefix, len);
    while (next_line(prefix, len, &pos, &line, &line_len)) {
        if (is_ignored(line, line_len)) {
            continue;
        }
        /* The first real line decides. */
        for (i = 0; i < KEYWORD_COUNT; i++) {
            const Keyword *k = &KEYWORDS[i];
            if (line_len > k->len && memcmp(line, k->text, k->len) == 0 &&
                line[k->len] == ' ') {
                return (file_name != NULL && ends_with(file_name, ".lines")) ? 90 : 60;
            }
        }
        return 0;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The descriptor
 * ------------------------------------------------------------------------------------------- */

static const char *const FORMAT_IDS[] = {FORMAT_ID};

static const GapscoreAdapterV2 DESCRIPTOR = {
    GAPSCORE_ABI_V2,
    (uint32_t)sizeof(GapscoreAdapterV2),
    ADAPTER_NAME,
    ADAPTER_VERSION,
    FORMAT_IDS,
    sizeof(FORMAT_IDS) / sizeof(FORMAT_IDS[0]),
    c_lines_detect,
    c_lines_parse_stream,
};

/* The entry point: "gapscore_adapter_" + the adapter name with '-' written '_'. */
GAPSCORE_EXPORT const GapscoreAdapterV2 *gapscore_adapter_c_lines(void);

GAPSCORE_EXPORT const GapscoreAdapterV2 *gapscore_adapter_c_lines(void) { return &DESCRIPTOR; }
