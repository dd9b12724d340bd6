//! Jest and Vitest name a test file two ways: their JSON reports by its absolute path
//! (`/home/me/proj/src/a.test.js > adds > one`, the describe blocks in the suite), JUnit
//! reporters by its path from the project root with the describe blocks in the name
//! (`src/a.test.js::adds > one`). Neither file says the root, so an id is matched through its
//! [`js_key`] (the file and the test's path of titles), and an absolute file is read relative
//! to the directory gapscore runs in (the project root, where the operator runs it): only
//! `/home/me/proj/src/a.test.js` matches a listed `src/a.test.js` when run in `/home/me/proj`.
//! Never by a mere suffix: a copy at `/home/me/proj/mine/src/a.test.js` also ends in
//! `src/a.test.js`, and with the sealed file kept from running it would stand in for it (found
//! by an attack on the build). Never the other way either: a listed absolute file is matched by
//! its own id only, since a relative result's root is unknown and a root-level `a.test.js`
//! would stand in for the listed `/home/me/proj/src/a.test.js`.

use std::collections::HashMap;

/// The extensions of the test files Jest and Vitest run.
const EXTENSIONS: [&str; 8] = [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"];

/// A Jest or Vitest test id as its file (forward slashes, no leading `./`) and its path of
/// titles (describe blocks, then the test, joined by ` > `; empty titles left out, so
/// jest-junit's `{classname} > {title}` of a top-level test is the test's title). `None` for an
/// id whose part before the first ` > ` or `::` is not a JavaScript or TypeScript file.
pub(crate) fn js_key(id: &str) -> Option<(String, String)> {
    let cut = [" > ", "::"]
        .iter()
        .filter_map(|sep| id.find(sep).map(|at| (at, sep.len())))
        .min()?;
    let (file, rest) = (&id[..cut.0], &id[cut.0 + cut.1..]);
    if !EXTENSIONS.iter().any(|e| file.ends_with(e)) {
        return None;
    }
    // A Windows path (`C:\p\a.test.js`) in forward slashes; elsewhere a backslash is part
    // of a file's name (a file named `sealed\a.test.js` is not `sealed/a.test.js`).
    let file = if windows_absolute(file) {
        file.replace('\\', "/")
    } else {
        file.to_owned()
    };
    let file = file.strip_prefix("./").unwrap_or(&file).to_owned();
    let titles: Vec<&str> = rest
        .split(" > ")
        .flat_map(|t| t.split("::"))
        .filter(|t| !t.is_empty())
        .collect();
    if file.is_empty() || titles.is_empty() {
        return None;
    }
    Some((file, titles.join(" > ")))
}

/// `C:\x` or `C:/x`.
fn windows_absolute(file: &str) -> bool {
    let b = file.as_bytes();
    b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
}

/// `/x/y` or `C:/x/y`.
fn absolute(file: &str) -> bool {
    let b = file.as_bytes();
    file.starts_with('/') || (b.len() > 2 && b[0].is_ascii_alphabetic() && &b[1..3] == b":/")
}

/// The directory gapscore runs in, spelt as results' absolute paths spell it (forward slashes,
/// no trailing one): the root an absolute test file is read relative to.
fn working_root() -> Option<String> {
    let dir = std::env::current_dir().ok()?;
    Some(
        dir.to_str()?
            .replace('\\', "/")
            .trim_end_matches('/')
            .to_owned(),
    )
}

fn joined(file: &str, test: &str) -> String {
    format!("{file}\0{test}")
}

/// The listed Jest and Vitest ids with a relative file, by their keys (file and test). Each key
/// keeps every listed position it stands for, so a result two listed ids could be is seen to
/// be ambiguous. A listed absolute file has no key: only its own id matches it.
#[derive(Debug, Clone, Default)]
pub(crate) struct JsKeys {
    relative: HashMap<String, Vec<u32>>,
    /// The root absolute result files are read relative to ([`working_root`]), taken when the
    /// first listed id is added.
    root: Option<String>,
}

impl JsKeys {
    pub(crate) fn add(&mut self, id: &str, at: u32) {
        let Some((file, test)) = js_key(id) else {
            return;
        };
        if self.root.is_none() {
            self.root = working_root();
        }
        if !absolute(&file) {
            self.relative
                .entry(joined(&file, &test))
                .or_default()
                .push(at);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.relative.is_empty()
    }

    /// The listed positions a result id may stand for, each once, in listed order: an absolute
    /// file under the root finds the listed relative file it is from the root, a relative file
    /// the listed relative file it is (the other form of the test). A listed absolute file is
    /// found by neither: a relative result's root is unknown, and two checkouts share no root
    /// to compare from. Two results finding one listed test both count for it, the worse
    /// standing (the manifest's surplus rule).
    pub(crate) fn candidates(&self, id: &str) -> Vec<u32> {
        let Some((file, test)) = js_key(id) else {
            return Vec::new();
        };
        let mut out: Vec<u32> = Vec::new();
        let mut take = |found: Option<&Vec<u32>>| out.extend(found.into_iter().flatten());
        if absolute(&file) {
            let from_root = self
                .root
                .as_deref()
                .and_then(|root| file.strip_prefix(root))
                .and_then(|rest| rest.strip_prefix('/'));
            if let Some(rel) = from_root {
                take(self.relative.get(&joined(rel, &test)));
            }
        } else {
            take(self.relative.get(&joined(&file, &test)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_junit_forms_have_one_key() {
        let json = js_key("/home/me/p/src/a.test.js > adds > inner::one").unwrap();
        let junit = js_key("src/a.test.js::adds > inner > one").unwrap();
        assert_eq!(json.1, junit.1);
        assert_eq!(junit, ("src/a.test.js".into(), "adds > inner > one".into()));
        // jest-junit's `{classname} > {title}` of a top-level test, and `./` or `\`.
        assert_eq!(
            js_key("./src/a.test.ts:: > one"),
            Some(("src/a.test.ts".into(), "one".into()))
        );
        // A Windows path in forward slashes; elsewhere a backslash is part of a name (attack
        // 35: a root file named `sealed\calc.spec.js` stood in for `sealed/calc.spec.js`).
        assert_eq!(
            js_key("C:\\p\\src\\a.test.ts > one"),
            Some(("C:/p/src/a.test.ts".into(), "one".into()))
        );
        assert_eq!(
            js_key("sealed\\calc.spec.js::one"),
            Some(("sealed\\calc.spec.js".into(), "one".into()))
        );
        assert_eq!(js_key("sealed/test_calc.py::test_sub"), None);
        assert_eq!(js_key("a.test.js::"), None);
    }

    #[test]
    fn an_absolute_path_is_matched_from_the_root_only() {
        let mut k = JsKeys {
            root: Some("/home/p".into()),
            ..JsKeys::default()
        };
        k.add("a/x.test.js::t", 0);
        k.add("b/a/x.test.js::t", 1);
        k.add("/ci/p/src/y.test.ts > d::t", 2);
        k.add("src/z.test.js::t", 3);
        assert_eq!(k.candidates("/home/p/a/x.test.js > t"), [0]);
        assert_eq!(k.candidates("/home/p/b/a/x.test.js > t"), [1]);
        // A copy deeper in the project ends in a listed path but is not that file from the
        // root; a file outside the root is nothing.
        assert!(k.candidates("/home/p/c/a/x.test.js > t").is_empty());
        assert!(k.candidates("/elsewhere/a/x.test.js > t").is_empty());
        assert!(k.candidates("/home/pa/x.test.js > t").is_empty());
        assert!(k.candidates("/home/p/a/x.test.js > other").is_empty());
        // A listed absolute file is never found through a relative result: its root is
        // unknown, so `y.test.ts` at the root could stand in for `/ci/p/src/y.test.ts`.
        assert!(k.candidates("src/y.test.ts::d > t").is_empty());
        assert!(k.candidates("y.test.ts::d > t").is_empty());
        assert!(k.candidates("p/src/y.test.ts::d > t").is_empty());
        // Absolute against absolute: only an exact id matches, never a shared suffix.
        assert!(k.candidates("/elsewhere/p/src/y.test.ts > d::t").is_empty());
        // The other form of a relative id.
        assert_eq!(k.candidates("src/z.test.js > t"), [3]);
    }
}
