//! Which services exist: the first-party plugins embedded in the binary
//! (components, and declarative `service.toml` files run by the embedded
//! interpreter), and the ones the user installed, listed with their SHA-256
//! in `<data>/plugins/installed.toml`. An installed plugin with a bundled
//! plugin's id takes its place.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::installed::{Manifest, PluginKind, sha256_hex, unlisted_files};
use super::types::{Metadata, PlanStep};
use super::{Plugin, PluginEngine, PluginError, SharedPlugin};

/// A plugin compiled into this binary by `build.rs`.
#[derive(Debug)]
pub struct BundledPlugin {
    pub package: &'static str,
    pub wasm: &'static [u8],
}

/// A declarative service shipped in this binary (`plugins/<id>/service.toml`).
#[derive(Debug)]
pub struct BundledDeclarative {
    pub file: &'static str,
    pub text: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// Where a loaded plugin came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum PluginSource {
    /// Shipped in this binary.
    Bundled,
    /// Installed by `plugin install`: its file, where it came from, and when.
    Installed {
        path: PathBuf,
        from: String,
        installed_at: String,
    },
    /// The built-in generic service, made for this address (`cancel
    /// <address>`): no plugin.
    Generic { address: String },
}

impl PluginSource {
    /// A plugin added from a file by a caller (tests, `plugin test`), with no
    /// manifest entry.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        PluginSource::Installed {
            from: path.display().to_string(),
            path,
            installed_at: String::new(),
        }
    }
}

impl std::fmt::Display for PluginSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PluginSource::Bundled => f.write_str("bundled"),
            PluginSource::Installed { from, .. } => write!(f, "installed from {from}"),
            PluginSource::Generic { .. } => f.write_str("no plugin: the built-in generic service"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServiceEntry {
    pub metadata: Metadata,
    pub plan: Vec<PlanStep>,
    pub source: PluginSource,
    pub kind: PluginKind,
    /// SHA-256 of the component or service file, lower-case hex.
    pub sha256: String,
    pub api_version: &'static str,
    pub plugin: SharedPlugin,
    /// Set for the generic service (`cancel <address>`): the site it may
    /// visit whole, and the account pages to look at.
    pub generic: Option<super::site::Generic>,
}

/// Which plugin ran, for run records: enough to find the exact bytes again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    pub id: String,
    pub version: String,
    pub api_version: String,
    pub kind: PluginKind,
    pub sha256: String,
    pub source: PluginSource,
}

impl ServiceEntry {
    pub fn provenance(&self) -> Provenance {
        Provenance {
            id: self.metadata.id.clone(),
            version: self.metadata.version.clone(),
            api_version: self.api_version.to_owned(),
            kind: self.kind,
            sha256: self.sha256.clone(),
            source: self.source.clone(),
        }
    }
}

#[derive(Debug, Default)]
pub struct Registry {
    entries: Vec<ServiceEntry>,
    broken: Vec<(String, PluginError)>,
    /// The engine the plugins were loaded with, for the generic service a
    /// command makes later from an address.
    engine: Option<PluginEngine>,
}

impl Registry {
    /// Loads every bundled plugin and every plugin the manifest in
    /// `installed_dir` lists. A plugin that fails to load (bad bytes, bytes
    /// that changed since install, a file nobody installed) is kept aside
    /// with its error; the others still serve.
    pub fn load(engine: &PluginEngine, installed_dir: Option<&Path>) -> Self {
        let mut registry = Self {
            engine: Some(engine.clone()),
            ..Self::default()
        };
        for bundled in BUNDLED {
            registry.add(engine, bundled.package, bundled.wasm, PluginSource::Bundled);
        }
        for bundled in BUNDLED_DECLARATIVE {
            registry.add_declarative(engine, bundled.file, bundled.text, PluginSource::Bundled);
        }
        if let Some(dir) = installed_dir {
            registry.load_installed(engine, dir);
        }
        registry
            .entries
            .sort_by(|a, b| a.metadata.id.cmp(&b.metadata.id));
        registry
    }

