//! The gapscore binary's integration tests as one test binary (`cargo test -p gapscore --test it`):
//! each `tests/it/<name>.rs` beside this file is one of its modules, so cargo links one binary for
//! them all; `common` has the helpers they share. insta keeps their snapshots in
//! `tests/it/snapshots/`.

#![allow(clippy::unwrap_used)] // Test code.

mod attack35;
mod attack35_run;
mod attack36;
mod attack36_readers;
mod common;

mod bad_input;
mod batch;
mod batch_everyday;
mod bounded_memory;
mod c_plugin;
mod check;
mod check_output;
mod ci_formats;
mod cli;
mod crate_graph;
mod cut_text;
mod docs;
mod everyday;
mod evidence_go;
mod evidence_json;
mod evidence_junit;
mod evidence_policy;
mod evidence_table;
mod evidence_tap;
mod exec_plugin;
mod flags;
mod github_runner;
mod golden;
mod harbor;
mod harden_score;
mod hardening;
mod hardening_loop;
mod help;
mod honest_outputs;
mod input_errors;
mod integrity;
mod integrity_json;
mod integrity_junit;
mod integrity_pytest;
mod integrity_tapgo;
mod many_outputs;
mod name_identity;
mod output_fits;
mod parse;
mod parse_stream;
mod pipes;
mod properties;
mod real_runs;
mod recipes;
mod round2;
mod round3;
mod run;
mod run_console;
mod run_env;
mod run_order;
mod run_plugins;
mod run_sandbox;
mod run_shell;
mod rust_plugin;
mod score_batch;
mod seal;
mod spec_v2;
mod stdin;
mod upstream_conformance;
mod v2_batch;
mod v2_plural;
mod v2_seal;
