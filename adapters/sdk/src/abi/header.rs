//! The C header `include/gapscore_adapter.h`, generated from the Rust definitions of [`super::v1`]
//! and [`super::v2`] so the two cannot drift; a test compares it with the committed file, and
//! the header's `_Static_assert`s check the C layout against the Rust offsets.

use std::fmt::Write as _;
use std::mem::size_of;

use gapscore_model::{ProblemKind, Status};

use super::v1::{DESCRIPTOR_FIELDS_V1, GapscoreAdapterV1, GapscoreBuf};
use super::v2::{
    ATTEMPT_FIELDS, DESCRIPTOR_FIELDS_V2, GAPSCORE_TEST_HAS_DURATION, GAPSCORE_TEST_PARENT,
    GapscoreAdapterV2, GapscoreAttempt, GapscoreHost, GapscoreStr, GapscoreTest, HOST_FIELDS,
    STR_FIELDS, TEST_FIELDS, category_code, problem_code, status_code,
};
use super::*;

type Fields = [(&'static str, &'static str, usize)];

fn write_struct(w: &mut String, name: &str, doc: &str, fields: &Fields) {
    let _ = writeln!(w, "/* {doc} */\ntypedef struct {name} {{");
    for (ty, field, _) in fields {
        let sep = if ty.ends_with('*') { "" } else { " " };
        let _ = writeln!(w, "    {ty}{sep}{field};");
    }
    let _ = writeln!(w, "}} {name};\n");
}

fn write_asserts(w: &mut String, name: &str, fields: &Fields, size: usize) {
    for (_, field, offset) in fields {
        let _ = writeln!(
            w,
            "_Static_assert(offsetof({name}, {field}) == {offset}, \"{name}.{field} offset\");"
        );
    }
    let _ = writeln!(
        w,
        "_Static_assert(sizeof({name}) == {size}, \"{name} size\");"
    );
}

fn upper(s: &str) -> String {
    s.to_ascii_uppercase().replace('-', "_")
}

