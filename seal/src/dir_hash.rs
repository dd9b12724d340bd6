//! The hash of a sealed directory (spec §4.5) in three modes.
//!
//! [`seal_hash`] works on a list of [`SealedFile`]s (relative path and SHA-256 of the bytes);
//! walking the directory and reading files is [`crate::sealed_dir`]'s job. The modes:
//! - [`HashMode::Spec`]: byte-identical to the spec's recommended pipeline,
//!   `find DIR -type f | LC_ALL=C sort | xargs shasum -a 256 | shasum -a 256` with GNU tools,
//!   including its dependence on how DIR was written (hence [`SealOptions::hash_as`]);
//! - [`HashMode::Stampede`]: Terminal Stampede's
//!   `find DIR -name "*.sh" -exec sha256sum {} \; | sort | sha256sum` (`.sh` files only, lines
//!   sorted with the digest first);
//! - [`HashMode::Strict`] (the default): relative paths in byte order, every file, names escaped
//!   rather than lost — the same bytes give the same hash from any directory or machine.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::digest::sha256_hex;

/// How the directory hash is computed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum HashMode {
    /// Relative paths, byte order, every file; no dependence on how the directory was named.
    #[default]
    Strict,
    /// The spec's shell pipeline, reproduced byte for byte.
    Spec,
    /// Terminal Stampede's `*.sh` variant.
    Stampede,
}

impl HashMode {
    /// The name used on the command line and in records.
    pub fn as_str(self) -> &'static str {
        match self {
            HashMode::Strict => "strict",
            HashMode::Spec => "spec",
            HashMode::Stampede => "stampede",
        }
    }
}

impl fmt::Display for HashMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the shell's `sort` would order the lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PathOrder {
    /// Byte order: `sort` under `LC_ALL=C` or `C.UTF-8` (most CI runners).
    #[default]
    Bytes,
    /// The order of glibc's `en_US.UTF-8` collation, as on most developer machines:
    /// punctuation ignored at first, then letters without case, then lowercase first.
    Locale,
}

/// One regular file of the sealed directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SealedFile {
    /// Path relative to the sealed directory, `/`-separated.
    pub path: String,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// How to hash.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SealOptions {
    /// The mode.
    pub mode: HashMode,
    /// The order of lines (spec and stampede modes; strict always uses bytes).
    pub order: PathOrder,
    /// The directory string the shell command would have been given (`sealed`, `./sealed`, an
    /// absolute path): the spec and stampede hashes include it in every line.
    pub hash_as: String,
}

/// A computed hash and what it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealHash {
    /// `sha256:<lowercase hex>`.
    pub hash: String,
    /// Number of files in the hash.
    pub hashed: usize,
    /// Files the mode leaves out although they are in the directory: in spec mode, names the
    /// shell pipeline cannot pass through `xargs` (blanks, quotes, backslashes, newlines); in
    /// stampede mode, files not named `*.sh`. Listed so that nobody believes they are sealed.
    pub unhashed: Vec<String>,
}

/// The SHA-256 of empty input: what `shasum` prints for an empty stdin.
const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Characters `xargs` (without `-0`) splits on or interprets: a name holding one never reaches
/// `shasum` intact, and the reference pipeline silently leaves the file out.
fn xargs_unsafe(path: &str) -> bool {
    path.contains([' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\'', '"', '\\'])
}

/// How `find DIR` prints a file: `DIR/rel`, or `DIRrel` when DIR already ends in `/` (GNU).
fn find_path(dir: &str, rel: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{rel}")
    } else {
        format!("{dir}/{rel}")
    }
}

/// A `sha256sum`/`shasum` line: `hex  name`, with GNU coreutils' escaping when the name holds a
/// backslash or a newline (the line then starts with `\`).
fn sum_line(hex: &str, name: &str) -> String {
    if name.contains(['\\', '\n', '\r']) {
        let escaped = name
            .replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\r', "\\r");
        format!("\\{hex}  {escaped}\n")
    } else {
        format!("{hex}  {name}\n")
    }
}

/// Orders two strings as glibc's `en_US.UTF-8` collation does for file names: alphanumerics
/// first (punctuation ignored, case folded, digits before letters), then lowercase before
/// uppercase, then the bytes. Reproduces the research vectors; an approximation for scripts
/// beyond ASCII, which is why the default is byte order.
pub fn locale_cmp(a: &str, b: &str) -> Ordering {
    fn primary(s: &str) -> impl Iterator<Item = char> + '_ {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
    }
    fn case(s: &str) -> impl Iterator<Item = u8> + '_ {
        // Lowercase sorts before uppercase at the third level.
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .map(|c| u8::from(c.is_uppercase()))
    }
    primary(a)
        .cmp(primary(b))
        .then_with(|| case(a).cmp(case(b)))
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

