//! The counts a [`crate::tally::Tally`] keeps: a suite's total/passed/failed, tests per status
//! and per category. Every addition saturates (see [`add`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use gapscore_model::{Category, Status};

/// Counts of a suite, as §5.2 reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SuiteCounts {
    /// Tests counted.
    pub total: u64,
    /// Counted as passed.
    pub passed: u64,
    /// Counted as failed.
    pub failed: u64,
}

/// Per-status counts of every test read (before the policy).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatusCounts([u64; 7]);

/// Adds `n` to a count without wrapping. Counts carry weights from the input (a problem stands
/// for the tests a file declared and did not hold): a declared count near `u64::MAX` must not
/// wrap the totals round to a small number, which could read as fewer failures.
pub(crate) fn add(count: &mut u64, n: u64) {
    *count = count.saturating_add(n);
}

impl StatusCounts {
    /// Adds one test.
    pub fn add(&mut self, s: Status) {
        add(&mut self.0[s as usize], 1);
    }

    /// Adds another set of counts.
    pub fn absorb(&mut self, other: &StatusCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            add(a, b);
        }
    }

    /// The count for a status.
    pub fn get(&self, s: Status) -> u64 {
        self.0[s as usize]
    }
}

/// Per-category counts of tests (the §5.2 coverage comparison counts all tests, not failures).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CategoryCounts([u64; 5]);

impl CategoryCounts {
    /// Adds one test.
    pub fn add(&mut self, c: Category) {
        add(&mut self.0[c as usize], 1);
    }

    /// Adds another set of counts.
    pub fn absorb(&mut self, other: &CategoryCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            add(a, b);
        }
    }

    /// The count for a category.
    pub fn get(&self, c: Category) -> u64 {
        self.0[c as usize]
    }

    /// How many of the four spec categories have at least one test (for the §3.5 coverage delta).
    pub fn spec_categories_tested(&self) -> u64 {
        Category::SPEC.iter().filter(|c| self.get(**c) > 0).count() as u64
    }
}
