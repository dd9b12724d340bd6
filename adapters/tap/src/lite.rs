//! A plain test point's test kept as parts (named, not closing or opening a subtest): sent
//! borrowed when it has no diagnostics, so such a point allocates nothing; built into a
//! `TestCase` only when the point needs one.

use gapscore_adapter_sdk::{Category, Status, TestCase, TestCaseRef};

/// The parts of a plain point's test.
#[derive(Debug)]
pub(crate) struct Lite {
    pub(crate) suite: Option<String>,
    pub(crate) name: String,
    pub(crate) status: Status,
    pub(crate) duration: Option<f64>,
    pub(crate) category: Option<Category>,
}

impl Lite {
    /// Sets a point record's parts; the recycled record's strings take the new point's, so no
    /// allocation per point once they have grown.
    pub(crate) fn set(
        slot: &mut Option<Lite>,
        suite: Option<&str>,
        name: &str,
        status: Status,
        duration: Option<f64>,
        category: Option<Category>,
    ) {
        let Some(l) = slot.as_mut() else {
            *slot = Some(Lite {
                suite: suite.map(str::to_owned),
                name: name.to_owned(),
                status,
                duration,
                category,
            });
            return;
        };
        match (l.suite.as_mut(), suite) {
            (Some(buf), Some(s)) => {
                buf.clear();
                buf.push_str(s);
            }
            (_, s) => l.suite = s.map(str::to_owned),
        }
        l.name.clear();
        l.name.push_str(name);
        l.status = status;
        l.duration = duration;
        l.category = category;
    }

    /// The test, borrowed, its id written into `id` (a buffer the reader reuses).
    pub(crate) fn borrowed<'a>(&'a self, id: &'a mut String) -> TestCaseRef<'a> {
        TestCase::make_id_into(id, self.suite.as_deref(), &self.name);
        let mut t = TestCaseRef::new(self.suite.as_deref(), &self.name, id, self.status);
        t.duration = self.duration;
        t.category = self.category;
        t
    }

    /// The test the point would have had built when read.
    pub(crate) fn build(self) -> TestCase {
        let mut t = TestCase::new(self.suite, self.name, self.status);
        t.duration = self.duration;
        t.category = self.category;
        t
    }
}
