//! `--workspace copy`: what is copied, where the sealed tests go, and that it all goes away.

use std::fs;
use std::path::Path;

use gapscore_runner::workspace::{Isolation, prepare};

use crate::common::{cmd, listing, write};

#[test]
fn copy_obeys_gitignore_at_every_level_and_leaves_out_git() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    write(&project, ".gitignore", "*.log\nbuild/\n!keep.log\n");
    write(&project, "src/lib.py", "x = 1\n");
    write(&project, "run.log", "noise\n");
    write(&project, "keep.log", "kept\n");
    write(&project, "build/out.bin", "binary\n");
    write(&project, ".env.example", "A=1\n");
    write(&project, "sub/.gitignore", "secret.txt\n");
    write(&project, "sub/secret.txt", "s\n");
    write(&project, "sub/public.txt", "p\n");
    write(&project, ".git/config", "[core]\n");
    write(
        &project,
        "vendor/dep/.git",
        "gitdir: ../../.git/modules/dep\n",
    );
    write(&project, "vendor/dep/dep.py", "y = 2\n");

    let ws = prepare(&project, None, Isolation::Copy, &cmd(&["true"])).unwrap();
    assert_eq!(ws.dir.file_name().unwrap(), "app");
    assert_ne!(ws.dir, fs::canonicalize(&project).unwrap());
    assert_eq!(
        listing(&ws.dir),
        [
            ".env.example",
            ".gitignore",
            "keep.log",
            "src/",
            "src/lib.py",
            "sub/",
            "sub/.gitignore",
            "sub/public.txt",
            "vendor/",
            "vendor/dep/",
            "vendor/dep/dep.py",
        ]
    );
    assert!(
        ws.notes.iter().any(|n| n.starts_with("workspace copy:")),
        "{:?}",
        ws.notes
    );
    assert!(ws.sealed_dir.is_none());
}

#[cfg(unix)]
#[test]
fn copy_keeps_file_modes() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "run.sh", "#!/bin/sh\necho hi\n");
    write(tmp.path(), "data.txt", "d\n");
    fs::set_permissions(tmp.path().join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(
        tmp.path().join("data.txt"),
        fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let ws = prepare(tmp.path(), None, Isolation::Copy, &cmd(&["true"])).unwrap();
    let mode = |p: &str| fs::metadata(ws.dir.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("run.sh"), 0o755);
    assert_eq!(mode("data.txt"), 0o640);
}

#[test]
fn copy_is_deleted_on_drop() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", "a\n");
    let ws = prepare(tmp.path(), None, Isolation::Copy, &cmd(&["pytest"])).unwrap();
    let root = ws.temp_root().to_owned();
    assert!(ws.dir.join("a.txt").is_file());
    assert!(ws.dir.starts_with(&root));
    drop(ws);
    assert!(!root.exists());
    assert!(
        tmp.path().join("a.txt").is_file(),
        "the project itself is untouched"
    );
}

#[test]
fn inplace_runs_in_the_project_and_still_owns_a_scratch_dir() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "tests/sealed/test_a.py", "def test_a(): pass\n");
    let ws = prepare(
        tmp.path(),
        Some(&tmp.path().join("tests/sealed")),
        Isolation::Inplace,
        &cmd(&["true"]),
    )
    .unwrap();
    let project = fs::canonicalize(tmp.path()).unwrap();
    assert_eq!(ws.dir, project);
    assert_eq!(
        ws.sealed_dir.as_deref(),
        Some(project.join("tests/sealed").as_path())
    );
    let root = ws.temp_root().to_owned();
    assert!(!root.starts_with(&project));
    drop(ws);
    assert!(!root.exists());
}

#[test]
fn sealed_dir_inside_the_project_is_copied_in_full_at_its_own_place() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path();
    write(project, ".gitignore", "*.dat\ntests/sealed/\n");
    write(project, "tests/sealed/test_a.py", "def test_a(): pass\n");
    write(
        project,
        "tests/sealed/fixture.dat",
        "the project ignores this, the seal covers it\n",
    );
    write(project, "tests/test_open.py", "def test_o(): pass\n");
    let ws = prepare(
        project,
        Some(&project.join("tests/sealed")),
        Isolation::Copy,
        &cmd(&["x"]),
    )
    .unwrap();
    let sealed = ws.sealed_dir.clone().unwrap();
    assert_eq!(sealed, ws.dir.join("tests/sealed"));
    assert_eq!(listing(&sealed), ["fixture.dat", "test_a.py"]);
    assert!(ws.dir.join("tests/test_open.py").is_file());
}

