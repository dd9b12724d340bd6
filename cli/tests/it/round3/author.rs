//! Items 1 and 2 of issue 36, the quick half: the crates an outside author uses have manifests
//! that stand alone and agree with the workspace, `gapscore new-adapter` writes each skeleton
//! (and refuses what it must), and the docs say what the code does. Building, loading and
//! scoring with the packaged crates and each skeleton is `.ci/author-path.sh`'s.

use std::fs;
use std::path::Path;

use crate::common::{code, repo_path, run_in, stderr, stdout};

/// What an author copies or what ships: no `workspace = true` in these.
const STANDALONE: [&str; 4] = [
    "model/Cargo.toml",
    "adapters/sdk/Cargo.toml",
    "adapters/testing/Cargo.toml",
    "adapters/examples/rust-template/Cargo.toml",
];

fn toml_file(relative: &str) -> toml::Table {
    let text = fs::read_to_string(repo_path(relative)).unwrap();
    text.parse().unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// A dependency's version requirement and features, whether written `"1.0"` or as a table.
fn version_and_features(dep: &toml::Value) -> (Option<String>, Vec<String>) {
    match dep {
        toml::Value::String(v) => (Some(v.clone()), Vec::new()),
        toml::Value::Table(t) => (
            t.get("version").and_then(|v| v.as_str()).map(str::to_owned),
            t.get("features")
                .and_then(|f| f.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        other => panic!("a dependency written as {other:?}"),
    }
}

#[test]
fn item01_standalone_manifests_agree_with_the_workspace() {
    let root = toml_file("Cargo.toml");
    let workspace = root["workspace"].as_table().unwrap();
    let package = workspace["package"].as_table().unwrap();
    let shared = workspace["dependencies"].as_table().unwrap();
    for relative in STANDALONE {
        let text = fs::read_to_string(repo_path(relative)).unwrap();
        assert!(
            !text.contains("workspace = true"),
            "{relative} inherits from the workspace: spell the value out (a copy outside the repository must build)"
        );
        let manifest = toml_file(relative);
        let own = manifest["package"].as_table().unwrap();
        for key in ["edition", "rust-version", "license"] {
            assert_eq!(own.get(key), package.get(key), "{relative}: `{key}`");
        }
        if own.get("publish").and_then(toml::Value::as_bool) != Some(false) {
            for key in ["repository", "authors"] {
                assert_eq!(own.get(key), package.get(key), "{relative}: `{key}`");
            }
            let name = own["name"].as_str().unwrap();
            let (version, _) = version_and_features(&shared[name]);
            assert_eq!(
                own["version"].as_str(),
                version.as_deref(),
                "{relative}: its version against [workspace.dependencies] {name}"
            );
        }
        assert_eq!(
            manifest.get("lints"),
            workspace.get("lints"),
            "{relative}: [lints] against [workspace.lints]"
        );
        for section in ["dependencies", "dev-dependencies"] {
            let Some(deps) = manifest.get(section).and_then(toml::Value::as_table) else {
                continue;
            };
            for (name, dep) in deps {
                let (version, features) = version_and_features(dep);
                let (want, want_features) =
                    version_and_features(shared.get(name).unwrap_or_else(|| {
                        panic!("{relative}: `{name}` is not a workspace dependency")
                    }));
                assert_eq!(version, want, "{relative}: [{section}] {name}'s version");
                // Our own crates' features are chosen per use (the testing crate's `score`).
                if !name.starts_with("gapscore") {
                    assert_eq!(
                        features, want_features,
                        "{relative}: [{section}] {name}'s features"
                    );
                }
            }
        }
    }
    // The Rust skeleton names the SDK's version.
    let (sdk, _) = version_and_features(&shared["gapscore-adapter-sdk"]);
    assert_eq!(
        sdk.as_deref(),
        Some(gapscore::commands::new_adapter::SDK_VERSION)
    );
}

#[test]
fn item01_new_adapter_writes_a_skeleton_in_each_language() {
    let tmp = tempfile::tempdir().unwrap();
    for (lang, want) in [
        (
            "rust",
            &["Cargo.toml", "src/lib.rs", "tests/fixtures.rs", "README.md"][..],
        ),
        (
            "c",
            &[
                "adapter.c",
                "gapscore_adapter.h",
                "Makefile",
                "test.sh",
                "tests/expected.json",
            ][..],
        ),
        (
            "python",
            &["adapter.py", "test_adapter.py", "README.md"][..],
        ),
    ] {
        let name = format!("my-{lang}_1");
        let o = run_in(tmp.path(), &["new-adapter", &name, "--lang", lang]);
        assert_eq!(code(&o), 0, "{lang}: {}", stderr(&o));
        let dir = tmp.path().join(format!("gapscore-adapter-{name}"));
        assert!(
            stdout(&o).contains(&format!("gapscore-adapter-{name}")),
            "{}",
            stdout(&o)
        );
        for file in want
            .iter()
            .copied()
            .chain([format!("tests/fixtures/valid/example.{name}").as_str()])
        {
            let text = fs::read_to_string(dir.join(file))
                .unwrap_or_else(|e| panic!("{lang}: {file}: {e}"));
            assert!(
                !text.contains("@NAME@") && !text.contains("@SYMBOL@"),
                "{lang}: {file}"
            );
        }
        let symbol = format!("gapscore_adapter_my_{lang}_1");
        let main = match lang {
            "rust" => "src/lib.rs",
            "c" => "adapter.c",
            _ => "adapter.py",
        };
        let source = fs::read_to_string(dir.join(main)).unwrap();
        assert!(source.contains(&format!("\"{name}\"")), "{lang}: the name");
        if lang != "python" {
            assert!(source.contains(&symbol), "{lang}: the entry symbol");
        }
        #[cfg(unix)]
        if lang == "python" {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.join("adapter.py"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0o111, "adapter.py is executable");
        }
    }
    // The C skeleton compiles against the header this gapscore loads.
    let header = fs::read_to_string(
        tmp.path()
            .join("gapscore-adapter-my-c_1/gapscore_adapter.h"),
    );
    assert_eq!(
        header.unwrap(),
        fs::read_to_string(repo_path("adapters/sdk/include/gapscore_adapter.h")).unwrap()
    );
}

#[test]
fn item01_new_adapter_refuses_a_directory_that_is_not_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("taken");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("keep.txt"), "mine").unwrap();
    let o = run_in(tmp.path(), &["new-adapter", "x", "--dir", "taken"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("`taken` exists and is not empty"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
    assert_eq!(fs::read_to_string(dir.join("keep.txt")).unwrap(), "mine");
    // A file in the way is refused too; an empty directory is filled.
    fs::write(tmp.path().join("file"), "").unwrap();
    assert_eq!(
        code(&run_in(tmp.path(), &["new-adapter", "x", "--dir", "file"])),
        2
    );
    fs::create_dir(tmp.path().join("empty")).unwrap();
    let o = run_in(
        tmp.path(),
        &["new-adapter", "x", "--lang", "python", "--dir", "empty"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(tmp.path().join("empty/adapter.py").is_file());
    // Nothing staged is left beside them.
    let left: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn item01_new_adapter_validates_the_name() {
    let tmp = tempfile::tempdir().unwrap();
    let long = "a".repeat(65);
    for name in [
        "My-csv",
        "-csv",
        "_csv",
        "a/b",
        "a.b",
        "名前",
        long.as_str(),
    ] {
        let o = run_in(tmp.path(), &["new-adapter", "--", name]);
        assert_eq!(code(&o), 2, "{name}");
        assert!(
            stderr(&o).contains("is not an adapter name"),
            "{name}: {}",
            stderr(&o)
        );
    }
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

fn doc(relative: &str) -> String {
    fs::read_to_string(repo_path(relative)).unwrap()
}

#[test]
fn item02_the_sdk_readme_is_the_crates_front_page_with_both_rules() {
    let lib = doc("adapters/sdk/src/lib.rs");
    assert!(lib.starts_with("#![doc = include_str!(\"../README.md\")]"));
    let readme = doc("adapters/sdk/README.md");
    for needle in [
        "test_finished_ref",
        "TestCaseRef",
        "RunCollector::new",
        "finish()",
        "json_has_key",
        "TEXT_CAP",
        "export_adapter!",
        "Never guess a status",
        "byte order mark",
        "encoding::strip_bom",
        "encoding::skip_bom",
        "BufReader",
        "json::stream",
    ] {
        assert!(
            readme.contains(needle),
            "the SDK README says nothing of `{needle}`"
        );
    }
    // Its example never maps an unknown status to a guess.
    assert!(!readme.contains("unwrap_or(Status::"), "a guessed status");
    assert!(!lib.contains("unwrap_or(Status::"), "a guessed status");
}

/// Each method of `EventSink` as the trait declares it (model/src/event.rs).
fn event_sink_methods() -> Vec<String> {
    let source = doc("model/src/event.rs");
    let body = source
        .split_once("pub trait EventSink")
        .unwrap()
        .1
        .split_once("\n}\n")
        .unwrap()
        .0;
    body.lines()
        .filter_map(|l| l.trim().strip_prefix("fn "))
        .map(|l| l.split('(').next().unwrap().to_owned())
        .collect()
}

#[test]
fn item02_writing_an_adapter_lists_every_event_sink_method() {
    let methods = event_sink_methods();
    assert!(
        methods.contains(&"test_finished_ref".to_owned()),
        "{methods:?}"
    );
    let text = doc("docs/writing-an-adapter.md");
    let block = text
        .split_once("pub trait EventSink {")
        .unwrap()
        .1
        .split_once("\n}\n")
        .unwrap()
        .0;
    for m in &methods {
        assert!(
            block.contains(&format!("fn {m}(")),
            "writing-an-adapter.md's EventSink has no `{m}`"
        );
    }
}

#[test]
fn item02_the_abi_size_rule_is_stated_once_and_followed() {
    let abi = doc("docs/abi.md");
    // The one statement, and no rule that refuses an older, shorter host table.
    assert_eq!(abi.matches("**The size rule.**").count(), 1);
    assert!(abi.contains("GAPSCORE_HOST_BASE_SIZE"));
    for (file, text) in [
        ("docs/abi.md", abi.as_str()),
        (
            "docs/writing-an-adapter.md",
            &doc("docs/writing-an-adapter.md"),
        ),
        (
            "adapters/examples/c-lines/gapscore_adapter_c_lines.c",
            &doc("adapters/examples/c-lines/gapscore_adapter_c_lines.c"),
        ),
    ] {
        assert!(
            !text.contains("struct_size < sizeof(GapscoreHost)")
                && !text.contains("struct_size >= sizeof(GapscoreHost)"),
            "{file} requires the whole host table"
        );
    }
    let header = doc("adapters/sdk/include/gapscore_adapter.h");
    assert!(header.contains("#define GAPSCORE_HOST_BASE_SIZE offsetof(GapscoreHost, parts)"));
}

#[test]
fn item02_the_examples_and_score_md_say_what_gapscore_does_today() {
    let c_lines = doc("adapters/examples/c-lines/README.md");
    assert!(
        !c_lines.contains("{\"format\":\"lines\",\"tests\""),
        "v1 output"
    );
    assert!(
        !c_lines.contains("`--format lines`"),
        "the deprecated spelling"
    );
    let score = doc("docs/score.md");
    for flag in ["--plugin-exec", "--plugin-debug"] {
        assert!(score.contains(flag), "score.md does not mention {flag}");
    }
    let guide = doc("docs/writing-an-adapter.md");
    assert!(!guide.contains("example.invalid"));
    assert!(
        guide.contains("[patch.crates-io]"),
        "the way that works today"
    );
    assert!(Path::new(&repo_path(".ci/author-path.sh")).is_file());
}
