//! `recognise` on real runner output: one test per fixture (see
//! `tests/fixtures/recognise/README.md` for where each file came from), all through [`check`].

use gapscore_model::ProblemKind::{self, *};
use gapscore_runner::recognise::recognise;

/// What one recognised line must be: its ecosystem, kind and the start of its text.
type Expected = (&'static str, ProblemKind, &'static str);

fn read(rel: &str) -> String {
    if rel.is_empty() {
        return String::new();
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recognise")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs `recognise` on the fixture files `stdout` and `stderr` (either may be `""`) and compares
/// the result, in order, with `expected`; a failure names the fixture and shows what was found.
fn check(stdout: &str, stderr: &str, expected: &[Expected]) {
    let found = recognise(&read(stdout), &read(stderr));
    let ok = found.len() == expected.len()
        && found.iter().zip(expected).all(|(f, (eco, kind, prefix))| {
            f.ecosystem == *eco && f.kind == *kind && f.line.starts_with(prefix)
        });
    assert!(
        ok,
        "fixture {stdout} / {stderr}:\nexpected {expected:#?}\nfound {:#?}",
        found
            .iter()
            .map(|f| (f.ecosystem, f.kind, f.stream, &f.line))
            .collect::<Vec<_>>()
    );
}

// ---- complete, clean runs (ordinary failing tests only): nothing is recognised ----

#[test]
fn clean_pytest_json_report_standard() {
    check("pytest/standard.console.txt", "", &[]);
}

#[test]
fn clean_pytest_xunit2_standard() {
    check("pytest/xunit2-standard.console.txt", "", &[]);
}

#[test]
fn clean_pytest_big_5000_quiet() {
    check("pytest/big-5000.console.txt", "", &[]);
}

#[test]
fn clean_jest_standard() {
    check("", "jest/standard.stderr.txt", &[]);
}

#[test]
fn clean_perl_test_more_standard() {
    check(
        "tap/perl-standard.stdout.tap",
        "tap/perl-standard.stderr.txt",
        &[],
    );
}

#[test]
fn clean_gotestsum_standard() {
    check("go/gotestsum-standard.console.txt", "", &[]);
}

#[test]
fn clean_go_test_json_standard() {
    check("go/standard.stdout.jsonl", "", &[]);
}

#[test]
fn clean_nextest_standard() {
    check("", "cargo/nextest-corpus-standard.stderr.txt", &[]);
}

#[test]
fn clean_cargo_test_standard() {
    check(
        "cargo/standard.stdout.txt",
        "cargo/standard.stderr.txt",
        &[],
    );
}

#[test]
fn clean_node_test_standard() {
    check("node/standard.stdout.tap", "", &[]);
    check("node/corpus-standard.stdout.tap", "", &[]);
}

/// nextest runs each test in its own process: a test's crash or timeout is in the JUnit file, not
/// a run-level problem.
#[test]
fn clean_nextest_per_test_crashes_and_timeout() {
    check("", "cargo/nextest-per-test-crashes.stderr.txt", &[]);
}

/// A killed pytest leaves no wording at all: the exit status is the evidence.
#[test]
fn clean_pytest_killed_mid_run_has_no_wording() {
    check("pytest/killed-mid-run.console.txt", "", &[]);
}

// ---- go ----

#[test]
fn go_test_json_build_failure() {
    check(
        "go/build-failure.stdout.jsonl",
        "go/build-failure.stderr.txt",
        &[
            (
                "go",
                BuildFailure,
                "FAIL\texample.com/buildfail/broken [build failed]",
            ),
            (
                "go",
                BuildFailure,
                "# example.com/buildfail/broken [example.com/buildfail/broken.test]",
            ),
        ],
    );
}

#[test]
fn go_test_v_build_failure() {
    check(
        "go/buildfail-v-2to1.txt",
        "",
        &[
            ("go", BuildFailure, "# example.com/buildfail/broken ["),
            (
                "go",
                BuildFailure,
                "FAIL\texample.com/buildfail/broken [build failed]",
            ),
        ],
    );
}

#[test]
fn go_test_json_timeout() {
    check(
        "go/timeout.stdout.jsonl",
        "",
        &[("go", Timeout, "panic: test timed out after 1s")],
    );
}

#[test]
fn gotestsum_panic() {
    check(
        "go/gotestsum-panic.console.txt",
        "",
        &[(
            "go",
            Crash,
            "panic: assignment to entry in nil map [recovered]",
        )],
    );
}

// ---- jest ----

#[test]
fn jest_syntax_error_and_missing_module() {
    check(
        "",
        "jest/syntax-error.stderr.txt",
        &[("jest", SuiteError, "● Test suite failed to run")],
    );
}

#[test]
fn jest_junit_syntax_error() {
    check(
        "",
        "jest/junit-syntaxerror.stderr.txt",
        &[("jest", SuiteError, "● Test suite failed to run")],
    );
}

// ---- vitest ----

#[test]
fn vitest_failed_suites_and_unhandled_error() {
    check(
        "vitest/failed-suites.stdout.txt",
        "vitest/failed-suites.stderr.txt",
        &[
            (
                "vitest",
                SuiteError,
                "FAIL  t/missing.test.js [ t/missing.test.js ]",
            ),
            (
                "vitest",
                CollectionError,
                "Error: Cannot find module './does-not-exist.js' imported from ",
            ),
            (
                "vitest",
                SuiteError,
                "FAIL  t/syntax.test.js [ t/syntax.test.js ]",
            ),
            (
                "vitest",
                Crash,
                "Vitest caught 1 unhandled error during the test run.",
            ),
        ],
    );
}

#[test]
fn vitest_no_test_files() {
    check(
        "vitest/no-test-files.stdout.txt",
        "vitest/no-test-files.stderr.txt",
        &[(
            "vitest",
            MissingTests,
            "No test files found, exiting with code 1",
        )],
    );
}

// ---- node --test ----

#[test]
fn node_missing_module() {
    check(
        "node/missing.stdout.tap",
        "",
        &[
            (
                "node",
                CollectionError,
                "# Error: Cannot find module './does-not-exist'",
            ),
            ("node", Aborted, "error: 'test failed'"),
        ],
    );
}

#[test]
fn node_esm_missing_module() {
    check(
        "node/esm.stdout.tap",
        "",
        &[
            (
                "node",
                CollectionError,
                "# Error [ERR_MODULE_NOT_FOUND]: Cannot find module ",
            ),
            ("node", Aborted, "error: 'test failed'"),
        ],
    );
}

#[test]
fn node_syntax_error() {
    check(
        "node/syntax.stdout.tap",
        "",
        &[
            (
                "node",
                CollectionError,
                "# SyntaxError: missing ) after argument list",
            ),
            ("node", Aborted, "error: 'test failed'"),
        ],
    );
}

#[test]
fn node_process_exit_mid_file() {
    check(
        "node/exit.stdout.tap",
        "",
        &[("node", Aborted, "error: 'test failed'")],
    );
}

#[test]
fn node_killed() {
    check(
        "node/killed.stdout.tap",
        "",
        &[
            ("node", Killed, "signal: 'SIGKILL'"),
            ("node", Aborted, "error: 'test failed'"),
        ],
    );
}

#[test]
fn node_out_of_memory() {
    check(
        "node/oom.stdout.tap",
        "",
        &[
            (
                "node",
                Killed,
                "# FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            ),
            ("node", Crash, "signal: 'SIGABRT'"),
            ("node", Aborted, "error: 'test failed'"),
        ],
    );
}

#[test]
fn node_test_file_not_found() {
    check(
        "",
        "node/file-not-found.stderr.txt",
        &[("node", CollectionError, "Could not find '")],
    );
}

// ---- pytest and python ----

#[test]
fn pytest_collection_error() {
    check(
        "pytest/collection-error.console.txt",
        "",
        &[
            (
                "pytest",
                CollectionError,
                "_______________________ ERROR collecting test_broken.py",
            ),
            (
                "pytest",
                CollectionError,
                "_______________________ ERROR collecting test_syntax.py",
            ),
            (
                "pytest",
                Aborted,
                "!!!!!!!!!!!!!!!!!!! Interrupted: 2 errors during collection !",
            ),
        ],
    );
}

#[test]
fn pytest_collection_error_continue() {
    check(
        "pytest/collection-error-continue.console.txt",
        "",
        &[
            (
                "pytest",
                CollectionError,
                "_______________________ ERROR collecting test_broken.py",
            ),
            (
                "pytest",
                CollectionError,
                "_______________________ ERROR collecting test_syntax.py",
            ),
        ],
    );
}

#[test]
fn pytest_quiet_collection_error() {
    check(
        "pytest/q.stdout.txt",
        "",
        &[
            (
                "pytest",
                CollectionError,
                "__________________________ ERROR collecting test_q.py",
            ),
            (
                "pytest",
                Aborted,
                "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !",
            ),
        ],
    );
}

#[test]
fn pytest_keyboard_interrupt() {
    check(
        "pytest/kbint.stdout.txt",
        "",
        &[(
            "pytest",
            Interrupted,
            "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!! KeyboardInterrupt !",
        )],
    );
}

#[test]
fn pytest_exit() {
    check(
        "pytest/exitcase.stdout.txt",
        "",
        &[(
            "pytest",
            Interrupted,
            "!!!!!!!!!!!!! _pytest.outcomes.Exit: database fixture unavailable !",
        )],
    );
}

#[test]
fn pytest_internal_error() {
    check(
        "pytest/internal.stdout.txt",
        "",
        &[(
            "pytest",
            Crash,
            "INTERNALERROR> RuntimeError: plugin hook exploded",
        )],
    );
}

#[test]
fn pytest_path_not_found() {
    check(
        "pytest/notfound.stdout.txt",
        "pytest/notfound.stderr.txt",
        &[
            (
                "pytest",
                MissingTests,
                "============================ no tests ran in ",
            ),
            (
                "pytest",
                CollectionError,
                "ERROR: file or directory not found: tests",
            ),
        ],
    );
}

#[test]
fn pytest_no_tests() {
    check(
        "pytest/notests.stdout.txt",
        "",
        &[(
            "pytest",
            MissingTests,
            "============================ no tests ran in ",
        )],
    );
}

#[test]
fn pytest_usage_error() {
    check(
        "",
        "pytest/noargs.stderr.txt",
        &[(
            "pytest",
            SuiteError,
            "pytest: error: unrecognized arguments: --json-report-file=x.json",
        )],
    );
}

#[test]
fn python_segfault_under_pytest() {
    check(
        "pytest/segv.stdout.txt",
        "pytest/segv.stderr.txt",
        &[("python", Crash, "Fatal Python error: Segmentation fault")],
    );
}

// ---- TAP, perl and prove ----

#[test]
fn tap_perl_bail_out() {
    check(
        "tap/perl-bail-out.stdout.tap",
        "tap/perl-bail-out.stderr.txt",
        &[("tap", BailOut, "Bail out!  database connection lost")],
    );
}

#[test]
fn perl_plan_too_few() {
    check(
        "",
        "tap/perl-plan-too-few.stderr.txt",
        &[(
            "prove",
            PlanMismatch,
            "# Looks like you planned 3 tests but ran 5.",
        )],
    );
}

#[test]
fn prove_bail_out() {
    check(
        "prove/bail-out.stdout.txt",
        "prove/bail-out.stderr.txt",
        &[
            (
                "prove",
                BailOut,
                "Bailout called.  Further testing stopped:  database connection lost",
            ),
            (
                "prove",
                PlanMismatch,
                "Parse errors: Bad plan.  You planned 6 tests but ran 3.",
            ),
        ],
    );
}

#[test]
fn prove_died_killed_and_no_plan() {
    check(
        "prove/died.stdout.txt",
        "prove/died.stderr.txt",
        &[
            (
                "prove",
                PlanMismatch,
                "Parse errors: Bad plan.  You planned 5 tests but ran 2.",
            ),
            (
                "prove",
                PlanMismatch,
                "Parse errors: Bad plan.  You planned 3 tests but ran 0.",
            ),
            ("prove", NoPlan, "Parse errors: No plan found in TAP output"),
            ("prove", Killed, "Non-zero wait status: 9"),
            (
                "prove",
                PlanMismatch,
                "Parse errors: Bad plan.  You planned 3 tests but ran 1.",
            ),
            (
                "prove",
                Aborted,
                "# Looks like your test exited with 255 just after 2.",
            ),
            (
                "prove",
                Aborted,
                "# Looks like your test exited with 255 before it could output anything.",
            ),
            (
                "prove",
                PlanMismatch,
                "# Looks like you planned 5 tests but ran 2.",
            ),
        ],
    );
}

#[test]
fn prove_compile_errors() {
    check(
        "prove/compile-error.stdout.txt",
        "prove/compile-error.stderr.txt",
        &[
            (
                "prove",
                PlanMismatch,
                "Parse errors: Bad plan.  You planned 2 tests but ran 0.",
            ),
            ("prove", NoPlan, "Parse errors: No plan found in TAP output"),
            (
                "prove",
                BuildFailure,
                "Execution of t/syntax.t aborted due to compilation errors.",
            ),
            (
                "prove",
                Aborted,
                "# Looks like your test exited with 255 before it could output anything.",
            ),
            (
                "prove",
                BuildFailure,
                "BEGIN failed--compilation aborted at t/missingmod.t line 2.",
            ),
            (
                "prove",
                Aborted,
                "# Looks like your test exited with 2 before it could output anything.",
            ),
        ],
    );
}

// ---- cargo and nextest ----

#[test]
fn cargo_test_compile_error() {
    check(
        "",
        "cargo/compile-error.stderr.txt",
        &[
            ("cargo", BuildFailure, "error[E0308]: mismatched types"),
            (
                "cargo",
                BuildFailure,
                "error[E0425]: cannot find function `undefined_helper`",
            ),
            (
                "cargo",
                BuildFailure,
                "error: could not compile `compile` (lib test) due to 2 previous errors",
            ),
        ],
    );
}

#[test]
fn nextest_compile_error() {
    check(
        "",
        "cargo/nextest-compile-error.stderr.txt",
        &[
            ("cargo", BuildFailure, "error[E0308]: mismatched types"),
            (
                "cargo",
                BuildFailure,
                "error[E0425]: cannot find function `undefined_helper`",
            ),
            ("cargo", BuildFailure, "error: could not compile `compile`"),
            ("cargo", BuildFailure, "error: command `"),
        ],
    );
}

#[test]
fn cargo_test_binary_aborted() {
    check(
        "cargo/abort.stdout.txt",
        "cargo/abort.stderr.txt",
        &[("cargo", Crash, "process didn't exit successfully: `")],
    );
}

#[test]
fn cargo_test_binary_killed() {
    check(
        "cargo/killed.stdout.txt",
        "cargo/killed.stderr.txt",
        &[("cargo", Killed, "process didn't exit successfully: `")],
    );
}