#[test]
fn planted_files_at_the_sealed_place_are_replaced_not_merged() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    let verified = tmp.path().join("sealed-tests");
    write(&verified, "test_a.py", "def test_a(): assert False\n");
    write(&verified, "sub/test_b.py", "def test_b(): assert False\n");
    write(
        &project,
        "sealed/test_a.py",
        "def test_a(): pass  # the implementer's edit\n",
    );
    write(&project, "sealed/conftest.py", "# planted\n");
    write(&project, "sealed/sub/extra.py", "# planted\n");
    let ws = prepare(&project, Some(&verified), Isolation::Copy, &cmd(&["x"])).unwrap();
    let sealed = ws.sealed_dir.clone().unwrap();
    assert_eq!(sealed, ws.dir.join("sealed"));
    assert_eq!(listing(&sealed), ["sub/", "sub/test_b.py", "test_a.py"]);
    assert_eq!(
        fs::read_to_string(sealed.join("test_a.py")).unwrap(),
        "def test_a(): assert False\n"
    );
    assert!(
        ws.notes.iter().any(|n| n.starts_with("sealed tests:")),
        "{:?}",
        ws.notes
    );
}

#[cfg(unix)]
#[test]
fn a_link_at_the_sealed_place_is_replaced_by_a_real_directory() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    let verified = tmp.path().join("verified");
    write(&verified, "test_a.py", "def test_a(): assert False\n");
    write(&project, "other/conftest.py", "# planted\n");
    symlink("other", project.join("sealed")).unwrap();
    let ws = prepare(&project, Some(&verified), Isolation::Copy, &cmd(&["x"])).unwrap();
    let sealed = ws.sealed_dir.clone().unwrap();
    assert!(fs::symlink_metadata(&sealed).unwrap().is_dir());
    assert_eq!(listing(&sealed), ["test_a.py"]);
    assert_eq!(
        listing(&ws.dir.join("other")),
        ["conftest.py"],
        "the link's target is untouched"
    );
}

#[cfg(unix)]
#[test]
fn links_that_stay_inside_are_kept_as_links_others_are_left_out() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    write(&project, "scripts/run.sh", "#!/bin/sh\n");
    write(tmp.path(), "outside.txt", "secret\n");
    fs::create_dir_all(project.join("bin")).unwrap();
    symlink("../scripts/run.sh", project.join("bin/run")).unwrap();
    symlink("scripts", project.join("s")).unwrap();
    symlink(tmp.path().join("outside.txt"), project.join("abs")).unwrap();
    symlink("../outside.txt", project.join("up")).unwrap();
    symlink("../../outside.txt", project.join("bin/up2")).unwrap();
    symlink("s/../..", project.join("climb")).unwrap();

    let ws = prepare(&project, None, Isolation::Copy, &cmd(&["x"])).unwrap();
    assert_eq!(
        fs::read_link(ws.dir.join("bin/run")).unwrap(),
        Path::new("../scripts/run.sh")
    );
    assert!(
        ws.dir.join("bin/run").is_file(),
        "the kept link resolves inside the copy"
    );
    assert_eq!(
        fs::read_link(ws.dir.join("s")).unwrap(),
        Path::new("scripts")
    );
    for gone in ["abs", "up", "bin/up2", "climb"] {
        assert!(
            fs::symlink_metadata(ws.dir.join(gone)).is_err(),
            "{gone} was copied"
        );
        assert!(
            ws.notes
                .iter()
                .any(|n| n.starts_with(&format!("left out of the copy: link {gone} "))),
            "{gone}: {:?}",
            ws.notes
        );
    }
}

#[cfg(unix)]
#[test]
fn a_link_in_the_sealed_directory_is_an_error() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    let verified = tmp.path().join("verified");
    write(&project, "src/a.py", "\n");
    write(&verified, "test_a.py", "\n");
    symlink("../app/src/a.py", verified.join("test_b.py")).unwrap();
    let err = prepare(&project, Some(&verified), Isolation::Copy, &cmd(&["x"])).unwrap_err();
    assert!(err.to_string().contains("regular files only"), "{err}");
}

#[test]
fn a_sealed_directory_holding_the_project_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "app/a.py", "\n");
    for isolation in [Isolation::Copy, Isolation::Inplace] {
        let err = prepare(
            &tmp.path().join("app"),
            Some(tmp.path()),
            isolation,
            &cmd(&["x"]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("holds the project"), "{err}");
        let err = prepare(
            &tmp.path().join("app"),
            Some(&tmp.path().join("app")),
            isolation,
            &cmd(&["x"]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("holds the project"), "{err}");
    }
}
