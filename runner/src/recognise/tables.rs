//! The recognisers' tables: one per ecosystem, each entry a runner's real wording for a run-level
//! problem and where that wording was seen.
//!
//! Only RUN-level trouble belongs here (a build, collection or suite that failed to run; a run
//! that was interrupted, killed, timed out or crashed). An ordinary failing test is in the result
//! file already and must never match: every table is checked against the corpus's clean runs.
//!
//! `docs/run-recognisers.md` lists the same entries for readers; keep the two in step.

use gapscore_model::ProblemKind;

/// How a line is matched: every non-empty part must hold. All matching is on the line with ANSI
/// colours removed and trailing whitespace trimmed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pattern {
    /// The line starts with this (after its indentation, when `indented`).
    pub start: &'static str,
    /// Leading whitespace is skipped before `start` is checked.
    pub indented: bool,
    /// The rest of the line (after `start`) contains this.
    pub contains: &'static str,
    /// The line ends with this.
    pub end: &'static str,
    /// The line does not contain this.
    pub unless: &'static str,
    /// Consecutive matching lines form one block, reported once (its last line).
    pub block: bool,
}

impl Pattern {
    /// A line starting (at column 0) with `start`.
    pub const fn starts(start: &'static str) -> Pattern {
        Pattern {
            start,
            indented: false,
            contains: "",
            end: "",
            unless: "",
            block: false,
        }
    }

    /// A line starting with `start` after any indentation.
    pub const fn indented(start: &'static str) -> Pattern {
        Pattern {
            indented: true,
            ..Pattern::starts(start)
        }
    }

    /// Also requires `needle` after the start.
    pub const fn contains(self, needle: &'static str) -> Pattern {
        Pattern {
            contains: needle,
            ..self
        }
    }

    /// Also requires the line to end with `end`.
    pub const fn ends(self, end: &'static str) -> Pattern {
        Pattern { end, ..self }
    }

    /// Rejects lines containing `text`.
    pub const fn unless(self, text: &'static str) -> Pattern {
        Pattern {
            unless: text,
            ..self
        }
    }

    /// Reports a run of consecutive matching lines once, by its last line.
    pub const fn block(self) -> Pattern {
        Pattern {
            block: true,
            ..self
        }
    }

    /// Whether `line` (colours removed, trailing whitespace trimmed) matches.
    pub fn matches(&self, line: &str) -> bool {
        let body = if self.indented {
            line.trim_start()
        } else {
            line
        };
        let Some(rest) = body.strip_prefix(self.start) else {
            return false;
        };
        (self.end.is_empty() || rest.ends_with(self.end))
            && (self.contains.is_empty() || rest.contains(self.contains))
            && (self.unless.is_empty() || !body.contains(self.unless))
    }
}

/// One recognised wording.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// The problem the line stands for.
    pub kind: ProblemKind,
    /// How the line is matched.
    pub pattern: Pattern,
    /// Where the wording was seen: a corpus file (`corpus:` path under
    /// `/work/shared/corpus/real/`), a fixture (under `runner/tests/fixtures/recognise/`) generated with a named runner version, or the
    /// runner's source. Read by the tests (every entry must say) and by people.
    #[cfg_attr(not(test), allow(dead_code))]
    pub seen: &'static str,
}

/// One ecosystem's entries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    /// The ecosystem's name, as reported in [`super::Recognised::ecosystem`].
    pub ecosystem: &'static str,
    /// Its entries; within a table the first matching entry wins.
    pub entries: &'static [Entry],
}

const fn entry(kind: ProblemKind, pattern: Pattern, seen: &'static str) -> Entry {
    Entry {
        kind,
        pattern,
        seen,
    }
}

use ProblemKind::{
    Aborted, BailOut, BuildFailure, CollectionError, Crash, Interrupted, Killed, MissingTests,
    NoPlan, PlanMismatch, SuiteError, Timeout,
};

