//! Which services exist: the first-party plugins embedded in the binary, and
//! the ones the user installed as `<data>/plugins/*.wasm`. An installed
//! plugin with a bundled plugin's id takes its place.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::limits::COMPONENT_SIZE_LIMIT_BYTES;
use super::types::{Metadata, PlanStep};
use super::{Plugin, PluginEngine, PluginError, SharedPlugin};

/// A plugin compiled into this binary by `build.rs`.
#[derive(Debug)]
pub struct BundledPlugin {
    pub package: &'static str,
    pub wasm: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "path")]
pub enum PluginSource {
    Bundled,
    Installed(PathBuf),
}

impl std::fmt::Display for PluginSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PluginSource::Bundled => f.write_str("bundled"),
            PluginSource::Installed(_) => f.write_str("installed"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServiceEntry {
    pub metadata: Metadata,
    pub plan: Vec<PlanStep>,
    pub source: PluginSource,
    pub api_version: &'static str,
    pub plugin: SharedPlugin,
}

#[derive(Debug, Default)]
pub struct Registry {
    entries: Vec<ServiceEntry>,
    broken: Vec<(String, PluginError)>,
}

impl Registry {
    /// Loads every bundled plugin and every `.wasm` in `installed_dir`. A
    /// plugin that fails to load is kept aside with its error; the others
    /// still serve.
    pub fn load(engine: &PluginEngine, installed_dir: Option<&Path>) -> Self {
        let mut registry = Self::default();
        for bundled in BUNDLED {
            registry.add(engine, bundled.package, bundled.wasm, PluginSource::Bundled);
        }
        if let Some(dir) = installed_dir {
            for path in wasm_files(dir) {
                let name = path.display().to_string();
                match read_component(&path) {
                    Ok(wasm) => registry.add(engine, &name, &wasm, PluginSource::Installed(path)),
                    Err(e) => registry.broken.push((name, e)),
                }
            }
        }
        registry
            .entries
            .sort_by(|a, b| a.metadata.id.cmp(&b.metadata.id));
        registry
    }

    /// Adds one component; a later plugin with an existing id replaces it.
    pub fn add(
        &mut self,
        engine: &PluginEngine,
        source_name: &str,
        wasm: &[u8],
        source: PluginSource,
    ) {
        match Plugin::load(engine, source_name, wasm) {
            Ok(plugin) => {
                let entry = ServiceEntry {
                    metadata: plugin.metadata().clone(),
                    plan: plugin.plan().to_vec(),
                    source,
                    api_version: plugin.api_version(),
                    plugin: Arc::new(Mutex::new(plugin)),
                };
                if let Some(old) = self
                    .entries
                    .iter_mut()
                    .find(|e| e.metadata.id == entry.metadata.id)
                {
                    tracing::info!(
                        "{} plugin '{}' replaces the {} one",
                        entry.source,
                        entry.metadata.id,
                        old.source
                    );
                    *old = entry;
                } else {
                    self.entries.push(entry);
                }
            }
            Err(e) => {
                tracing::warn!("{e}");
                self.broken.push((source_name.to_owned(), e));
            }
        }
    }

    pub fn services(&self) -> &[ServiceEntry] {
        &self.entries
    }

    /// Plugins that failed to load, with why.
    pub fn broken(&self) -> &[(String, PluginError)] {
        &self.broken
    }

    pub fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.metadata.id.clone()).collect()
    }

    /// The service called `name` (ignoring case).
    pub fn get(&self, name: &str) -> Result<&ServiceEntry, PluginError> {
        self.entries
            .iter()
            .find(|e| e.metadata.id.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| PluginError::ServiceNotFound {
                name: name.to_owned(),
                available: self.ids(),
            })
    }
}

fn wasm_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
        .collect();
    files.sort();
    files
}

fn read_component(path: &Path) -> Result<Vec<u8>, PluginError> {
    let io = |source| PluginError::Io {
        context: "cannot read the plugin",
        path: path.to_path_buf(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > COMPONENT_SIZE_LIMIT_BYTES {
        return Err(PluginError::Invalid {
            source_name: path.display().to_string(),
            cause: format!(
                "{size} bytes is over the {} MiB limit",
                COMPONENT_SIZE_LIMIT_BYTES / (1024 * 1024)
            ),
        });
    }
    std::fs::read(path).map_err(io)
}
