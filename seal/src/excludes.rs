//! `--exclude` globs: what a seal leaves out of a sealed directory.

/// `--exclude` globs, matched against a file's relative path and against each of its
/// components: `__pycache__` leaves out every such directory, `*.pyc` every such file,
/// `build/*.log` a path.
#[derive(Debug, Clone, Default)]
pub struct Excludes {
    globs: Vec<(String, glob::Pattern)>,
}

/// A glob that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid --exclude glob `{glob}`: {reason}")]
pub struct ExcludeError {
    /// The glob.
    pub glob: String,
    /// Why.
    pub reason: String,
}

impl Excludes {
    /// Reads globs.
    pub fn new<S: AsRef<str>>(globs: &[S]) -> Result<Self, ExcludeError> {
        let globs = globs
            .iter()
            .map(|g| {
                let g = g.as_ref();
                glob::Pattern::new(g)
                    .map(|p| (g.to_owned(), p))
                    .map_err(|e| ExcludeError {
                        glob: g.to_owned(),
                        reason: e.msg.to_owned(),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Excludes { globs })
    }

    /// The globs as given.
    pub fn globs(&self) -> Vec<String> {
        self.globs.iter().map(|(g, _)| g.clone()).collect()
    }

    /// True when a relative path is excluded.
    pub fn matches(&self, rel: &str) -> bool {
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        self.globs.iter().any(|(_, p)| {
            p.matches_with(rel, opts) || rel.split('/').any(|part| p.matches_with(part, opts))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excludes_match_paths_and_components() {
        let ex = Excludes::new(&["__pycache__", "*.log", "build/out.txt"]).unwrap();
        assert!(ex.matches("a/__pycache__/x.pyc"));
        assert!(ex.matches("deep/run.log"));
        assert!(ex.matches("build/out.txt"));
        assert!(!ex.matches("test_x.py"));
        assert!(Excludes::new(&["[unclosed"]).is_err());
    }
}
