//! The [`Registry`] of adapters (built-ins and loaded plugins behind one trait) and format
//! detection.

use std::path::PathBuf;
use std::sync::Arc;

use gapscore_adapter_sdk::Adapter;

use crate::loader::{PluginAdapter, PluginError, PluginSearch, load_plugin};

/// Where an adapter comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Compiled into gapscore.
    BuiltIn,
    /// Loaded from a plugin file.
    Plugin(PathBuf),
    /// An executable adapter (`--plugin-exec`), by its command line.
    Exec(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::BuiltIn => f.write_str("built-in"),
            Origin::Plugin(p) => write!(f, "plugin {}", p.display()),
            Origin::Exec(c) => write!(f, "plugin-exec {c}"),
        }
    }
}

/// An adapter and its origin.
#[derive(Clone)]
pub struct Registered {
    /// The adapter.
    pub adapter: Arc<dyn Adapter>,
    /// Where it comes from.
    pub origin: Origin,
    /// The same adapter when it is a plugin loaded through the C ABI: ingest offers a v2
    /// plugin a large file in parts through it.
    pub(crate) plugin: Option<Arc<PluginAdapter>>,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("name", &self.adapter.info().name)
            .field("origin", &self.origin)
            .finish()
    }
}

impl Registered {
    /// The adapter's name.
    pub fn name(&self) -> &str {
        &self.adapter.info().name
    }
}

/// Why no adapter was chosen for a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DetectError {
    /// No adapter claims the file.
    #[error("no adapter recognises this file (known formats: {}); name one with --input-format ID", .known.join(", "))]
    NoMatch {
        /// Every format id known.
        known: Vec<String>,
    },
    /// Several adapters claim it equally.
    #[error("ambiguous format: {} claim it with confidence {confidence}; name one with --input-format ID", .candidates.join(", "))]
    Tie {
        /// The adapters tied at the top.
        candidates: Vec<String>,
        /// Their confidence.
        confidence: u8,
    },
    /// No adapter claims the file, and gapscore can say what it is: empty, whitespace only,
    /// binary, or a known format it does not read (NUnit, xUnit.net, TRX, CSV), with what to do.
    #[error("{reason}")]
    NotResults {
        /// What the file is, and how to get results gapscore reads.
        reason: String,
    },
    /// An adapter could not say whether it reads the file: a plugin isolated in a child
    /// process crashed or hung while detecting (`--plugin-isolate`). The file is not read, and
    /// never left out as unrecognised.
    #[error(
        "{reason}; the file is not read (a detection that failed is never taken as \"not this format\")"
    )]
    DetectionFailed {
        /// The plugin, and what happened.
        reason: String,
    },
    /// A forced format id is unknown.
    #[error("unknown format `{id}` (known formats: {})", .known.join(", "))]
    UnknownFormat {
        /// The id asked for.
        id: String,
        /// Every format id known.
        known: Vec<String>,
    },
}

/// The adapters gapscore can use: built-ins first, then plugins in search order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<Registered>,
}

impl Registry {
    /// An empty registry.
    pub fn empty() -> Self {
        Registry::default()
    }

    /// The built-in adapters, statically linked: gapscore works with zero plugins.
    pub fn builtin() -> Self {
        let mut r = Registry::empty();
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_simple::Simple::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_junit::JUnit::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_pytest::Pytest::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_jest::Jest::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_ctrf::Ctrf::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_gotest::GoTest::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_tap::Tap::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_libtest::Libtest::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r.entries.push(Registered {
            adapter: Arc::new(gapscore_adapter_mocha::Mocha::new()),
            origin: Origin::BuiltIn,
            plugin: None,
        });
        r
    }

    /// Every adapter, built-ins first.
    pub fn entries(&self) -> &[Registered] {
        &self.entries
    }

    /// Adds an adapter. A name or format id already taken (by a built-in, or an earlier plugin)
    /// is refused: the first one wins, so a plugin can never silently replace a built-in reader,
    /// and `--input-format ID` always means one adapter.
    pub fn add(&mut self, adapter: Arc<dyn Adapter>, origin: Origin) -> Result<(), String> {
        let name = adapter.info().name.clone();
        if let Some(prev) = self.entries.iter().find(|e| e.name() == name) {
            return Err(format!(
                "adapter name `{name}` is already taken by the {} adapter",
                prev.origin
            ));
        }
        for id in &adapter.info().formats {
            if let Some(prev) = self
                .entries
                .iter()
                .find(|e| e.adapter.info().formats.contains(id) || e.name() == id)
            {
                return Err(format!(
                    "format id `{id}` is already read by the `{}` adapter ({})",
                    prev.name(),
                    prev.origin
                ));
            }
        }
        self.entries.push(Registered {
            adapter,
            origin,
            plugin: None,
        });
        Ok(())
    }