/// Go: `go test` (plain, `-v`, `-json` once decoded) and gotestsum's console.
const GO: &[Entry] = &[
    entry(
        BuildFailure,
        Pattern::starts("FAIL\t").ends(" [build failed]"),
        "corpus: go-test-json/build-failure/go-test.jsonl (first line, go1.19.8); junit-xml/go-junit-report-buildfail/go-test-v-2to1.txt",
    ),
    entry(
        BuildFailure,
        Pattern::starts("FAIL\t").ends(" [setup failed]"),
        "cmd/go source (go >= 1.20), e.g. `FAIL\tcommand-line-arguments [setup failed]`; not in the corpus",
    ),
    entry(
        BuildFailure,
        Pattern::starts("# ").ends(".test]"),
        "corpus: go-test-json/build-failure/stderr.txt (`# pkg [pkg.test]`, the compiler's header, go1.19.8)",
    ),
    entry(
        Timeout,
        Pattern::starts("panic: test timed out after "),
        "corpus: go-test-json/timeout/go-test.jsonl (go1.19.8, -timeout 1s)",
    ),
    entry(
        Timeout,
        Pattern::starts("*** Test killed with quit: ran too long"),
        "cmd/go source (the outer watchdog, `*** Test killed with quit: ran too long (10m0s).`); not in the corpus",
    ),
    entry(
        Crash,
        Pattern::starts("panic: "),
        "corpus: junit-xml/gotestsum-panic/console.txt (go1.19.8 via gotestsum 1.8.2)",
    ),
    entry(
        Crash,
        Pattern::starts("fatal error: "),
        "Go runtime source (`fatal error: all goroutines are asleep - deadlock!`, `fatal error: concurrent map writes`); not in the corpus",
    ),
];

/// Jest's default reporter (stderr).
const JEST: &[Entry] = &[entry(
    SuiteError,
    Pattern::indented("● Test suite failed to run"),
    "corpus: jest-json/syntax-error/console-stderr.txt, junit-xml/jest-junit-syntaxerror-suiteerrors/console-stderr.txt (jest 30.5.2)",
)];

/// Vitest's default reporter.
const VITEST: &[Entry] = &[
    entry(
        SuiteError,
        Pattern::indented("FAIL ")
            .contains(" [ ")
            .ends(" ]")
            .unless(" > "),
        "fixture vitest/failed-suites.stderr.txt (vitest 4.1.12: ` FAIL  t/missing.test.js [ t/missing.test.js ]`)",
    ),
    entry(
        CollectionError,
        Pattern::starts("Error: Cannot find module '").contains("' imported from "),
        "fixture vitest/failed-suites.stderr.txt (vitest 4.1.12)",
    ),
    entry(
        Crash,
        Pattern::starts("Vitest caught ").contains(" unhandled error"),
        "fixture vitest/failed-suites.stderr.txt (vitest 4.1.12: `Vitest caught 1 unhandled error during the test run.`)",
    ),
    entry(
        MissingTests,
        Pattern::starts("No test files found, exiting with code "),
        "fixture vitest/no-test-files.stderr.txt (vitest 4.1.12)",
    ),
];

