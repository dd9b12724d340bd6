//! cargo: configuration in the workspace that chooses which program runs (`.cargo/config*`,
//! `rust-toolchain`).

use super::*;

/// Keys of a cargo configuration that name a program cargo starts (or flags that can).
const CARGO_PROGRAM_KEYS: &[&str] = &[
    "runner",
    "linker",
    "rustc",
    "rustc-wrapper",
    "rustc-workspace-wrapper",
    "rustdoc",
    "rustflags",
    "rustdocflags",
    "include",
];

/// Where a cargo configuration value names a program, as `a.b.c` keys.
fn cargo_program_keys(prefix: &str, table: &toml::Table, out: &mut Vec<String>) {
    for (key, value) in table {
        let at = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        let env_door = prefix == "env"
            && (super::super::runners::CODE_LOADING_ENV.contains(&key.as_str())
                || ["LD_", "RUSTC", "CARGO", "RUSTUP"]
                    .iter()
                    .any(|p| key.starts_with(p)));
        if env_door || (prefix != "env" && CARGO_PROGRAM_KEYS.contains(&key.as_str())) {
            out.push(at);
        } else if let toml::Value::Table(inner) = value
            && prefix != "env"
        {
            cargo_program_keys(&at, inner, out);
        }
    }
}

/// Cargo reads `.cargo/config.toml` and `rust-toolchain(.toml)` from the directory it runs in
/// and every one above: in the workspace, one that chooses which program runs (a test
/// `runner`, a `rustc-wrapper`, a toolchain `path` rustup then runs cargo from) is the
/// workspace's runner.
pub(super) fn cargo(dir: &Path, roots: &Roots, r: &mut Resolution) {
    for at in dir.ancestors() {
        if roots.inside(at).is_none() {
            return;
        }
        for file in [".cargo/config.toml", ".cargo/config"] {
            let Some(real) = roots.inside(&at.join(file)) else {
                continue;
            };
            let Ok(text) = fs::read_to_string(&real) else {
                unchecked(r, format!("cannot read {file}"), real);
                continue;
            };
            let Ok(table) = toml::from_str::<toml::Table>(&text) else {
                unchecked(r, format!("cannot parse {file}"), real);
                continue;
            };
            let mut keys = Vec::new();
            cargo_program_keys("", &table, &mut keys);
            if !keys.is_empty() {
                found(
                    r,
                    format!(
                        "the workspace's {file} sets {} (a program cargo starts)",
                        keys.join(", ")
                    ),
                    real,
                );
            }
        }
        for file in ["rust-toolchain.toml", "rust-toolchain"] {
            let Some(real) = roots.inside(&at.join(file)) else {
                continue;
            };
            let text = fs::read_to_string(&real).unwrap_or_default();
            let names_path = match toml::from_str::<toml::Table>(&text) {
                Ok(table) => table
                    .get("toolchain")
                    .and_then(toml::Value::as_table)
                    .is_none_or(|t| t.contains_key("path")),
                // The old one-line form: a toolchain name, never a path.
                Err(_) => {
                    let line = text.trim();
                    line.is_empty() || line.contains('/') || line.lines().count() > 1
                }
            };
            if names_path {
                found(
                    r,
                    format!(
                        "the workspace's {file} names a toolchain by path (or cannot be read as \
                         a channel): rustup would run that cargo"
                    ),
                    real,
                );
            }
        }
    }
}
