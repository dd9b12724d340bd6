//! Perl (`prove`, `perl`): modules in the workspace's include directories that hide perl's own.

use super::*;

/// Include directories a `prove` or `perl` command adds, relative to where it runs.
fn perl_includes(name: &str, args: &[OsString], env: &RunEnv) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut it = args.iter().map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        if a == "--" || !a.starts_with('-') {
            if name == "perl" {
                break;
            }
            continue;
        }
        if let Some(rest) = a.strip_prefix("-I") {
            match rest {
                "" => dirs.extend(it.next().map(|d| PathBuf::from(d.as_ref()))),
                d => dirs.push(PathBuf::from(d)),
            }
        } else if name == "prove" && (a == "--lib" || a == "--blib") {
            dirs.push(PathBuf::from(if a == "--lib" { "lib" } else { "blib/lib" }));
        } else if name == "prove" && !a.starts_with("--") {
            // Bundled short switches: `-lv`, `-vlr`.
            if a.contains('l') {
                dirs.push(PathBuf::from("lib"));
            }
            if a.contains('b') {
                dirs.extend([PathBuf::from("blib/lib"), PathBuf::from("blib/arch")]);
            }
        }
    }
    if let Some(lib) = env.get("PERL5LIB") {
        dirs.extend(std::env::split_paths(lib));
    }
    dirs
}

pub(super) fn perl(
    perl_program: &Path,
    name: &str,
    args: &[OsString],
    dir: &Path,
    env: &RunEnv,
    roots: &Roots,
    r: &mut Resolution,
) {
    // `rel` as perl requires it (`Test/More.pm`), and the file in the workspace.
    let mut modules: Vec<(String, PathBuf)> = Vec::new();
    // A test's own `use lib 'lib'` (or `blib`) reaches these whatever the switches say.
    let mut includes = vec![
        PathBuf::from("lib"),
        PathBuf::from("blib/lib"),
        PathBuf::from("blib/arch"),
    ];
    includes.extend(perl_includes(name, args, env));
    let mut seen = 0usize;
    let mut walked: Vec<PathBuf> = Vec::new();
    for include in includes {
        let Some(real) = roots.inside(&dir.join(&include)) else {
            continue;
        };
        if walked.contains(&real) {
            continue;
        }
        walked.push(real.clone());
        // Through links: a `lib/Test -> ../evil/Test` directory is read where it points.
        let walk = ignore::WalkBuilder::new(&real)
            .standard_filters(false)
            .follow_links(true)
            .build();
        for entry in walk {
            let Ok(entry) = entry else {
                continue;
            };
            seen += 1;
            if seen > PERL_FILE_LIMIT {
                unchecked(
                    r,
                    format!(
                        "over {PERL_FILE_LIMIT} entries in include directories in the workspace \
                         to compare with perl's own modules"
                    ),
                    real.clone(),
                );
                return;
            }
            let p = entry.path();
            let Some(ext) = p.extension() else {
                continue;
            };
            if (ext == "pm" || ext == "pmc")
                && p.is_file()
                && let Ok(rel) = p.strip_prefix(&real)
                && let Some(rel) = rel.to_str()
            {
                // perl loads `X.pmc` before `X.pm` from the same directory.
                let rel = if ext == "pmc" {
                    rel.strip_suffix('c').unwrap_or(rel)
                } else {
                    rel
                };
                modules.push((rel.to_owned(), p.to_owned()));
            }
        }
    }
    if modules.is_empty() {
        return;
    }
    const FIND: &str = r#"while (my $m = <STDIN>) { chomp $m; for my $d (@INC) { next if ref $d; if (-f "$d/$m" || -f "$d/${m}c") { print "$m\t$d\n"; last } } } print "done\n";"#;
    let mut cmd = Command::new(perl_program);
    cmd.arg("-e").arg(FIND);
    let mut questions = String::new();
    for (rel, _) in &modules {
        questions.push_str(rel);
        questions.push('\n');
    }
    let Some(out) = probe(cmd, Some(questions), dir, env, r) else {
        return;
    };
    if out.lines().last() != Some("done") {
        unchecked(
            r,
            format!("{} did not finish answering", perl_program.display()),
            perl_program.to_owned(),
        );
        return;
    }
    for line in out.lines() {
        if let Some((rel, inc)) = line.split_once('\t')
            && roots.inside(Path::new(inc)).is_none()
        {
            for (_, planted) in modules.iter().filter(|(m, _)| m == rel) {
                found(
                    r,
                    format!(
                        "{rel} in an include directory in the workspace hides perl's own in {inc}"
                    ),
                    planted.clone(),
                );
            }
        }
    }
}
