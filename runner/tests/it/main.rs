//! Integration tests of gapscore-runner: one binary, one module per part.

mod common;
mod console;
mod copy;
mod pytest_args;
mod real_runners;
mod recognise;
mod resolve;
