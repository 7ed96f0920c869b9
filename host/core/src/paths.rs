//! Where files live on a user's machine (XDG on Linux, the platform's own
//! folders elsewhere). `SUBTERMINATOR_HOME` puts everything under one folder,
//! which tests and portable installs use.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Overrides every directory below with `$SUBTERMINATOR_HOME/{config,data,cache}`.
pub const HOME_ENV: &str = "SUBTERMINATOR_HOME";

#[derive(Debug, Clone)]
pub struct Dirs {
    pub config: PathBuf,
    pub data: PathBuf,
    pub cache: PathBuf,
}

impl Dirs {
    pub fn from_env() -> Result<Self> {
        if let Some(home) = std::env::var_os(HOME_ENV).filter(|h| !h.is_empty()) {
            return Ok(Self::under(Path::new(&home)));
        }
        let project = directories::ProjectDirs::from("", "", "subterminator").ok_or_else(|| {
            Error::Configuration(format!(
                "Cannot find a home directory for subterminator's files. Set {HOME_ENV} to a folder."
            ))
        })?;
        Ok(Self {
            config: project.config_dir().to_path_buf(),
            data: project.data_dir().to_path_buf(),
            cache: project.cache_dir().to_path_buf(),
        })
    }

    pub fn under(home: &Path) -> Self {
        Self {
            config: home.join("config"),
            data: home.join("data"),
            cache: home.join("cache"),
        }
    }

    /// `config.toml` in the config directory.
    pub fn config_file(&self) -> PathBuf {
        self.config.join("config.toml")
    }

    /// The browser profile one service's sign-ins live in. Each service
    /// has its own, so that runs of different services can each hold theirs
    /// at once (a Chromium profile is one browser's at a time). Service ids
    /// are `a-z`, `0-9` and `-`, checked at plugin load: always one folder.
    pub fn signed_in_profile(&self, service: &str) -> PathBuf {
        self.profiles().join(service)
    }

    /// The folder holding every service's signed-in profile.
    pub fn profiles(&self) -> PathBuf {
        self.data.join("profiles")
    }

    /// The one profile every service shared before each had its own; a
    /// service's first run copies it (the `profiles` module).
    pub fn shared_profile(&self) -> PathBuf {
        self.data.join("browser-profile")
    }

    /// Plugins the user installed (`<id>.wasm`).
    pub fn installed_plugins(&self) -> PathBuf {
        self.data.join("plugins")
    }

    /// Compiled plugins; safe to delete at any time.
    pub fn plugin_cache(&self) -> PathBuf {
        self.cache.join("plugins")
    }

    /// Node.js's compile cache for the Playwright MCP server; safe to delete
    /// at any time.
    pub fn node_compile_cache(&self) -> PathBuf {
        self.cache.join("node")
    }

    /// Paths that worked, one file per service and plugin version.
    pub fn memory(&self) -> PathBuf {
        self.data.join("memory")
    }

    /// One folder per run: its record and screenshots.
    pub fn runs(&self) -> PathBuf {
        self.data.join("runs")
    }
}
