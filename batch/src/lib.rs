//! Batch scoring of many repositories (issue 9): being written.

#![forbid(unsafe_code)]
