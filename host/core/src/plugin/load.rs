//! Loading the plugins a command needs: the bundled ones and those installed
//! in the data folder, compiled once per machine through the cache.

use super::{ComponentCache, PluginEngine, Registry};
use crate::error::Result;
use crate::paths::Dirs;

/// The plugin engine with the compiled-component cache, or without one when
/// the cache cannot be opened. Every command that loads plugins uses it, so
/// a component (the interpreter above all) is compiled once per machine.
pub fn engine(dirs: &Dirs) -> Result<PluginEngine> {
    Ok(match ComponentCache::open(&dirs.plugin_cache()) {
        Ok(cache) => PluginEngine::with_cache(cache)?,
        Err(e) => {
            tracing::warn!("{e}; compiling plugins without a cache");
            PluginEngine::new()?
        }
    })
}

/// Loads every plugin off the async workers (wasmtime must not run on them).
pub async fn load_registry(dirs: &Dirs) -> Result<Registry> {
    let dirs = dirs.clone();
    tokio::task::spawn_blocking(move || {
        let engine = engine(&dirs)?;
        Ok(Registry::load(&engine, Some(&dirs.installed_plugins())))
    })
    .await
    .map_err(|e| {
        crate::Error::Configuration(format!(
            "loading plugins failed: {e}; this is a bug in subterminator: please report it"
        ))
    })?
}
