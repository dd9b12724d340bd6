/* gapscore adapter C ABI v1.
 *
 * GENERATED from adapters/sdk/src/abi.rs by `GAPSCORE_UPDATE_HEADER=1 cargo test -p gapscore-adapter-sdk`;
 * do not edit. The contract (memory, threads, versioning, errors) is docs/abi.md.
 */
#ifndef GAPSCORE_ADAPTER_H
#define GAPSCORE_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GAPSCORE_ABI_VERSION 1u
#define GAPSCORE_MIN_ABI_VERSION 1u

#define GAPSCORE_OK 0 /* out holds the results JSON */
#define GAPSCORE_ERR_PARSE 1 /* invalid input; out holds {"message", "line", "column"} */
#define GAPSCORE_ERR_UNSUPPORTED 2 /* a variant of the format the adapter cannot read */
#define GAPSCORE_ERR_INVALID_ARG 3 /* a null pointer or bad options */
#define GAPSCORE_ERR_PANIC 4 /* the adapter panicked (Rust SDK) */
#define GAPSCORE_ERR_INTERNAL 5 /* any other failure */

/* detect() sees at most this many leading bytes of a file. */
#define GAPSCORE_DETECT_PREFIX_LEN 65536u
/* The host rejects a parse() output longer than this. */
#define GAPSCORE_MAX_OUTPUT_LEN 268435456u

#if defined(_WIN32)
#define GAPSCORE_EXPORT __declspec(dllexport)
#else
#define GAPSCORE_EXPORT __attribute__((visibility("default")))
#endif

/* A buffer allocated by the plugin and released by its free_buf(). */
typedef struct GapscoreBuf {
    uint8_t *ptr;
    size_t len;
} GapscoreBuf;

/* Pointers to 0 bytes (len == 0) may be NULL or dangling: never dereference them. */
/* 0..=100: how sure the adapter is that it reads this file. file_name may be NULL. */
typedef uint32_t (*GapscoreDetectFn)(const uint8_t *prefix, size_t len, const char *file_name);
/* Parse one whole document; write results JSON (or an error object) to *out. */
typedef int32_t (*GapscoreParseFn)(const uint8_t *input, size_t len,
                                  const uint8_t *options_json, size_t options_len,
                                  GapscoreBuf *out);
/* Release a buffer returned through parse()'s out; must accept {NULL, 0}. */
typedef void (*GapscoreFreeBufFn)(GapscoreBuf buf);

/* The descriptor: fields are append-only; abi_version must stay first. */
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

/* Each adapter exports: GAPSCORE_EXPORT const GapscoreAdapterV1 *gapscore_adapter_<name>(void); */
typedef const GapscoreAdapterV1 *(*GapscoreEntryFn)(void);

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
#endif

#ifdef __cplusplus
}
#endif

#endif /* GAPSCORE_ADAPTER_H */
