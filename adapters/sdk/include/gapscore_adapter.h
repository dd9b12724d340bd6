/* gapscore adapter C ABI v1 and v2.
 *
 * GENERATED from adapters/sdk/src/abi/ by `GAPSCORE_UPDATE_HEADER=1 cargo test -p gapscore-adapter-sdk`;
 * do not edit. The contract (memory, threads, versioning, errors) is docs/abi.md.
 */
#ifndef GAPSCORE_ADAPTER_H
#define GAPSCORE_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A descriptor's abi_version. There is deliberately no GAPSCORE_ABI_VERSION (v1 headers had
 * one): a v1 plugin recompiled against this header must not silently claim v2 with a v1
 * layout, so it fails to compile until it names GAPSCORE_ABI_V1 (or is ported to v2). */
#define GAPSCORE_ABI_V1 1u
#define GAPSCORE_ABI_V2 2u
/* The versions this header's hosts load. */
#define GAPSCORE_MIN_ABI_VERSION 1u
#define GAPSCORE_MAX_ABI_VERSION 2u

/* Status codes of parse (v1) and parse_stream (v2). */
#define GAPSCORE_OK 0 /* success */
#define GAPSCORE_ERR_PARSE 1 /* invalid input (v1: out holds {"message", "line", "column"}) */
#define GAPSCORE_ERR_UNSUPPORTED 2 /* a variant of the format the adapter cannot read */
#define GAPSCORE_ERR_INVALID_ARG 3 /* a null pointer or bad options */
#define GAPSCORE_ERR_PANIC 4 /* the adapter panicked (Rust SDK) */
#define GAPSCORE_ERR_INTERNAL 5 /* any other failure */
#define GAPSCORE_ERR_STOPPED 6 /* v2: a host callback returned non-zero, or read returned -1 */

/* detect() sees at most this many leading bytes of a file. */
#define GAPSCORE_DETECT_PREFIX_LEN 65536u
/* v1 only: the host refuses a parse() output, or an input, longer than this. */
#define GAPSCORE_MAX_OUTPUT_LEN 268435456u

#if defined(_WIN32)
#define GAPSCORE_EXPORT __declspec(dllexport)
#else
#define GAPSCORE_EXPORT __attribute__((visibility("default")))
#endif

/* v2 status codes (GapscoreTest.status, GapscoreAttempt.status); 0 is never valid. */
#define GAPSCORE_STATUS_PASSED 1u
#define GAPSCORE_STATUS_FAILED 2u
#define GAPSCORE_STATUS_ERRORED 3u
#define GAPSCORE_STATUS_SKIPPED 4u
#define GAPSCORE_STATUS_XFAILED 5u
#define GAPSCORE_STATUS_XPASSED 6u
#define GAPSCORE_STATUS_TODO 7u

/* v2 category codes (GapscoreTest.category); 0 is none. */
#define GAPSCORE_CATEGORY_NONE 0u
#define GAPSCORE_CATEGORY_HAPPY_PATH 1u
#define GAPSCORE_CATEGORY_EDGE_CASE 2u
#define GAPSCORE_CATEGORY_ERROR_HANDLING 3u
#define GAPSCORE_CATEGORY_SECURITY 4u
#define GAPSCORE_CATEGORY_UNKNOWN 5u

