/* gapscore adapter plugin "c-lines", written in plain C11 against the adapter C ABI v1
 * (adapters/sdk/include/gapscore_adapter.h; the contract is docs/abi.md).
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
 * and a leading UTF-8 byte order mark are accepted. Anything else is a parse error reported as
 * {"message", "line", "column"}; lines and columns are 1-based, columns count bytes.
 *
 * Thread safety: there is no mutable global state; every call works on its arguments and on
 * heap memory it owns, so detect/parse/free_buf may run concurrently on any thread.
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
    const char *status;   /* canonical status */
    int takes_message;    /* 1: the name ends at the first ": " */
} Keyword;

static const Keyword KEYWORDS[] = {
    {"PASS", 4, "passed", 0},
    {"FAIL", 4, "failed", 1},
    {"ERROR", 5, "errored", 1},
    {"SKIP", 4, "skipped", 1},
    {"TODO", 4, "todo", 0},
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
 * Output buffer and JSON
 * ------------------------------------------------------------------------------------------- */

/* A growable byte buffer owned by one call. After a failure (out of memory, or output beyond
 * GAPSCORE_MAX_OUTPUT_LEN) every further write is a no-op and `failed` stays set. */
typedef struct Out {
    uint8_t *ptr;
    size_t len;
    size_t cap;
    int failed;
} Out;

static void out_put(Out *o, const void *bytes, size_t n) {
    if (o->failed || n == 0) {
        return;
    }
    if (n > (size_t)GAPSCORE_MAX_OUTPUT_LEN - o->len) {
        o->failed = 1;
        return;
    }
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        uint8_t *p;
        while (cap < o->len + n) {
            cap = cap > (size_t)GAPSCORE_MAX_OUTPUT_LEN / 2 ? (size_t)GAPSCORE_MAX_OUTPUT_LEN
                                                             : cap * 2;
        }
        p = (uint8_t *)realloc(o->ptr, cap);
        if (p == NULL) {
            o->failed = 1;
            return;
        }
        o->ptr = p;
        o->cap = cap;
    }
    memcpy(o->ptr + o->len, bytes, n);
    o->len += n;
}

static void out_str(Out *o, const char *s) { out_put(o, s, strlen(s)); }

/* Writes v in decimal (by hand: no printf, so no locale and no %zu portability questions). */
static void out_size(Out *o, size_t v) {
    char digits[3 * sizeof(size_t) + 1];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    out_put(o, digits + n, sizeof digits - n);
}

/* Writes s[0..len) (well-formed UTF-8) as a JSON string: quote and backslash escaped, control
 * characters as \u00XX, everything else (UTF-8 included) copied as is. */
static void out_json_string(Out *o, const uint8_t *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    size_t run = 0; /* start of the bytes not yet copied */
    size_t i;
    out_put(o, "\"", 1);
    for (i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\' || c < 0x20) {
            out_put(o, s + run, i - run);
            if (c == '"') {
                out_put(o, "\\\"", 2);
            } else if (c == '\\') {
                out_put(o, "\\\\", 2);
            } else {
                char esc[] = "\\u00XX";
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 0x0F];
                out_put(o, esc, 6);
            }
            run = i + 1;
        }
    }
    out_put(o, s + run, len - run);
    out_put(o, "\"", 1);
}

/* Hands the buffer to the host, or frees it and reports {NULL, 0} when it failed. */
static int finish(Out *o, GapscoreBuf *out) {
    if (o->failed) {
        free(o->ptr);
        out->ptr = NULL;
        out->len = 0;
        return 0;
    }
    out->ptr = o->ptr;
    out->len = o->len;
    return 1;
}