/// The C header, generated.
pub fn c_header() -> String {
    let mut h = String::new();
    let w = &mut h;
    let _ = writeln!(
        w,
        "/* gapscore adapter C ABI v{GAPSCORE_MIN_ABI_VERSION} and v{GAPSCORE_ABI_VERSION}.\n *\n * GENERATED from adapters/sdk/src/abi/ by `GAPSCORE_UPDATE_HEADER=1 cargo test -p gapscore-adapter-sdk`;\n * do not edit. The contract (memory, threads, versioning, errors) is docs/abi.md.\n */"
    );
    let _ = writeln!(
        w,
        "#ifndef GAPSCORE_ADAPTER_H\n#define GAPSCORE_ADAPTER_H\n"
    );
    let _ = writeln!(w, "#include <stddef.h>\n#include <stdint.h>\n");
    let _ = writeln!(w, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    let _ = writeln!(
        w,
        "/* A descriptor's abi_version. There is deliberately no GAPSCORE_ABI_VERSION (v1 headers had\n * one): a v1 plugin recompiled against this header must not silently claim v2 with a v1\n * layout, so it fails to compile until it names GAPSCORE_ABI_V1 (or is ported to v2). */"
    );
    let _ = writeln!(w, "#define GAPSCORE_ABI_V1 1u\n#define GAPSCORE_ABI_V2 2u");
    let _ = writeln!(
        w,
        "/* The versions this header's hosts load. */\n#define GAPSCORE_MIN_ABI_VERSION {GAPSCORE_MIN_ABI_VERSION}u\n#define GAPSCORE_MAX_ABI_VERSION {GAPSCORE_ABI_VERSION}u\n"
    );
    let _ = writeln!(w, "/* Status codes of parse (v1) and parse_stream (v2). */");
    for (name, value, doc) in [
        ("GAPSCORE_OK", GAPSCORE_OK, "success"),
        (
            "GAPSCORE_ERR_PARSE",
            GAPSCORE_ERR_PARSE,
            "invalid input (v1: out holds {\"message\", \"line\", \"column\"})",
        ),
        (
            "GAPSCORE_ERR_UNSUPPORTED",
            GAPSCORE_ERR_UNSUPPORTED,
            "a variant of the format the adapter cannot read",
        ),
        (
            "GAPSCORE_ERR_INVALID_ARG",
            GAPSCORE_ERR_INVALID_ARG,
            "a null pointer or bad options",
        ),
        (
            "GAPSCORE_ERR_PANIC",
            GAPSCORE_ERR_PANIC,
            "the adapter panicked (Rust SDK)",
        ),
        (
            "GAPSCORE_ERR_INTERNAL",
            GAPSCORE_ERR_INTERNAL,
            "any other failure",
        ),
        (
            "GAPSCORE_ERR_STOPPED",
            GAPSCORE_ERR_STOPPED,
            "v2: a host callback returned non-zero, or read returned -1",
        ),
    ] {
        let _ = writeln!(w, "#define {name} {value} /* {doc} */");
    }
    let _ = writeln!(
        w,
        "\n/* detect() sees at most this many leading bytes of a file. */\n#define GAPSCORE_DETECT_PREFIX_LEN {}u",
        crate::DETECT_PREFIX_LEN
    );
    let _ = writeln!(
        w,
        "/* v1 only: the host refuses a parse() output, or an input, longer than this. */\n#define GAPSCORE_MAX_OUTPUT_LEN {GAPSCORE_MAX_OUTPUT_LEN}u\n"
    );
    let _ = writeln!(
        w,
        "#if defined(_WIN32)\n#define GAPSCORE_EXPORT __declspec(dllexport)\n#else\n#define GAPSCORE_EXPORT __attribute__((visibility(\"default\")))\n#endif\n"
    );

    // v2 codes, generated from the model's enums.
    let _ = writeln!(
        w,
        "/* v2 status codes (GapscoreTest.status, GapscoreAttempt.status); 0 is never valid. */"
    );
    for s in Status::ALL {
        let _ = writeln!(
            w,
            "#define GAPSCORE_STATUS_{} {}u",
            upper(s.as_str()),
            status_code(s)
        );
    }
    let _ = writeln!(
        w,
        "\n/* v2 category codes (GapscoreTest.category); 0 is none. */"
    );
    let _ = writeln!(w, "#define GAPSCORE_CATEGORY_NONE 0u");
    for c in [
        Category::HappyPath,
        Category::EdgeCase,
        Category::ErrorHandling,
        Category::Security,
        Category::Unknown,
    ] {
        let _ = writeln!(
            w,
            "#define GAPSCORE_CATEGORY_{} {}u",
            upper(c.as_str()),
            category_code(Some(c))
        );
    }
    let _ = writeln!(
        w,
        "\n/* v2 problem kinds (problem()'s kind); 0 is never valid. */"
    );
    for k in ProblemKind::ALL {
        let _ = writeln!(
            w,
            "#define GAPSCORE_PROBLEM_{} {}u",
            upper(k.as_str()),
            problem_code(k)
        );
    }
    let _ = writeln!(
        w,
        "\n/* GapscoreTest.flags bits. */\n#define GAPSCORE_TEST_HAS_DURATION {GAPSCORE_TEST_HAS_DURATION}u\n#define GAPSCORE_TEST_PARENT {GAPSCORE_TEST_PARENT}u\n/* error()'s offset when the error has no byte offset. */\n#define GAPSCORE_NO_OFFSET UINT64_MAX\n"
    );

    // Shared.
    let _ = writeln!(
        w,
        "/* Pointers to 0 bytes (len == 0) may be NULL or dangling: never dereference them. */\n/* 0..=100: how sure the adapter is that it reads this file. file_name may be NULL. */\ntypedef uint32_t (*GapscoreDetectFn)(const uint8_t *prefix, size_t len, const char *file_name);\n"
    );

    // v1.
    let _ = writeln!(w, "/* ---- ABI v1: one JSON document out ---- */\n");
    let _ = writeln!(
        w,
        "/* A buffer allocated by the plugin and released by its free_buf(). */\ntypedef struct GapscoreBuf {{\n    uint8_t *ptr;\n    size_t len;\n}} GapscoreBuf;\n"
    );
    let _ = writeln!(
        w,
        "/* Parse one whole document; write results JSON (or an error object) to *out, which the\n * host sets to {{NULL, 0}} before the call. */\ntypedef int32_t (*GapscoreParseFn)(const uint8_t *input, size_t len,\n                                  const uint8_t *options_json, size_t options_len,\n                                  GapscoreBuf *out);"
    );
    let _ = writeln!(
        w,
        "/* Release a buffer returned through parse()'s out; must accept {{NULL, 0}}. */\ntypedef void (*GapscoreFreeBufFn)(GapscoreBuf buf);\n"
    );
    write_struct(
        w,
        "GapscoreAdapterV1",
        "The v1 descriptor: members are append-only; abi_version must stay first.",
        &DESCRIPTOR_FIELDS_V1,
    );

    // v2.
    let _ = writeln!(w, "/* ---- ABI v2: streaming in, events out ---- */\n");
    write_struct(
        w,
        "GapscoreStr",
        "A borrowed UTF-8 view: ptr NULL = absent; not NUL-terminated.",
        &STR_FIELDS,
    );
    write_struct(
        w,
        "GapscoreAttempt",
        "An earlier attempt of a retried test.",
        &ATTEMPT_FIELDS,
    );
    write_struct(
        w,
        "GapscoreTest",
        "One finished test; every pointer borrowed for the test_finished() call only.",
        &TEST_FIELDS,
    );
    let _ = writeln!(
        w,
        "/* The host's functions; each event function returns 0 to go on, non-zero to stop. */\n\
         /* Fill up to cap bytes of buf; return the count, 0 at the end of input, -1 on a host error. */\n\
         typedef intptr_t (*GapscoreReadFn)(void *ctx, uint8_t *buf, size_t cap);\n\
         typedef int32_t (*GapscoreProducerFn)(void *ctx, GapscoreStr name, GapscoreStr version);\n\
         /* id must equal the id of the test's test_finished() (or be derived the same way). */\n\
         typedef int32_t (*GapscoreTestStartedFn)(void *ctx, GapscoreStr suite, GapscoreStr name,\n                                         GapscoreStr id);\n\
         typedef int32_t (*GapscoreTestFinishedFn)(void *ctx, const GapscoreTest *test);\n\
         /* kind: GAPSCORE_PROBLEM_*; count 0 means 1. */\n\
         typedef int32_t (*GapscoreProblemFn)(void *ctx, uint32_t kind, GapscoreStr detail,\n                                     GapscoreStr suite, uint64_t count);\n\
         typedef int32_t (*GapscoreWarningFn)(void *ctx, GapscoreStr message);\n\
         /* code: a registry code (\"W108\", docs/codes.md); one the host does not know is W001.\n * Present when host->struct_size covers it; otherwise call warning(). */\n\
         typedef int32_t (*GapscoreWarningCodedFn)(void *ctx, GapscoreStr code, GapscoreStr message);\n\
         /* Why parse_stream() is about to return a failing status; line/column 1-based or 0,\n * offset a byte offset into the input or GAPSCORE_NO_OFFSET. */\n\
         typedef void (*GapscoreErrorFn)(void *ctx, GapscoreStr message, uint64_t line,\n                                uint64_t column, uint64_t offset);\n\n\
         /* Reading in parts (docs/abi.md): NULL members unless host->parts > 1. */\n\
         typedef struct GapscoreHost GapscoreHost;\n\
         /* The input from byte offset: the count, 0 at or past the end, -1 on a host error.\n * Called with input_ctx, from any thread, concurrently. */\n\
         typedef intptr_t (*GapscoreReadAtFn)(void *input_ctx, uint64_t offset, uint8_t *buf,\n                                     size_t cap);\n\
         /* A new table for a later part (its events from any one thread at a time); NULL: no more. */\n\
         typedef const GapscoreHost *(*GapscorePartOpenFn)(void *ctx);\n\
         /* 0: the host takes parts of an input of about this many tests in all. */\n\
         typedef int32_t (*GapscorePartsFitFn)(void *ctx, uint64_t tests);\n\
         /* 0: the parts, in the input's order, append exactly after ctx's events. */\n\
         typedef int32_t (*GapscorePartsCheckFn)(void *ctx, const GapscoreHost *const *parts,\n                                        size_t count);\n\
         /* Ends the parts: append 1 appends them (non-zero: refused, the parse stops), 0 drops them. */\n\
         typedef int32_t (*GapscorePartsEndFn)(void *ctx, const GapscoreHost *const *parts,\n                                      size_t count, uint32_t append);\n"
    );
    write_struct(
        w,
        "GapscoreHost",
        "What the host passes to parse_stream(): valid for that call only, on that thread (but\n * read_at, and the tables of parts: docs/abi.md, \"Reading in parts\").",
        &HOST_FIELDS,
    );
    let _ = writeln!(
        w,
        "/* The size rule (docs/abi.md, \"Versioning and negotiation\"): a plugin accepts any host\n * table at least this long (the first v2 members, up to error) and reads a member after\n * error only when host->struct_size covers it. Never require sizeof(GapscoreHost): an older\n * host's table is shorter. */\n#define GAPSCORE_HOST_BASE_SIZE offsetof(GapscoreHost, parts)\n"
    );
    let _ = writeln!(
        w,
        "/* Read one document through host->read and report it through host's functions. */\ntypedef int32_t (*GapscoreParseStreamFn)(const GapscoreHost *host, const uint8_t *options_json,\n                                        size_t options_len);\n"
    );
    write_struct(
        w,
        "GapscoreAdapterV2",
        "The v2 descriptor: abi_version 2; members are append-only.",
        &DESCRIPTOR_FIELDS_V2,
    );
    let _ = writeln!(
        w,
        "/* Each adapter exports one entry function returning its descriptor (v1 or v2):\n *     GAPSCORE_EXPORT const GapscoreAdapterV2 *gapscore_adapter_<name>(void); */\ntypedef const void *(*GapscoreEntryFn)(void);\n"
    );
    let _ = writeln!(
        w,
        "/* Layout checks on 64-bit targets: these offsets are the Rust host's. */\n#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && UINTPTR_MAX == 0xffffffffffffffffu"
    );
    write_asserts(
        w,
        "GapscoreAdapterV1",
        &DESCRIPTOR_FIELDS_V1,
        size_of::<GapscoreAdapterV1>(),
    );
    let _ = writeln!(
        w,
        "_Static_assert(sizeof(GapscoreBuf) == {}, \"GapscoreBuf size\");",
        size_of::<GapscoreBuf>()
    );
    write_asserts(w, "GapscoreStr", &STR_FIELDS, size_of::<GapscoreStr>());
    write_asserts(
        w,
        "GapscoreAttempt",
        &ATTEMPT_FIELDS,
        size_of::<GapscoreAttempt>(),
    );
    write_asserts(w, "GapscoreTest", &TEST_FIELDS, size_of::<GapscoreTest>());
    write_asserts(w, "GapscoreHost", &HOST_FIELDS, size_of::<GapscoreHost>());
    write_asserts(
        w,
        "GapscoreAdapterV2",
        &DESCRIPTOR_FIELDS_V2,
        size_of::<GapscoreAdapterV2>(),
    );
    let _ = writeln!(w, "#endif\n");
    let _ = writeln!(
        w,
        "#ifdef __cplusplus\n}}\n#endif\n\n#endif /* GAPSCORE_ADAPTER_H */"
    );
    h
}

use gapscore_model::Category;
