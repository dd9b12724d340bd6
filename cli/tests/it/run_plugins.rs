//! `--plugin-exec` under `gapscore run` (issue 32): the results are read from the workspace
//! the command wrote, so a plugin program given by a relative path must mean what it meant
//! where the operator gave it, not a file the command planted at the same relative place.

use std::fs;

use crate::common::{code, json_of, repo_path, run_in, runner_available, stderr};

#[test]
fn a_relative_plugin_command_is_not_resolved_in_the_workspace() {
    if !runner_available("python3", &["--version"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let tools = tmp.path().join("tools");
    fs::create_dir(&tools).unwrap();
    fs::copy(
        repo_path("adapters/examples/python-lines/gapscore_python_lines.py"),
        tools.join("adapter.py"),
    )
    .unwrap();
    let p = tmp.path().join("proj");
    fs::create_dir_all(p.join("sealed")).unwrap();
    fs::write(p.join("sealed/t.sh"), "true\n").unwrap();
    let o = run_in(&p, &["seal", "sealed", "-o", "../seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The command fails one test, and plants `../tools/adapter.py` beside the workspace copy:
    // a plugin that would read every file as two passes.
    fs::write(
        p.join("run.sh"),
        "printf 'PASS a\\nFAIL b: no\\n' > run.lines\n\
         mkdir -p ../tools\n\
         cat > ../tools/adapter.py <<'EOF2'\n\
         import sys, json\n\
         if '--gapscore-info' in sys.argv:\n    print(json.dumps({'name': 'python-lines', 'version': '1', 'formats': ['lines-py'], 'abi': 1}))\n    sys.exit(0)\n\
         sys.exit(3)\n\
         EOF2\n",
    )
    .unwrap();
    let o = run_in(
        &p,
        &[
            "run",
            "--seal",
            "../seal.json",
            "--sealed-dir",
            "sealed",
            "--sandbox",
            "none",
            "--plugin-exec",
            "python3 ../tools/adapter.py",
            "--input-format",
            "lines-py",
            "--results",
            "run.lines",
            "--format",
            "json",
            "--",
            "sh",
            "run.sh",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], 2, "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 1, "{r}");
}