    fn load_installed(&mut self, engine: &PluginEngine, dir: &Path) {
        let manifest = match Manifest::load(dir) {
            Ok(manifest) => manifest,
            Err(e) => {
                self.broken.push((dir.display().to_string(), e));
                return;
            }
        };
        for entry in &manifest.plugins {
            let name = entry.file.clone();
            let bytes = match entry.read_verified(dir) {
                Ok(bytes) => bytes,
                Err(e) => {
                    // Commands that list plugins print it; a run that asks
                    // for this one gets it as its error.
                    tracing::debug!("{e}");
                    self.broken.push((name, e));
                    continue;
                }
            };
            let source = PluginSource::Installed {
                path: dir.join(&entry.file),
                from: entry.source.clone(),
                installed_at: entry.installed_at.clone(),
            };
            match entry.kind {
                PluginKind::Component => self.add(engine, &name, &bytes, source),
                PluginKind::Declarative => match String::from_utf8(bytes) {
                    Ok(text) => self.add_declarative(engine, &name, &text, source),
                    Err(_) => self.broken.push((
                        name.clone(),
                        PluginError::ServiceFile {
                            source_name: name,
                            cause: "not UTF-8 text".into(),
                        },
                    )),
                },
            }
        }
        for path in unlisted_files(dir, &manifest) {
            self.broken
                .push((path.display().to_string(), PluginError::Unlisted { path }));
        }
    }

    /// Adds one component; a later plugin with an existing id replaces it.
    pub fn add(
        &mut self,
        engine: &PluginEngine,
        source_name: &str,
        wasm: &[u8],
        source: PluginSource,
    ) {
        let loaded = Plugin::load(engine, source_name, wasm);
        let sha256 = sha256_hex(wasm);
        self.insert(source_name, loaded, source, PluginKind::Component, sha256);
    }

    /// Adds one declarative service; a later plugin with an existing id
    /// replaces it.
    pub fn add_declarative(
        &mut self,
        engine: &PluginEngine,
        source_name: &str,
        text: &str,
        source: PluginSource,
    ) {
        let loaded = load_declarative(engine, source_name, text);
        self.insert(
            source_name,
            loaded,
            source,
            PluginKind::Declarative,
            sha256_hex(text.as_bytes()),
        );
    }

    fn insert(
        &mut self,
        source_name: &str,
        loaded: Result<Plugin, PluginError>,
        source: PluginSource,
        kind: PluginKind,
        sha256: String,
    ) {
        match loaded {
            Ok(plugin) => {
                let entry = ServiceEntry {
                    metadata: plugin.metadata().clone(),
                    plan: plugin.plan().to_vec(),
                    source,
                    kind,
                    sha256,
                    api_version: plugin.api_version(),
                    plugin: Arc::new(Mutex::new(plugin)),
                    generic: None,
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
                tracing::debug!("{e}");
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

    /// The engine the plugins were loaded with; `None` for a registry made
    /// empty (tests).
    pub fn engine(&self) -> Option<&PluginEngine> {
        self.engine.as_ref()
    }

    /// The plugin that knows the site `domain` (a registrable domain such
    /// as `spotify.com`): one whose allowed origins lie under it, so that
    /// `cancel spotify.com` runs Spotify's plugin rather than no plugin.
    pub fn for_domain(&self, domain: &str) -> Option<&ServiceEntry> {
        let on_site = |origin: &String| {
            url::Url::parse(origin).ok().is_some_and(|u| {
                u.host_str()
                    .is_some_and(|host| super::site::under(host, domain))
            })
        };
        self.entries
            .iter()
            .find(|e| e.metadata.allowed_origins.iter().any(on_site))
    }

    pub fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.metadata.id.clone()).collect()
    }

    /// The service called `name` (ignoring case).
    pub fn get(&self, name: &str) -> Result<&ServiceEntry, PluginError> {
        let wanted = name.trim();
        if let Some(entry) = self
            .entries
            .iter()
            .find(|e| e.metadata.id.eq_ignore_ascii_case(wanted))
        {
            return Ok(entry);
        }
        // An installed plugin that was refused at load is stored as
        // `<id>.wasm` or `<id>.toml`: say why it is missing, not that it
        // does not exist.
        let refused = self.broken.iter().find(|(file, _)| {
            Path::new(file)
                .file_stem()
                .is_some_and(|stem| stem.to_string_lossy().eq_ignore_ascii_case(wanted))
        });
        Err(match refused {
            Some((_, why)) => PluginError::NotLoaded {
                id: wanted.to_owned(),
                cause: why.to_string(),
            },
            None => PluginError::ServiceNotFound {
                name: name.to_owned(),
                available: self.ids(),
            },
        })
    }
}

/// Checks a declarative service file where the host can name the line and
/// key of a mistake, then runs it in the sandbox through the interpreter.
pub fn load_declarative(
    engine: &PluginEngine,
    source_name: &str,
    text: &str,
) -> Result<Plugin, PluginError> {
    subterminator_declarative::parse(text).map_err(|e| PluginError::ServiceFile {
        source_name: source_name.to_owned(),
        cause: e.to_string(),
    })?;
    Plugin::load_declarative(engine, source_name, text)
}