    /// [`Registry::add`] for a plugin loaded from `path`.
    pub fn add_plugin(&mut self, plugin: PluginAdapter, path: PathBuf) -> Result<(), String> {
        let plugin = Arc::new(plugin);
        self.add(plugin.clone(), Origin::Plugin(path))?;
        if let Some(entry) = self.entries.last_mut() {
            entry.plugin = Some(plugin);
        }
        Ok(())
    }

    /// Loads every plugin the search finds. Plugins that fail are returned as errors (each
    /// naming its file and reason) and skipped; the others are registered.
    pub fn load_plugins(&mut self, search: &PluginSearch) -> Vec<PluginError> {
        let (files, mut errors) = search.discover();
        let timeout = search.exec_timeout.unwrap_or(crate::exec::PARSE_TIMEOUT);
        for path in files {
            if let Some(serve) = &search.isolate {
                match crate::exec::load_isolated(serve, &path, search.debug) {
                    Ok(a) => {
                        let a = Arc::new(a.with_timeout(timeout));
                        if let Err(reason) = self.add(a, Origin::Plugin(path.clone())) {
                            errors.push(PluginError { path, reason });
                        }
                    }
                    Err(reason) => errors.push(PluginError { path, reason }),
                }
                continue;
            }
            match load_plugin(&path) {
                Ok(p) => {
                    let p = p.with_debug(search.debug);
                    if let Err(reason) = self.add_plugin(p, path.clone()) {
                        errors.push(PluginError { path, reason });
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        for cmd in &search.execs {
            let path = PathBuf::from(cmd);
            match crate::exec::load_exec(cmd) {
                Ok(a) => {
                    let a = a.with_debug(search.debug).with_timeout(timeout);
                    if let Err(reason) = self.add(Arc::new(a), Origin::Exec(cmd.clone())) {
                        errors.push(PluginError { path, reason });
                    }
                }
                Err(reason) => errors.push(PluginError { path, reason }),
            }
        }
        errors
    }

    /// Every format id, in registry order.
    pub fn format_ids(&self) -> Vec<String> {
        self.entries
            .iter()
            .flat_map(|e| e.adapter.info().formats.iter().cloned())
            .collect()
    }

    /// The adapter reading a format id (or named so).
    pub fn by_format(&self, id: &str) -> Result<&Registered, DetectError> {
        self.entries
            .iter()
            .find(|e| e.adapter.info().formats.iter().any(|f| f == id))
            .or_else(|| self.entries.iter().find(|e| e.name() == id))
            .ok_or_else(|| DetectError::UnknownFormat {
                id: id.to_owned(),
                known: self.format_ids(),
            })
    }

    /// Picks the adapter most confident it reads a file. No claim, or a tie at the top, is an
    /// error listing the candidates: guessing between two readers could read a file wrongly.
    /// A file no adapter claims is named when gapscore can tell what it is
    /// ([`DetectError::NotResults`]).
    pub fn detect(
        &self,
        prefix: &[u8],
        file_name: Option<&str>,
    ) -> Result<&Registered, DetectError> {
        self.detect_scored(prefix, file_name).map(|(e, _)| e)
    }

    /// Like [`Registry::detect`], with the winning confidence (1–100).
    pub fn detect_scored(
        &self,
        prefix: &[u8],
        file_name: Option<&str>,
    ) -> Result<(&Registered, u8), DetectError> {
        let mut scored: Vec<(u8, &Registered)> = Vec::with_capacity(self.entries.len());
        for e in &self.entries {
            let score = e
                .adapter
                .try_detect(prefix, file_name)
                .map_err(|reason| DetectError::DetectionFailed { reason })?;
            scored.push((score.min(100), e));
        }
        let best = scored.iter().map(|(c, _)| *c).max().unwrap_or(0);
        if best == 0 {
            if let Some(reason) = crate::unread::describe(prefix, file_name) {
                return Err(DetectError::NotResults { reason });
            }
            return Err(DetectError::NoMatch {
                known: self.format_ids(),
            });
        }
        let top: Vec<&Registered> = scored
            .iter()
            .filter(|(c, _)| *c == best)
            .map(|(_, e)| *e)
            .collect();
        match top.as_slice() {
            [one] => Ok((one, best)),
            many => Err(DetectError::Tie {
                candidates: many.iter().map(|e| format!("`{}`", e.name())).collect(),
                confidence: best,
            }),
        }
    }
}