/* v2 problem kinds (problem()'s kind); 0 is never valid. */
#define GAPSCORE_PROBLEM_BUILD_FAILURE 1u
#define GAPSCORE_PROBLEM_COLLECTION_ERROR 2u
#define GAPSCORE_PROBLEM_SUITE_ERROR 3u
#define GAPSCORE_PROBLEM_ABORTED 4u
#define GAPSCORE_PROBLEM_CRASH 5u
#define GAPSCORE_PROBLEM_TIMEOUT 6u
#define GAPSCORE_PROBLEM_KILLED 7u
#define GAPSCORE_PROBLEM_TRUNCATED 8u
#define GAPSCORE_PROBLEM_BAIL_OUT 9u
#define GAPSCORE_PROBLEM_PLAN_MISMATCH 10u
#define GAPSCORE_PROBLEM_NO_PLAN 11u
#define GAPSCORE_PROBLEM_MISSING_TESTS 12u
#define GAPSCORE_PROBLEM_MISSING_RESULTS 13u
#define GAPSCORE_PROBLEM_INTERRUPTED 14u
#define GAPSCORE_PROBLEM_RUNNER_FAILED 15u
#define GAPSCORE_PROBLEM_DECLARED_COUNTS 16u
#define GAPSCORE_PROBLEM_SUMMARY_COUNTS 17u
#define GAPSCORE_PROBLEM_EXIT_STATUS 18u
#define GAPSCORE_PROBLEM_SUMMARY_LINE 19u
#define GAPSCORE_PROBLEM_UNREADABLE_COUNT 20u
#define GAPSCORE_PROBLEM_UNATTRIBUTED_RESULTS 21u
#define GAPSCORE_PROBLEM_SURPLUS_RESULTS 22u
#define GAPSCORE_PROBLEM_MISSING_SUMMARY 23u
#define GAPSCORE_PROBLEM_FOREIGN_CONTENT 24u
#define GAPSCORE_PROBLEM_DOTTED_TWIN 25u

/* GapscoreTest.flags bits. */
#define GAPSCORE_TEST_HAS_DURATION 1u
#define GAPSCORE_TEST_PARENT 2u
/* error()'s offset when the error has no byte offset. */
#define GAPSCORE_NO_OFFSET UINT64_MAX

/* Pointers to 0 bytes (len == 0) may be NULL or dangling: never dereference them. */
/* 0..=100: how sure the adapter is that it reads this file. file_name may be NULL. */
typedef uint32_t (*GapscoreDetectFn)(const uint8_t *prefix, size_t len, const char *file_name);

/* ---- ABI v1: one JSON document out ---- */

/* A buffer allocated by the plugin and released by its free_buf(). */
typedef struct GapscoreBuf {
    uint8_t *ptr;
    size_t len;
} GapscoreBuf;

/* Parse one whole document; write results JSON (or an error object) to *out, which the
 * host sets to {NULL, 0} before the call. */
typedef int32_t (*GapscoreParseFn)(const uint8_t *input, size_t len,
                                  const uint8_t *options_json, size_t options_len,
                                  GapscoreBuf *out);
/* Release a buffer returned through parse()'s out; must accept {NULL, 0}. */
typedef void (*GapscoreFreeBufFn)(GapscoreBuf buf);

/* The v1 descriptor: members are append-only; abi_version must stay first. */
typedef struct GapscoreAdapterV1 {
    uint32_t abi_version;
    uint32_t struct_size;
    const char *name;
    const char *adapter_version;
    const char *const *format_ids;
    size_t format_count;
    GapscoreDetectFn detect;
    GapscoreParseFn parse;
    GapscoreFreeBufFn free_buf;
} GapscoreAdapterV1;

/* ---- ABI v2: streaming in, events out ---- */

/* A borrowed UTF-8 view: ptr NULL = absent; not NUL-terminated. */
typedef struct GapscoreStr {
    const uint8_t *ptr;
    size_t len;
} GapscoreStr;

/* An earlier attempt of a retried test. */
typedef struct GapscoreAttempt {
    uint32_t status;
    uint32_t has_duration;
    double duration;
    GapscoreStr message;
} GapscoreAttempt;

/* One finished test; every pointer borrowed for the test_finished() call only. */
typedef struct GapscoreTest {
    uint32_t struct_size;
    uint32_t status;
    GapscoreStr id;
    GapscoreStr suite;
    GapscoreStr name;
    GapscoreStr message;
    GapscoreStr expected;
    GapscoreStr actual;
    GapscoreStr output;
    GapscoreStr file;
    GapscoreStr parent_id;
    const GapscoreAttempt *attempts;
    size_t attempt_count;
    double duration;
    uint32_t line;
    uint32_t category;
    uint32_t flags;
    uint32_t reserved;
    GapscoreStr decided_at;
} GapscoreTest;

/* The host's functions; each event function returns 0 to go on, non-zero to stop. */
/* Fill up to cap bytes of buf; return the count, 0 at the end of input, -1 on a host error. */
typedef intptr_t (*GapscoreReadFn)(void *ctx, uint8_t *buf, size_t cap);
typedef int32_t (*GapscoreProducerFn)(void *ctx, GapscoreStr name, GapscoreStr version);
/* id must equal the id of the test's test_finished() (or be derived the same way). */
typedef int32_t (*GapscoreTestStartedFn)(void *ctx, GapscoreStr suite, GapscoreStr name,
                                         GapscoreStr id);
