//! The catalogue of rules: every finding names one, with the spec section it comes from, the
//! conformance level it belongs to and a fix hint. docs/conformance.md lists the same rules (a
//! test keeps the two in step).

/// One rule of the checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable id (`counts.sum`), used in findings and expectations.
    pub id: &'static str,
    /// The conformance level the rule belongs to: an error fails this level and the ones above.
    pub level: u8,
    /// The spec section (v1.0.0 numbering unless it says v2; level-4 rules are v2 throughout).
    pub spec: &'static str,
    /// What the rule checks.
    pub title: &'static str,
    /// How to fix a report that breaks it.
    pub hint: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $level:literal, $spec:literal, $title:literal, $hint:literal;)+) => {
        $(
            #[doc = $title]
            pub const $name: Rule = Rule { id: $id, level: $level, spec: $spec, title: $title, hint: $hint };
        )+
        /// Every rule, in documentation order.
        pub const ALL: &[Rule] = &[$($name),+];
    };
}

rules! {
    KIND = "report.kind", 1, "§5.1",
        "the document is a Gap Report (Shadow Report), not another artifact",
        "check the JSON Gap Report the tool wrote (report + sealed_tests + failures), not its state or input files";
    VERSION = "report.version", 1, "§5.2",
        "the spec version key is present, matches the dialect and names a published version (1.0.0, 2.0.0)",
        "add `shadow_score_spec_version` (or `gap_score_spec_version` in the Gap dialect) with the version the report follows";
    ROOT_FIELDS = "report.root-fields", 1, "§5.2",
        "score and level live under `report`, not at the root (a warning under v1, an error under v2)",
        "move `shadow_score`/`gap_score` and `level` into the `report` object";
    EDGE_CASES = "report.edge-cases", 1, "§5.3",
        "`coverage_comparison` uses the schema's key `edge_case`; the §5.1 example's `edge_cases` is read as it",
        "rename `coverage_comparison.edge_cases` to `edge_case`";
    CATEGORY = "report.category", 1, "§5.3",
        "each failure has one of the four §5.3 categories",
        "tag sealed tests with happy_path, edge_case, error_handling or security";
    FAILURE_FIELDS = "report.failure-fields", 1, "§5.2",
        "each failure has a non-empty test_name and string expected, actual and message (null is read as empty)",
        "write every failure as {test_name, category, expected, actual, message}, with empty strings rather than null";
    LEVEL4 = "report.level4", 1, "§6 (v2)",
        "Level-4 provenance fields (spec v2) are read and reported; `--level 4` judges them",
        "nothing to fix: `gapscore check --level 4` judges the provenance under the level-4 rules";
    ADVISORY = "report.advisory", 1, "§5.4 (v2)",
        "a report marked advisory is not authoritative: under v2 it holds no conformance level (an error), under v1 a warning",
        "resolve the advisory reason (a suite that did not run, a broken seal) and validate again";
    ZERO_TESTS = "report.zero-tests", 1, "§3.3",
        "the score is computed over at least one sealed test",
        "make sure the sealed suite ran: a score over zero tests proves nothing";
    CLAIMED_LEVEL = "report.claimed-level", 1, "§6",
        "a conformance level claimed in `report.conformance_level` is one the report supports",
        "claim only the level the checker finds, or supply the missing evidence";
    SCHEMA_UPSTREAM = "schema.upstream", 1, "§5.2",
        "the report validates against the published schema of its dialect and version (v1, pre-rename Gap, v2)",
        "fix the field at the pointer so that it matches the upstream schema";
    SCHEMA_GAPSCORE = "schema.gapscore", 1, "§5.2",
        "the report validates against gapscore's own schema (an error for reports gapscore wrote, a note otherwise)",
        "gapscore's schema is stricter than the published one: it wants category, expected and actual on every failure, and holds the spec v2 rules on advisory, independence, a broken seal and level 4 provenance";
    COUNTS_SUM = "counts.sum", 1, "§5.2",
        "passed + failed = total, for the sealed and the open suite",
        "recount: every counted test is either passed or failed";
    COUNTS_FAILURES = "counts.failures", 1, "§5.2",
        "the failures list has one entry per failed sealed test",
        "list every failed sealed test in `failures` (and nothing else)";
    SCORE_FORMULA = "score.formula", 1, "§3.3",
        "the score is failed / total x 100: a reference implementation's rounding, or the exact value rounded (any way) to the decimals it is written with; no tolerance beyond that",
        "compute the score from the counts: failed / total x 100, rounded to one decimal";
    SCORE_ZERO = "score.zero-display", 1, "§3.3",
        "a report with failures does not show a score of 0",
        "show more decimals (or the exact value) so that a failure is never displayed as 0";
    LEVEL_SCALE = "level.scale", 1, "§3.4",
        "the level follows from the counts under the exact rule (any failure is at least minor; bands closed with <=)",
        "derive the level from failed and total on integers: failed*100 <= 15*total is minor, and so on";
    DIALECTS = "dialects.agree", 1, "§5.1",
        "a report carrying both key sets (gap_* and shadow_*) gives the same values in both",
        "write the same version, score and hardening scores under both names";
    HARDENING_RANGE = "hardening.range", 1, "§3.3",
        "initial and final hardening scores are percentages (0-100)",
        "write the hardening scores as percentages from 0 to 100";
    COVERAGE_DELTA = "coverage.delta", 1, "§5.1",
        "each coverage_comparison delta is sealed - open (the reference validators' signed delta)",
        "write delta = sealed - open for each category";
    HASH_PRESENT = "hash.present", 2, "§4.5",
        "the report stores the sealed directory's hash (`report.sealed_hash`)",
        "hash the sealed directory when it is sealed (`gapscore seal`) and put the hash in `report.sealed_hash`";
    HASH_FORMAT = "hash.format", 2, "§4.5",
        "`sealed_hash` is `sha256:` followed by 64 hex digits (not a placeholder or a display truncation)",
        "store the full hash as `sha256:<64 hex digits>`";
    HASH_RECOMPUTED = "hash.recomputed", 2, "§4.5",
        "the sealed directory, hashed again, gives the stored hash",
        "the sealed tests changed after sealing: the score is invalid; restore them or seal and validate again";
    SEAL_RECORD = "seal.record", 2, "§4.5",
        "the seal record (`--seal`) and the report name the same hash",
        "score against the seal the report was made with (`gapscore score --seal RECORD --sealed-dir DIR`)";
    SEAL_BROKEN = "seal.broken", 2, "§4.5",
        "the report does not say its seal is broken (`report.seal_broken`), and no seal record's canary shows the sealed tests read after sealing",
        "a broken seal makes the score invalid: restore the sealed tests and validate again";
    SEAL_ORDER = "seal.order", 2, "§4.1",
        "the sealed tests were sealed before implementation and before every validation, and implementation began before the first validation; the seal record's time is the seal time, and keys for one time agree",
        "seal the tests before implementation begins; a later seal cannot show they were hidden";
    TIME_FORMAT = "time.format", 2, "§4.1",
        "every time the seal order is judged by (seal, implementation, each validation) is an RFC 3339 date-time with a real offset",
        "write times as RFC 3339 (`2026-03-01T09:00:00Z`); a placeholder or an impossible date or offset (`+25:00`) orders nothing";
    ISOLATION = "isolation.attested", 2, "§4.2",
        "information isolation cannot be shown by a report: it is taken as attested",
        "nothing to fix in the report; record how isolation was enforced (v2: workspace_isolation)";
    HARDENING_PRESENT = "hardening.present", 3, "§4.4",
        "the report has a hardening object with cycles_completed and max_cycles (v2 §5.2: cycles_completed; max_cycles is not required)",
        "run the hardening loop and report it (`gapscore score --history FILE --max-cycles N`)";
    HARDENING_SCORES = "hardening.scores", 3, "§4.4",
        "the hardening object has initial and final scores, and the final score is the report's score (v2 §5.2: the initial score; a missing final score is the report's)",
        "record the score before the first cycle (initial) and after the last (final = the report's score)";
    HARDENING_CYCLES = "hardening.cycles", 3, "§4.4",
        "cycles_completed is at most max_cycles",
        "report the cycles actually allowed; a loop continued past its maximum must raise max_cycles";
    HARDENING_VELOCITY = "hardening.velocity", 3, "§3.5",
        "hardening_velocity is reported and equals (initial - final) / cycles_completed",
        "write hardening_velocity = (initial - final) / cycles_completed, one decimal";
    HARDENING_HISTORY = "hardening.history", 3, "§6.3",
        "per-cycle history, when present, shows the score recomputed after each cycle, consistent with the report",
        "record every validation (`gapscore harden record`) and score with `--history`";
    FEEDBACK_LEAK = "feedback.leak", 3, "§4.4",
        "failure messages, expected and actual values hold no line of sealed test source",
        "scrub feedback before sharing it (`gapscore feedback --sealed-dir DIR`) and report the scrubbed text";
    L4_VERSION = "level4.version", 4, "§6 (v2)",
        "the report follows spec v2: Level 4 is defined by v2.0.0, and a v1 report has none of its fields",
        "write a v2.0.0 Shadow Report (`shadow_score_spec_version: \"2.0.0\"`) with the §5.2 provenance fields";
    PROVENANCE = "provenance.present", 4, "§5.2 (v2)",
        "`report.independence`, `report.seal_author_families` and `report.implementer_family` are present at their full paths (at another depth they are absent)",
        "write the three provenance fields under `report`: independence (strong or weak), seal_author_families (non-empty list), implementer_family";
    INDEPENDENCE = "independence.strong", 4, "§3.6.1 (v2)",
        "independence is `strong` and consistent: the implementer's family is none of the seal authors' families",
        "dispatch the seal authors and the implementer to different model families (§4.2.1); a shared family is `weak` and advisory";
    WORKSPACE = "workspace.isolation", 4, "§4.3 (v2)",
        "validation used a disposable workspace: `workspace_isolation` is not `legacy` (a missing value is warned and taken on trust)",
        "validate in a disposable verification workspace and report `workspace_isolation: \"strict\"`";
    AMBIGUITY = "plurality.ambiguity", 4, "§4.6.2 (v2)",
        "a report recording seal plurality (several seal author families or models) reports `report.spec_ambiguity`",
        "compute spec_ambiguity = contradicting criteria / total criteria across the sealed suites and report it";
    DISPATCH = "dispatch.attested", 4, "§4.2.1 (v2)",
        "independence enforced before dispatch (and specifier and reviewer families) cannot be shown by a report: it is taken as attested; escalation is `escalation.family`",
        "nothing to fix in the report; enforce the family rules before any agent is dispatched";
    // issue 33, seal:
    SEAL_EXCLUDES = "seal.excludes", 2, "§4.5",
        "the seal record's excludes leave the sealed tests in the hash (not every file, not every test file)",
        "seal the test files themselves: exclude only what tools create (`__pycache__`, `*.pyc`), never the tests";
    SEAL_EXCLUDED_PRESENT = "seal.excluded-present", 2, "§4.5",
        "no file is present under the paths the seal record excludes (a tool's cache is a warning, anything else an error)",
        "remove the files under the excluded paths, or seal again without excluding them";
    SEAL_NOT_REGULAR = "seal.not-regular", 2, "§4.5",
        "the sealed directory holds regular files and directories only (no FIFO, socket or device)",
        "remove the special file: it has no bytes to hash, so the directory can be neither sealed nor verified";
    SEAL_EXPECTED_TESTS = "seal.expected-tests", 1, "§4.5",
        "the sealed counts are the scoring's arithmetic under the seal record's expected tests: tests not failed + expected tests failed + skips left out by `--skipped exclude` (`gapscore.sealed_excluded`) = the tests it expects; a failure naming no expected test (an unexpected failing result, a run-level problem) adds to the total",
        "score with the seal record (`gapscore score --seal RECORD`): each expected test is counted once, a missing one as failed";
    SEAL_AMBIGUITY = "seal.ambiguity", 4, "§4.6.2 (v2)",
        "`report.spec_ambiguity` is the one the combined seal record computed",
        "report the combined record's spec_ambiguity (`gapscore score --seal COMBINED` does)";
    SEAL_FAMILIES = "seal.families", 4, "§4.6 (v2)",
        "the seal author families reported are the seal records' families, and none is the implementer's",
        "report every suite author's family as the seal record names it; a suite by the implementer's family is weak independence";
    // issue 33, arith:
    COUNTS_DUPLICATE = "counts.duplicate-failure", 1, "§5.2",
        "each failed test is listed once, unless the report discloses the id as given twice by the runner (`gapscore.duplicates`); names that differ but read the same folded (case, spacing, invisible characters, lookalike letters) are a warning",
        "list each failed sealed test once; two entries for one test inflate the failures";
    COVERAGE_FAILURES = "coverage.failures", 1, "§5.3",
        "none of the four §5.3 categories has more failures than coverage_comparison gives it sealed tests (none in a category of 0)",
        "count each category's sealed tests again, or tag the failures with the category they were sealed under";
    COVERAGE_SUM = "coverage.sum", 1, "§5.1",
        "the categories' sealed (open) counts add up to no more than sealed_tests.total (open_tests.total)",
        "count each sealed test in exactly one category";
    HARDENING_INITIAL = "hardening.initial-possible", 3, "§4.4",
        "the initial score is k / total x 100 for a whole k, total being the sealed suite's size at the first cycle",
        "record the initial score the first validation computed from its counts";
    // issue 33, prov:
    ADVISORY_REASON = "advisory.reason", 1, "§5.2, §5.4 (v2)",
        "`report.advisory_reason` is given only with `advisory: true` (a reason the score is not authoritative makes it advisory)",
        "mark the report `advisory: true`, or remove `advisory_reason` if no §5.4 condition holds";
    ADVISORY_CONDITIONS = "advisory.conditions", 1, "§5.4 (v2)",
        "a report whose own records show a §5.4 condition is marked advisory: zero sealed tests (v2), or, for a report naming gapscore as producer, the problems, advisory reasons, planted files or flaky passes it records",
        "mark the report `advisory: true` with its `advisory_reason`; a suite that did not run is not a suite that passed";
    WORKSPACE_HARDENING = "workspace.hardening", 3, "§4.3 (v2)",
        "a report that hardens (cycles completed, or a history of more than one validation) does not use the `legacy` copy-in workspace",
        "validate in a disposable verification workspace (`workspace_isolation: \"strict\"`): the implementer re-invoked after validation must not find the sealed tests";
    DISCLOSURE_ASSERTIONS = "disclosure.assertions", 3, "§4.4.1 (v2)",
        "the `assertions` disclosure level (v2 `max_reveal: assertion`) is used at the final cycle only",
        "reveal failing assertions only for the last cycle the budget allows (`max_cycles`), never with cycles left";
    ESCALATION_FAMILY = "escalation.family", 4, "§4.4.2 (v2)",
        "no hardening cycle's implementer (history `implementer_family` / `implementer_model`) is of a seal author's family or model",
        "escalate only to a model outside every seal author's family (§4.2.1); a cycle in a seal family reproduces teach-to-test";
    // issue 33, fix fa (combined seals):
    SEAL_UNCOVERED = "seal.uncovered", 2, "§4.5, §4.6 (v2)",
        "every entry under the sealed directory a combined seal is checked against lies in one of its suites (its records aside)",
        "give --sealed-dir the directory that holds the sealed suites only, or seal and combine every suite in it";
}

/// Looks a rule up by id.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    ALL.iter().find(|r| r.id == id)
}