/// `node --test` (v20): a test file's own stderr is relayed as `# ` TAP comments.
const NODE: &[Entry] = &[
    entry(
        CollectionError,
        Pattern::starts("Error: Cannot find module '"),
        "node v20.20.2 `node file.js` stderr; relayed by `node --test` as `# Error: ...`",
    ),
    entry(
        CollectionError,
        Pattern::starts("# Error: Cannot find module '"),
        "fixture node/missing.stdout.tap (node v20.20.2 --test)",
    ),
    entry(
        CollectionError,
        Pattern::starts("Error [ERR_MODULE_NOT_FOUND]: "),
        "node v20.20.2 `node file.mjs` stderr; relayed by `node --test` as `# Error [...]`",
    ),
    entry(
        CollectionError,
        Pattern::starts("# Error [ERR_MODULE_NOT_FOUND]: "),
        "fixture node/esm.stdout.tap (node v20.20.2 --test)",
    ),
    entry(
        CollectionError,
        Pattern::starts("SyntaxError: "),
        "node v20.20.2 `node file.js` stderr; relayed by `node --test` as `# SyntaxError: ...`",
    ),
    entry(
        CollectionError,
        Pattern::starts("# SyntaxError: "),
        "fixture node/syntax.stdout.tap (node v20.20.2 --test)",
    ),
    entry(
        CollectionError,
        Pattern::starts("Could not find '"),
        "fixture node/file-not-found.stderr.txt (node v20.20.2 --test on a missing file)",
    ),
    entry(
        Killed,
        Pattern::starts("FATAL ERROR: ").contains("JavaScript heap out of memory"),
        "V8's out-of-memory abort on node v20.20.2 stderr; relayed by `node --test` as `# FATAL ERROR: ...`",
    ),
    entry(
        Killed,
        Pattern::starts("# FATAL ERROR: ").contains("JavaScript heap out of memory"),
        "fixture node/oom.stdout.tap (node v20.20.2 --test, --max-old-space-size=16)",
    ),
    entry(
        Killed,
        Pattern::indented("signal: 'SIGKILL'"),
        "fixture node/killed.stdout.tap (node v20.20.2 --test, the test file's YAML block); corpus: tap/node-test-truncated/output.tap",
    ),
    entry(
        Killed,
        Pattern::indented("signal: 'SIGTERM'"),
        "same YAML field as `signal: 'SIGKILL'` (node's test runner writes the child's signal name)",
    ),
    entry(
        Crash,
        Pattern::indented("signal: 'SIGABRT'"),
        "fixture node/oom.stdout.tap (node v20.20.2 --test)",
    ),
    entry(
        Crash,
        Pattern::indented("signal: 'SIGSEGV'"),
        "same YAML field as `signal: 'SIGABRT'` (node's test runner writes the child's signal name)",
    ),
    entry(
        Aborted,
        Pattern::indented("error: 'test failed'"),
        "fixtures node/missing.stdout.tap, node/exit.stdout.tap (node v20.20.2 --test: a test file that ended without reporting its tests)",
    ),
];

/// pytest's terminal reporter.
const PYTEST: &[Entry] = &[
    entry(
        CollectionError,
        Pattern::starts("_").contains(" ERROR collecting "),
        "corpus: junit-xml/pytest-collection-error/console.txt (pytest 9.2.0)",
    ),
    entry(
        Aborted,
        Pattern::starts("!").contains(" during collection "),
        "corpus: junit-xml/pytest-collection-error/console.txt (`!!! Interrupted: 2 errors during collection !!!`, pytest 9.2.0)",
    ),
    entry(
        Interrupted,
        Pattern::starts("!").contains(" KeyboardInterrupt "),
        "fixture pytest/kbint.stdout.txt (pytest 9.2.0)",
    ),
    entry(
        Interrupted,
        Pattern::starts("!").contains(" _pytest.outcomes.Exit: "),
        "fixture pytest/exitcase.stdout.txt (pytest 9.2.0, `pytest.exit(...)`)",
    ),
    entry(
        Crash,
        Pattern::starts("INTERNALERROR>").block(),
        "fixture pytest/internal.stdout.txt (pytest 9.2.0; one block, reported by its last line)",
    ),
    entry(
        CollectionError,
        Pattern::starts("ERROR: file or directory not found: "),
        "fixture pytest/notfound.stderr.txt (pytest 9.2.0)",
    ),
    entry(
        SuiteError,
        Pattern::starts("pytest: error: "),
        "fixture pytest/noargs.stderr.txt (pytest 9.2.0, an unknown option such as a missing plugin's)",
    ),
    entry(
        MissingTests,
        Pattern::starts("=").contains(" no tests ran in "),
        "fixture pytest/notests.stdout.txt (pytest 9.2.0)",
    ),
    entry(
        MissingTests,
        Pattern::starts("no tests ran in "),
        "pytest 9.2.0 with -q, seen by hand (the same summary without the `=` rule)",
    ),
];

/// The Python interpreter itself (faulthandler, which pytest enables).
const PYTHON: &[Entry] = &[entry(
    Crash,
    Pattern::starts("Fatal Python error: "),
    "fixture pytest/segv.stderr.txt (Python 3.11.7 under pytest 9.2.0)",
)];

