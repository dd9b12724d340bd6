//! One test2json event, as both ways of reading a line fill it: fast.rs's scanner for go's own
//! lines and serde_json (the derive below) for anything else. It has a module of its own so that
//! json.rs (the reader) and fast.rs (its fast path) both import it and fast.rs imports nothing
//! from json.rs: json → fast → event, json → event.

use std::borrow::Cow;

use serde::Deserialize;

/// One test2json event. Strings borrow from the line unless they hold escapes.
#[derive(Debug, Default, PartialEq, Deserialize)]
pub(crate) struct Event<'a> {
    #[serde(rename = "Action", borrow)]
    pub(crate) action: Cow<'a, str>,
    #[serde(rename = "Package", borrow, default)]
    pub(crate) package: Option<Cow<'a, str>>,
    #[serde(rename = "Test", borrow, default)]
    pub(crate) test: Option<Cow<'a, str>>,
    #[serde(rename = "Output", borrow, default)]
    pub(crate) output: Option<Cow<'a, str>>,
    #[serde(rename = "Elapsed", default)]
    pub(crate) elapsed: Option<f64>,
    #[serde(rename = "ImportPath", borrow, default)]
    pub(crate) import_path: Option<Cow<'a, str>>,
    #[serde(rename = "FailedBuild", borrow, default)]
    pub(crate) failed_build: Option<Cow<'a, str>>,
}