/* Writes {"message": msg} and returns `status`; {NULL, 0} when even that cannot be allocated. */
static int32_t fail_with(GapscoreBuf *out, int32_t status, const char *msg) {
    Out o = {NULL, 0, 0, 0};
    out_str(&o, "{\"message\":");
    out_json_string(&o, (const uint8_t *)msg, strlen(msg));
    out_str(&o, "}");
    finish(&o, out);
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

static int32_t write_parse_error(const ParseError *e, GapscoreBuf *out) {
    Out o = {NULL, 0, 0, 0};
    Out msg = {NULL, 0, 0, 0};
    /* The message, built as raw UTF-8 first, then written as one JSON string. */
    out_str(&msg, e->prefix);
    if (e->quoted != NULL) {
        size_t n = utf8_prefix_len(e->quoted, e->quoted_len, MAX_QUOTED_KEYWORD);
        out_put(&msg, e->quoted, n);
        if (n < e->quoted_len) {
            out_str(&msg, "\xE2\x80\xA6"); /* U+2026 HORIZONTAL ELLIPSIS */
        }
    }
    out_str(&msg, e->suffix);
    out_str(&o, "{\"message\":");
    if (msg.failed) {
        o.failed = 1;
    } else {
        out_json_string(&o, msg.ptr, msg.len);
    }
    free(msg.ptr);
    out_str(&o, ",\"line\":");
    out_size(&o, e->line);
    out_str(&o, ",\"column\":");
    out_size(&o, e->column);
    out_str(&o, "}");
    if (!finish(&o, out)) {
        return fail_with(out, GAPSCORE_ERR_INTERNAL, "out of memory writing a parse error");
    }
    return GAPSCORE_ERR_PARSE;
}

/* Reads one result line (already known to be well-formed UTF-8, neither blank nor a comment)
 * and appends its test object to `o`. Returns 0 and fills `err` when the line is invalid. */
static int parse_result_line(const uint8_t *s, size_t len, size_t line_no, int first_test,
                             Out *o, ParseError *err) {
    size_t tok = 0;
    const Keyword *kw;
    const uint8_t *name;
    size_t name_len;
    const uint8_t *msg = NULL;
    size_t msg_len = 0;
    size_t i;

    if (s[0] == ' ' || s[0] == '\t') {
        set_error(err, line_no, 1,
                  "unexpected whitespace at the start of the line " EXPECTED_KEYWORDS, NULL, 0,
                  "");
        return 0;
    }
    while (tok < len && s[tok] != ' ' && s[tok] != '\t') {
        tok++;
    }
    kw = find_keyword(s, tok);
    if (kw == NULL) {
        set_error(err, line_no, 1, "unknown keyword \"", s, tok, "\" " EXPECTED_KEYWORDS);
        return 0;
    }
    if (tok == len) {
        set_error(err, line_no, tok + 1, "missing test name after \"", s, tok, "\"");
        return 0;
    }
    if (s[tok] != ' ') {
        set_error(err, line_no, tok + 1, "expected a space after \"", s, tok, "\"");
        return 0;
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
        return 0;
    }
    out_str(o, first_test ? "{\"name\":" : ",{\"name\":");
    out_json_string(o, name, name_len);
    out_str(o, ",\"status\":\"");
    out_str(o, kw->status);
    out_str(o, "\"");
    if (msg != NULL && msg_len > 0) {
        out_str(o, ",\"message\":");
        out_json_string(o, msg, msg_len);
    }
    out_str(o, "}");
    return 1;
}

static int32_t c_lines_parse(const uint8_t *input, size_t len, const uint8_t *options_json,
                             size_t options_len, GapscoreBuf *out) {
    Out o = {NULL, 0, 0, 0};
    ParseError err;
    size_t pos;
    size_t line_no = 0;
    int first_test = 1;
    const uint8_t *line;
    size_t line_len;

    if (out == NULL) {
        return GAPSCORE_ERR_INVALID_ARG;
    }
    out->ptr = NULL;
    out->len = 0;
    if (input == NULL && len > 0) {
        return fail_with(out, GAPSCORE_ERR_INVALID_ARG, "input is NULL with a non-zero length");
    }
    if (options_json == NULL && options_len > 0) {
        return fail_with(out, GAPSCORE_ERR_INVALID_ARG,
                         "options_json is NULL with a non-zero length");
    }
    /* The options ({"source_name", "format_id"}) change nothing for this one-format adapter;
     * the host records the source itself. */

    pos = input == NULL ? 0 : bom_len(input, len);
    out_str(&o, "{\"format\":\"" FORMAT_ID "\",\"tests\":[");
    while (input != NULL && next_line(input, len, &pos, &line, &line_len)) {
        size_t bad;
        line_no++;
        bad = utf8_invalid_at(line, line_len);
        if (bad < line_len) {
            static const char hex[] = "0123456789ABCDEF";
            /* "00" becomes the byte in hex (the array ends with ')' and the NUL). */
            char suffix[] = "invalid UTF-8 (byte 0x00)";
            suffix[sizeof suffix - 4] = hex[line[bad] >> 4];
            suffix[sizeof suffix - 3] = hex[line[bad] & 0x0F];
            set_error(&err, line_no, bad + 1, "", NULL, 0, suffix);
            free(o.ptr);
            return write_parse_error(&err, out);
        }
        if (is_ignored(line, line_len)) {
            continue;
        }
        if (!parse_result_line(line, line_len, line_no, first_test, &o, &err)) {
            free(o.ptr);
            return write_parse_error(&err, out);
        }
        first_test = 0;
        if (o.failed) {
            break; /* out of memory or over the output limit: reading on is pointless */
        }
    }
    out_str(&o, "]}");
    if (!finish(&o, out)) {
        return fail_with(out, GAPSCORE_ERR_INTERNAL,
                         "out of memory, or results larger than GAPSCORE_MAX_OUTPUT_LEN");
    }
    return GAPSCORE_OK;
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
 * Memory and the descriptor
 * ------------------------------------------------------------------------------------------- */

static void c_lines_free_buf(GapscoreBuf buf) {
    free(buf.ptr); /* free(NULL) is a no-op, so {NULL, 0} is fine */
}

static const char *const FORMAT_IDS[] = {FORMAT_ID};

static const GapscoreAdapterV1 DESCRIPTOR = {
    GAPSCORE_ABI_VERSION,
    (uint32_t)sizeof(GapscoreAdapterV1),
    ADAPTER_NAME,
    ADAPTER_VERSION,
    FORMAT_IDS,
    sizeof(FORMAT_IDS) / sizeof(FORMAT_IDS[0]),
    c_lines_detect,
    c_lines_parse,
    c_lines_free_buf,
};

/* The entry point: "gapscore_adapter_" + the adapter name with '-' written '_'. */
GAPSCORE_EXPORT const GapscoreAdapterV1 *gapscore_adapter_c_lines(void);

GAPSCORE_EXPORT const GapscoreAdapterV1 *gapscore_adapter_c_lines(void) { return &DESCRIPTOR; }