typedef int32_t (*GapscoreTestFinishedFn)(void *ctx, const GapscoreTest *test);
/* kind: GAPSCORE_PROBLEM_*; count 0 means 1. */
typedef int32_t (*GapscoreProblemFn)(void *ctx, uint32_t kind, GapscoreStr detail,
                                     GapscoreStr suite, uint64_t count);
typedef int32_t (*GapscoreWarningFn)(void *ctx, GapscoreStr message);
/* code: a registry code ("W108", docs/codes.md); one the host does not know is W001.
 * Present when host->struct_size covers it; otherwise call warning(). */
typedef int32_t (*GapscoreWarningCodedFn)(void *ctx, GapscoreStr code, GapscoreStr message);
/* Why parse_stream() is about to return a failing status; line/column 1-based or 0,
 * offset a byte offset into the input or GAPSCORE_NO_OFFSET. */
typedef void (*GapscoreErrorFn)(void *ctx, GapscoreStr message, uint64_t line,
                                uint64_t column, uint64_t offset);

/* Reading in parts (docs/abi.md): NULL members unless host->parts > 1. */
typedef struct GapscoreHost GapscoreHost;
/* The input from byte offset: the count, 0 at or past the end, -1 on a host error.
 * Called with input_ctx, from any thread, concurrently. */
typedef intptr_t (*GapscoreReadAtFn)(void *input_ctx, uint64_t offset, uint8_t *buf,
                                     size_t cap);
/* A new table for a later part (its events from any one thread at a time); NULL: no more. */
typedef const GapscoreHost *(*GapscorePartOpenFn)(void *ctx);
/* 0: the host takes parts of an input of about this many tests in all. */
typedef int32_t (*GapscorePartsFitFn)(void *ctx, uint64_t tests);
/* 0: the parts, in the input's order, append exactly after ctx's events. */
typedef int32_t (*GapscorePartsCheckFn)(void *ctx, const GapscoreHost *const *parts,
                                        size_t count);
/* Ends the parts: append 1 appends them (non-zero: refused, the parse stops), 0 drops them. */
typedef int32_t (*GapscorePartsEndFn)(void *ctx, const GapscoreHost *const *parts,
                                      size_t count, uint32_t append);

/* What the host passes to parse_stream(): valid for that call only, on that thread (but
 * read_at, and the tables of parts: docs/abi.md, "Reading in parts"). */
typedef struct GapscoreHost {
    uint32_t struct_size;
    uint32_t reserved;
    void *ctx;
    GapscoreReadFn read;
    GapscoreProducerFn producer;
    GapscoreTestStartedFn test_started;
    GapscoreTestFinishedFn test_finished;
    GapscoreProblemFn problem;
    GapscoreWarningFn warning;
    GapscoreErrorFn error;
    uint32_t parts;
    uint32_t reserved2;
    uint64_t input_len;
    void *input_ctx;
    GapscoreReadAtFn read_at;
    GapscorePartOpenFn part_open;
    GapscorePartsFitFn parts_fit;
    GapscorePartsCheckFn parts_check;
    GapscorePartsEndFn parts_end;
    GapscoreWarningCodedFn warning_coded;
} GapscoreHost;

/* The size rule (docs/abi.md, "Versioning and negotiation"): a plugin accepts any host
 * table at least this long (the first v2 members, up to error) and reads a member after
 * error only when host->struct_size covers it. Never require sizeof(GapscoreHost): an older
 * host's table is shorter. */
#define GAPSCORE_HOST_BASE_SIZE offsetof(GapscoreHost, parts)

/* Read one document through host->read and report it through host's functions. */
typedef int32_t (*GapscoreParseStreamFn)(const GapscoreHost *host, const uint8_t *options_json,
                                        size_t options_len);

/* The v2 descriptor: abi_version 2; members are append-only. */
typedef struct GapscoreAdapterV2 {
    uint32_t abi_version;
    uint32_t struct_size;
    const char *name;
    const char *adapter_version;
    const char *const *format_ids;
    size_t format_count;
    GapscoreDetectFn detect;
    GapscoreParseStreamFn parse_stream;
} GapscoreAdapterV2;