/// The TAP protocol, whoever produced it.
const TAP: &[Entry] = &[entry(
    BailOut,
    Pattern::starts("Bail out!"),
    "corpus: tap/perl-bail-out/output.tap (Test::More 1.302190)",
)];

/// Perl: Test::More's diagnostics, prove (TAP::Harness) and perl itself.
const PROVE: &[Entry] = &[
    entry(
        BailOut,
        Pattern::starts("Bailout called.  Further testing stopped:"),
        "fixture prove/bail-out.stdout.txt (prove 3.44)",
    ),
    entry(
        PlanMismatch,
        Pattern::starts("# Looks like you planned "),
        "corpus: tap/perl-plan-too-few/stderr.txt, tap/perl-plan-too-many/stderr.txt (Test::More 1.302190)",
    ),
    entry(
        Aborted,
        Pattern::starts("# Looks like your test exited with "),
        "fixtures prove/died.stderr.txt, prove/compile-error.stderr.txt (Test::More 1.302190)",
    ),
    entry(
        PlanMismatch,
        Pattern::indented("Parse errors: Bad plan."),
        "fixture prove/died.stdout.txt (prove 3.44 summary)",
    ),
    entry(
        NoPlan,
        Pattern::indented("Parse errors: No plan found in TAP output"),
        "fixture prove/compile-error.stdout.txt (prove 3.44 summary)",
    ),
    entry(
        Killed,
        Pattern::indented("Non-zero wait status: "),
        "fixture prove/died.stdout.txt (prove 3.44, a test killed by SIGKILL)",
    ),
    entry(
        BuildFailure,
        Pattern::starts("Execution of ").ends(" aborted due to compilation errors."),
        "fixture prove/compile-error.stderr.txt (perl 5.36)",
    ),
    entry(
        BuildFailure,
        Pattern::starts("BEGIN failed--compilation aborted at "),
        "fixture prove/compile-error.stderr.txt (perl 5.36, a missing module)",
    ),
];

/// Cargo, rustc, libtest and cargo-nextest.
const CARGO: &[Entry] = &[
    entry(
        BuildFailure,
        Pattern::starts("error: could not compile `"),
        "fixture cargo/compile-error.stderr.txt (cargo 1.95.0)",
    ),
    entry(
        BuildFailure,
        Pattern::starts("error[E"),
        "fixture cargo/compile-error.stderr.txt (rustc 1.95.0)",
    ),
    entry(
        BuildFailure,
        Pattern::starts("error: command `").contains(" test --no-run "),
        "fixture cargo/nextest-compile-error.stderr.txt (cargo-nextest 0.9.143)",
    ),
    entry(
        Killed,
        Pattern::indented("process didn't exit successfully: ").contains("(signal: 9, SIGKILL"),
        "fixture cargo/killed.stderr.txt (cargo 1.95.0: a test binary killed mid-run)",
    ),
    entry(
        Crash,
        Pattern::indented("process didn't exit successfully: ").contains("(signal: "),
        "fixture cargo/abort.stderr.txt (cargo 1.95.0: a test binary aborted mid-run)",
    ),
];

/// Every table, in matching order: a line is reported once, by the first table with a match.
pub(crate) const TABLES: &[Table] = &[
    Table {
        ecosystem: "go",
        entries: GO,
    },
    Table {
        ecosystem: "jest",
        entries: JEST,
    },
    Table {
        ecosystem: "vitest",
        entries: VITEST,
    },
    Table {
        ecosystem: "node",
        entries: NODE,
    },
    Table {
        ecosystem: "pytest",
        entries: PYTEST,
    },
    Table {
        ecosystem: "python",
        entries: PYTHON,
    },
    Table {
        ecosystem: "tap",
        entries: TAP,
    },
    Table {
        ecosystem: "prove",
        entries: PROVE,
    },
    Table {
        ecosystem: "cargo",
        entries: CARGO,
    },
];
