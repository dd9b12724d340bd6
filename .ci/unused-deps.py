#!/usr/bin/env python3
"""Every dependency a workspace crate declares is used by it (issue 30).

For each member of the workspace, each name under [dependencies], [dev-dependencies] and
[build-dependencies] (target-specific tables too) must appear as a Rust path segment
(`name_with_underscores`) somewhere in that crate's own .rs files: src/, tests/, benches/,
examples/ and build.rs, not those of a member crate nested inside it. Plain text search, no
build: it runs in well under a second and needs nothing but python3 (3.11, for tomllib).

It errs on the lenient side: a normal dependency used only by tests passes. A dependency
declared for its side effects (a feature it turns on, a symbol it links) is listed in IGNORE
with the reason. Exit 1 with one line per unused dependency.
"""

import os
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (crate folder, dependency name): why it is declared without being named in the code.
IGNORE = {
    # Dev-dependencies for their cdylib, which cargo builds next to the test binary and the
    # tests load as a plugin (`gapscore_adapter_testing::built_cdylib`).
    ("cli", "gapscore-adapter-template"): "cdylib loaded by cli/tests/it/rust_plugin.rs",
    ("engine", "gapscore-adapter-simple"): "cdylib loaded by engine/benches/ingest.rs",
}


def dependency_tables(manifest):
    for kind in ("dependencies", "dev-dependencies", "build-dependencies"):
        yield kind, manifest.get(kind, {})
    for target, table in manifest.get("target", {}).items():
        for kind in ("dependencies", "dev-dependencies", "build-dependencies"):
            yield f"target.{target}.{kind}", table.get(kind, {})


def sources(crate, members):
    """The crate's .rs files, leaving out target/ folders and member crates nested inside it."""
    nested = {m for m in members if m != crate and m.is_relative_to(crate)}
    for folder, dirs, files in os.walk(crate):
        here = Path(folder)
        dirs[:] = [d for d in dirs if d != "target" and here / d not in nested]
        for f in files:
            if f.endswith(".rs"):
                yield here / f


def main():
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())
    ws_deps = workspace["workspace"].get("dependencies", {})
    member_dirs = [ROOT / m for m in workspace["workspace"]["members"]]
    unused = []
    for crate in member_dirs:
        manifest = tomllib.loads((crate / "Cargo.toml").read_text())
        text = "\n".join(p.read_text(errors="replace") for p in sources(crate, member_dirs))
        for kind, table in dependency_tables(manifest):
            for key, spec in table.items():
                # A path is the workspace root's in [workspace.dependencies], else the crate's
                # own (the manifests that stand alone, issue 36).
                base = crate
                if isinstance(spec, dict) and spec.get("workspace"):
                    spec = ws_deps.get(key, spec)
                    base = ROOT
                name = key.replace("-", "_")
                if isinstance(spec, dict) and "path" in spec:
                    dep_manifest = tomllib.loads((base / spec["path"] / "Cargo.toml").read_text())
                    name = dep_manifest.get("lib", {}).get("name", name)
                folder = str(crate.relative_to(ROOT))
                if (folder, key) in IGNORE:
                    continue
                if not re.search(rf"\b{re.escape(name)}\b", text):
                    unused.append(f"{folder}/Cargo.toml: [{kind}] {key} is not used (no `{name}` in its sources)")
    for line in unused:
        print(line, file=sys.stderr)
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main())