/* Each adapter exports one entry function returning its descriptor (v1 or v2):
 *     GAPSCORE_EXPORT const GapscoreAdapterV2 *gapscore_adapter_<name>(void); */
typedef const void *(*GapscoreEntryFn)(void);

/* Layout checks on 64-bit targets: these offsets are the Rust host's. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(offsetof(GapscoreAdapterV1, abi_version) == 0, "GapscoreAdapterV1.abi_version offset");
_Static_assert(offsetof(GapscoreAdapterV1, struct_size) == 4, "GapscoreAdapterV1.struct_size offset");
_Static_assert(offsetof(GapscoreAdapterV1, name) == 8, "GapscoreAdapterV1.name offset");
_Static_assert(offsetof(GapscoreAdapterV1, adapter_version) == 16, "GapscoreAdapterV1.adapter_version offset");
_Static_assert(offsetof(GapscoreAdapterV1, format_ids) == 24, "GapscoreAdapterV1.format_ids offset");
_Static_assert(offsetof(GapscoreAdapterV1, format_count) == 32, "GapscoreAdapterV1.format_count offset");
_Static_assert(offsetof(GapscoreAdapterV1, detect) == 40, "GapscoreAdapterV1.detect offset");
_Static_assert(offsetof(GapscoreAdapterV1, parse) == 48, "GapscoreAdapterV1.parse offset");
_Static_assert(offsetof(GapscoreAdapterV1, free_buf) == 56, "GapscoreAdapterV1.free_buf offset");
_Static_assert(sizeof(GapscoreAdapterV1) == 64, "GapscoreAdapterV1 size");
_Static_assert(sizeof(GapscoreBuf) == 16, "GapscoreBuf size");
_Static_assert(offsetof(GapscoreStr, ptr) == 0, "GapscoreStr.ptr offset");
_Static_assert(offsetof(GapscoreStr, len) == 8, "GapscoreStr.len offset");
_Static_assert(sizeof(GapscoreStr) == 16, "GapscoreStr size");
_Static_assert(offsetof(GapscoreAttempt, status) == 0, "GapscoreAttempt.status offset");
_Static_assert(offsetof(GapscoreAttempt, has_duration) == 4, "GapscoreAttempt.has_duration offset");
_Static_assert(offsetof(GapscoreAttempt, duration) == 8, "GapscoreAttempt.duration offset");
_Static_assert(offsetof(GapscoreAttempt, message) == 16, "GapscoreAttempt.message offset");
_Static_assert(sizeof(GapscoreAttempt) == 32, "GapscoreAttempt size");
_Static_assert(offsetof(GapscoreTest, struct_size) == 0, "GapscoreTest.struct_size offset");
_Static_assert(offsetof(GapscoreTest, status) == 4, "GapscoreTest.status offset");
_Static_assert(offsetof(GapscoreTest, id) == 8, "GapscoreTest.id offset");
_Static_assert(offsetof(GapscoreTest, suite) == 24, "GapscoreTest.suite offset");
_Static_assert(offsetof(GapscoreTest, name) == 40, "GapscoreTest.name offset");
_Static_assert(offsetof(GapscoreTest, message) == 56, "GapscoreTest.message offset");
_Static_assert(offsetof(GapscoreTest, expected) == 72, "GapscoreTest.expected offset");
_Static_assert(offsetof(GapscoreTest, actual) == 88, "GapscoreTest.actual offset");
_Static_assert(offsetof(GapscoreTest, output) == 104, "GapscoreTest.output offset");
_Static_assert(offsetof(GapscoreTest, file) == 120, "GapscoreTest.file offset");
_Static_assert(offsetof(GapscoreTest, parent_id) == 136, "GapscoreTest.parent_id offset");
_Static_assert(offsetof(GapscoreTest, attempts) == 152, "GapscoreTest.attempts offset");
_Static_assert(offsetof(GapscoreTest, attempt_count) == 160, "GapscoreTest.attempt_count offset");
_Static_assert(offsetof(GapscoreTest, duration) == 168, "GapscoreTest.duration offset");
_Static_assert(offsetof(GapscoreTest, line) == 176, "GapscoreTest.line offset");
_Static_assert(offsetof(GapscoreTest, category) == 180, "GapscoreTest.category offset");
_Static_assert(offsetof(GapscoreTest, flags) == 184, "GapscoreTest.flags offset");
_Static_assert(offsetof(GapscoreTest, reserved) == 188, "GapscoreTest.reserved offset");
_Static_assert(offsetof(GapscoreTest, decided_at) == 192, "GapscoreTest.decided_at offset");
_Static_assert(sizeof(GapscoreTest) == 208, "GapscoreTest size");
_Static_assert(offsetof(GapscoreHost, struct_size) == 0, "GapscoreHost.struct_size offset");
_Static_assert(offsetof(GapscoreHost, reserved) == 4, "GapscoreHost.reserved offset");
_Static_assert(offsetof(GapscoreHost, ctx) == 8, "GapscoreHost.ctx offset");
_Static_assert(offsetof(GapscoreHost, read) == 16, "GapscoreHost.read offset");
_Static_assert(offsetof(GapscoreHost, producer) == 24, "GapscoreHost.producer offset");
_Static_assert(offsetof(GapscoreHost, test_started) == 32, "GapscoreHost.test_started offset");
_Static_assert(offsetof(GapscoreHost, test_finished) == 40, "GapscoreHost.test_finished offset");
_Static_assert(offsetof(GapscoreHost, problem) == 48, "GapscoreHost.problem offset");
_Static_assert(offsetof(GapscoreHost, warning) == 56, "GapscoreHost.warning offset");
_Static_assert(offsetof(GapscoreHost, error) == 64, "GapscoreHost.error offset");
_Static_assert(offsetof(GapscoreHost, parts) == 72, "GapscoreHost.parts offset");
_Static_assert(offsetof(GapscoreHost, reserved2) == 76, "GapscoreHost.reserved2 offset");
_Static_assert(offsetof(GapscoreHost, input_len) == 80, "GapscoreHost.input_len offset");
_Static_assert(offsetof(GapscoreHost, input_ctx) == 88, "GapscoreHost.input_ctx offset");
_Static_assert(offsetof(GapscoreHost, read_at) == 96, "GapscoreHost.read_at offset");
_Static_assert(offsetof(GapscoreHost, part_open) == 104, "GapscoreHost.part_open offset");
_Static_assert(offsetof(GapscoreHost, parts_fit) == 112, "GapscoreHost.parts_fit offset");
_Static_assert(offsetof(GapscoreHost, parts_check) == 120, "GapscoreHost.parts_check offset");
_Static_assert(offsetof(GapscoreHost, parts_end) == 128, "GapscoreHost.parts_end offset");
_Static_assert(offsetof(GapscoreHost, warning_coded) == 136, "GapscoreHost.warning_coded offset");
_Static_assert(sizeof(GapscoreHost) == 144, "GapscoreHost size");
_Static_assert(offsetof(GapscoreAdapterV2, abi_version) == 0, "GapscoreAdapterV2.abi_version offset");
_Static_assert(offsetof(GapscoreAdapterV2, struct_size) == 4, "GapscoreAdapterV2.struct_size offset");
_Static_assert(offsetof(GapscoreAdapterV2, name) == 8, "GapscoreAdapterV2.name offset");
_Static_assert(offsetof(GapscoreAdapterV2, adapter_version) == 16, "GapscoreAdapterV2.adapter_version offset");
_Static_assert(offsetof(GapscoreAdapterV2, format_ids) == 24, "GapscoreAdapterV2.format_ids offset");
_Static_assert(offsetof(GapscoreAdapterV2, format_count) == 32, "GapscoreAdapterV2.format_count offset");
_Static_assert(offsetof(GapscoreAdapterV2, detect) == 40, "GapscoreAdapterV2.detect offset");
_Static_assert(offsetof(GapscoreAdapterV2, parse_stream) == 48, "GapscoreAdapterV2.parse_stream offset");
_Static_assert(sizeof(GapscoreAdapterV2) == 56, "GapscoreAdapterV2 size");
#endif

#ifdef __cplusplus
}
#endif

#endif /* GAPSCORE_ADAPTER_H */