fn sort_lines(lines: &mut [String], order: PathOrder) {
    match order {
        PathOrder::Bytes => lines.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes())),
        PathOrder::Locale => lines.sort_by(|a, b| locale_cmp(a, b)),
    }
}

/// Computes the hash of a sealed directory's files.
pub fn seal_hash(files: &[SealedFile], opts: &SealOptions) -> SealHash {
    let mut unhashed = Vec::new();
    let manifest = match opts.mode {
        HashMode::Strict => {
            let mut sorted: Vec<&SealedFile> = files.iter().collect();
            sorted.sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
            sorted
                .iter()
                .map(|f| sum_line(&f.sha256, &f.path))
                .collect()
        }
        HashMode::Spec => {
            // `find | sort` orders the paths, then `xargs shasum` prints one line per path.
            let mut paths: Vec<(String, &str)> = Vec::new();
            for f in files {
                let shown = find_path(&opts.hash_as, &f.path);
                if xargs_unsafe(&shown) {
                    unhashed.push(f.path.clone());
                } else {
                    paths.push((shown, &f.sha256));
                }
            }
            match opts.order {
                PathOrder::Bytes => {
                    paths.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()))
                }
                PathOrder::Locale => paths.sort_by(|a, b| locale_cmp(&a.0, &b.0)),
            }
            if files.is_empty() {
                // GNU xargs runs `shasum` once even with no input: it hashes empty stdin.
                format!("{EMPTY_SHA256}  -\n")
            } else {
                paths
                    .iter()
                    .map(|(shown, sha)| sum_line(sha, shown))
                    .collect()
            }
        }
        HashMode::Stampede => {
            // `-exec sha256sum {} \;` passes any name; `sort` then orders the whole lines.
            let mut lines = Vec::new();
            for f in files {
                let base = f.path.rsplit('/').next().unwrap_or(&f.path);
                if base.ends_with(".sh") {
                    lines.push(sum_line(&f.sha256, &find_path(&opts.hash_as, &f.path)));
                } else {
                    unhashed.push(f.path.clone());
                }
            }
            sort_lines(&mut lines, opts.order);
            lines.concat()
        }
    };
    let hashed = files.len() - unhashed.len();
    SealHash {
        hash: format!("sha256:{}", sha256_hex(manifest.as_bytes())),
        hashed,
        unhashed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, body: &str) -> SealedFile {
        SealedFile {
            path: path.to_owned(),
            sha256: sha256_hex(body.as_bytes()),
        }
    }

    fn fixture_a() -> Vec<SealedFile> {
        vec![
            file("test_sealed.py", "def test_a():\n    assert 1 + 1 == 2\n"),
            file("sub/test_more.py", "def test_b():\n    pass\n"),
            file("conftest.py", "import pytest\n"),
        ]
    }

    fn spec(dir: &str, order: PathOrder) -> SealOptions {
        SealOptions {
            mode: HashMode::Spec,
            order,
            hash_as: dir.to_owned(),
        }
    }

    #[test]
    fn per_file_digests_match_the_research_vectors() {
        let f = fixture_a();
        assert_eq!(
            f[2].sha256,
            "675a8302c62190746cd8fc229c6186f11fb5314218b20d1b742920301a495b75"
        );
        assert_eq!(
            f[1].sha256,
            "642b754ffc77e9382f17a41223691591d1de908a593a245196f0f91ea1966e11"
        );
        assert_eq!(
            f[0].sha256,
            "5816873966c6ebd4a2d02ebecc58f11367ea4154a54a9542dc826de3412589c9"
        );
    }

    #[test]
    fn spec_mode_reproduces_every_directory_vector() {
        let vectors = [
            (
                "sealed",
                "f9c227fc0869b77a33adfd8a5ce06106af6852f889339faaf89e676a2bc371ba",
            ),
            (
                "sealed/",
                "f9c227fc0869b77a33adfd8a5ce06106af6852f889339faaf89e676a2bc371ba",
            ),
            (
                "./sealed",
                "701691db4b0efe5c3de8b5219125f9111865b5a7a7b5c44798ba1ec9d36678f6",
            ),
            (
                "sealed//",
                "01d2d6e96b7c8a3dfa799768dc3d8e4cbd46d5900fd743943dbcd39a4274ed84",
            ),
            (
                ".",
                "bbb606ee2c125cc1ceab0feda59a80f2a2812915384548ee92e03128b66d9323",
            ),
            (
                ".factory/sealed/run-20260223-2130",
                "dc1ddab07ebc30364c0dce63d5f9e02c8886519fe295ca19ca48e747bdf642c1",
            ),
            (
                "/home/dev/app/.factory/sealed/run-20260223-2130",
                "7f91689af4b17c18ef9ba0a8e1d64294d458b31c156eecb20289ca1ce9e9ed18",
            ),
        ];
        for (dir, want) in vectors {
            let h = seal_hash(&fixture_a(), &spec(dir, PathOrder::Bytes));
            assert_eq!(h.hash, format!("sha256:{want}"), "{dir}");
            assert_eq!(h.hashed, 3);
        }
    }

    #[test]
    fn spec_mode_orders_by_locale_on_request() {
        let files = vec![
            file("test_a.py", "a\n"),
            file("Test_b.py", "b\n"),
            file("test-c.py", "c\n"),
        ];
        let c = seal_hash(&files, &spec("s", PathOrder::Bytes));
        assert_eq!(
            c.hash,
            "sha256:695694092f1ddf091ade5b49e9295a7b0a5d594b824a00737fef598d92453ff5"
        );
        let l = seal_hash(&files, &spec("s", PathOrder::Locale));
        assert_eq!(
            l.hash,
            "sha256:fc89daf16af6c5b01bfc945f59ac5f6acd7f4bf035606d2075b0708eec616fa2"
        );
        // The research's pytest example: conftest.py < __init__.py < Sealed_Test.go.
        let mut names = vec!["Sealed_Test.go", "__init__.py", "conftest.py"];
        names.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(names, ["conftest.py", "__init__.py", "Sealed_Test.go"]);
    }

    #[test]
    fn an_empty_directory_hashes_as_gnu_xargs_does() {
        let h = seal_hash(&[], &spec("sealed", PathOrder::Bytes));
        assert_eq!(
            h.hash,
            "sha256:abcfa6a9d4df344d1781bc2560b5e4cdcae08b39ed303063535e7e1e926a304a"
        );
    }

    #[test]
    fn names_xargs_cannot_pass_are_left_out_and_listed() {
        let mut files = fixture_a();
        files.push(file("my test.py", "x"));
        files.push(file("it's.py", "y"));
        let h = seal_hash(&files, &spec("sealed", PathOrder::Bytes));
        // The same hash as without them, as the shell pipeline gives.
        assert_eq!(
            h.hash,
            "sha256:f9c227fc0869b77a33adfd8a5ce06106af6852f889339faaf89e676a2bc371ba"
        );
        assert_eq!(h.unhashed, ["my test.py", "it's.py"]);
        // Strict mode hashes them.
        let strict = seal_hash(&files, &SealOptions::default());
        assert!(strict.unhashed.is_empty());
        assert_eq!(strict.hashed, 5);
    }

    #[test]
    fn stampede_mode_reproduces_its_vectors() {
        let files = vec![
            file("task-001.sh", "#!/usr/bin/env bash\ntest -f README.md\n"),
            file(
                "task-002.sh",
                "#!/usr/bin/env bash\ngrep -q foo src/a.txt\n",
            ),
            file("README.txt", "not a test\n"),
        ];
        assert!(files[0].sha256.starts_with("7bedf56a"));
        assert!(files[1].sha256.starts_with("94533577"));
        let opts = |base: &str| SealOptions {
            mode: HashMode::Stampede,
            order: PathOrder::Bytes,
            hash_as: format!("{base}/sealed-tests"),
        };
        let abs = seal_hash(&files, &opts("/home/dev/app/.stampede/run-20260305-120000"));
        assert_eq!(
            abs.hash,
            "sha256:3db293521046a54ae33bab1367eeafd83b1c52c65c523850598c4d58e40a623f"
        );
        assert_eq!(abs.unhashed, ["README.txt"]);
        let rel = seal_hash(&files, &opts(".stampede/run-20260305-120000"));
        assert_eq!(
            rel.hash,
            "sha256:401919ed8d9fe36f011dbe2f398d8a43ed1fa2b557f8fb1208b144712d1eded4"
        );
    }

    #[test]
    fn strict_mode_ignores_the_directory_string_and_escapes_names() {
        let a = seal_hash(&fixture_a(), &SealOptions::default());
        let opts = SealOptions {
            hash_as: "/elsewhere/sealed".into(),
            ..SealOptions::default()
        };
        assert_eq!(seal_hash(&fixture_a(), &opts).hash, a.hash);
        // A newline in a name cannot forge another line.
        let forged = vec![file("a\nb", "x")];
        let plain = vec![file("a", "x"), file("b", "x")];
        assert_ne!(
            seal_hash(&forged, &opts).hash,
            seal_hash(&plain, &opts).hash
        );
    }
}
