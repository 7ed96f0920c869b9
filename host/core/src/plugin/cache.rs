//! Compiled components on disk, keyed by the component's hash and the
//! engine's compatibility hash.
//!
//! Deserializing a compiled component runs its machine code unchecked, so
//! the host only deserializes files it wrote itself: each file carries an
//! HMAC-SHA256 under a random key that lives beside the cache with owner-only
//! permissions. Anything else in the folder — a foreign file, a truncated
//! write, a file from another engine — is ignored and recompiled.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use super::PluginError;

const MAGIC: &[u8; 8] = b"STCWASM1";
const KEY_FILE: &str = "cache.key";
const KEY_BYTES: usize = 32;
const MAC_BYTES: usize = 32;

/// Whether a load hit the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheOutcome {
    /// Compiled now (and stored, when there is a cache).
    Compiled,
    /// Deserialized from a file this host wrote.
    Cached,
}

pub struct ComponentCache {
    dir: PathBuf,
    key: [u8; KEY_BYTES],
}

impl std::fmt::Debug for ComponentCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("ComponentCache")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl ComponentCache {
    /// Opens (creating) the cache folder and its key.
    pub fn open(dir: &Path) -> Result<Self, PluginError> {
        create_private_dir(dir)?;
        let key_path = dir.join(KEY_FILE);
        let key = match read_key(&key_path) {
            Some(key) => key,
            None => write_new_key(&key_path)?,
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            key,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a component's compiled form lives in.
    pub fn path_for(&self, engine: &Engine, wasm: &[u8]) -> PathBuf {
        let mut engine_hash = DefaultHasher::new();
        engine
            .precompile_compatibility_hash()
            .hash(&mut engine_hash);
        let digest = hex::encode(Sha256::digest(wasm));
        self.dir
            .join(format!("{digest}-{:016x}.cwasm", engine_hash.finish()))
    }

    pub fn load_or_compile(
        &self,
        engine: &Engine,
        source_name: &str,
        wasm: &[u8],
    ) -> Result<(Component, CacheOutcome), PluginError> {
        let path = self.path_for(engine, wasm);
        if let Some(component) = self.load(engine, &path) {
            return Ok((component, CacheOutcome::Cached));
        }
        let component = compile(engine, source_name, wasm)?;
        match component.serialize() {
            Ok(bytes) => {
                if let Err(e) = self.store(&path, &bytes) {
                    // A cache that cannot be written only costs time.
                    tracing::warn!("cannot write {}: {e}", path.display());
                }
            }
            Err(e) => tracing::warn!("cannot serialize {source_name}: {e:#}"),
        }
        Ok((component, CacheOutcome::Compiled))
    }

    fn load(&self, engine: &Engine, path: &Path) -> Option<Component> {
        let bytes = std::fs::read(path).ok()?;
        let payload = self.authenticated_payload(path, &bytes)?;
        // SAFETY: `payload` was produced by `Component::serialize` of this
        // host: its MAC verifies under our private key, and the engine hash
        // in the file name matches the engine we deserialize with.
        #[allow(unsafe_code)]
        let component = unsafe { Component::deserialize(engine, payload) };
        match component {
            Ok(component) => Some(component),
            Err(e) => {
                tracing::debug!("ignoring {}: {e:#}", path.display());
                None
            }
        }
    }

    /// The serialized component, if `bytes` is a file this host wrote for
    /// `path`; `None` for anything else.
    fn authenticated_payload<'a>(&self, path: &Path, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let (tag, payload) = rest.split_at_checked(MAC_BYTES)?;
        let mut mac = self.mac(path)?;
        mac.update(payload);
        match mac.verify_slice(tag) {
            Ok(()) => Some(payload),
            Err(_) => {
                tracing::warn!("ignoring {}: not written by this host", path.display());
                None
            }
        }
    }

    fn mac(&self, path: &Path) -> Option<Hmac<Sha256>> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).ok()?;
        // Bind the tag to the file name, so a valid file cannot be renamed
        // to stand in for another component.
        mac.update(path.file_name()?.as_encoded_bytes());
        Some(mac)
    }

    fn store(&self, path: &Path, payload: &[u8]) -> std::io::Result<()> {
        let mut mac = self
            .mac(path)
            .ok_or_else(|| std::io::Error::other("cache path has no file name"))?;
        mac.update(payload);
        let tag = mac.finalize().into_bytes();
        let mut file = tempfile::NamedTempFile::new_in(&self.dir)?;
        file.write_all(MAGIC)?;
        file.write_all(&tag)?;
        file.write_all(payload)?;
        file.as_file().sync_all()?;
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

fn create_private_dir(dir: &Path) -> Result<(), PluginError> {
    let io = |source| PluginError::Io {
        context: "cannot create the plugin cache folder",
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    }
    Ok(())
}

fn read_key(path: &Path) -> Option<[u8; KEY_BYTES]> {
    std::fs::read(path).ok()?.try_into().ok()
}

/// Writes a fresh key whole, then moves it into place: runs that start at
/// once on an empty cache (a batch, the MCP server's sessions) all end up
/// with the one key that landed first, never with half of one, and so
/// trust each other's files.
fn write_new_key(path: &Path) -> Result<[u8; KEY_BYTES], PluginError> {
    let mut key = [0u8; KEY_BYTES];
    // Two v4 UUIDs come from the OS's CSPRNG: 244 random bits.
    key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    key[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    let io = |source| PluginError::Io {
        context: "cannot write the plugin cache key",
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    // A named temporary file is created owner-only (0600) on Unix.
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    file.write_all(&key).map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    match file.persist_noclobber(path) {
        Ok(_) => Ok(key),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => match read_key(path) {
            // Another run's key landed first: use it.
            Some(theirs) => Ok(theirs),
            // A damaged key: replace it (the files it signed are recompiled).
            None => {
                e.file.persist(path).map_err(|e| io(e.error))?;
                Ok(key)
            }
        },
        Err(e) => Err(io(e.error)),
    }
}

/// Compiles `wasm` into a component; an invalid one is a typed error that
/// names where it came from.
pub(super) fn compile(
    engine: &Engine,
    source_name: &str,
    wasm: &[u8],
) -> Result<Component, PluginError> {
    Component::new(engine, wasm).map_err(|e| PluginError::Invalid {
        source_name: source_name.to_owned(),
        cause: format!("{e:#}"),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn runs_that_open_an_empty_cache_at_once_share_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let keys: Vec<[u8; KEY_BYTES]> = std::thread::scope(|scope| {
            let opening: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| ComponentCache::open(dir.path()).unwrap().key))
                .collect();
            opening.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let on_disk = read_key(&dir.path().join(KEY_FILE)).unwrap();
        assert!(keys.iter().all(|k| *k == on_disk));
    }

    #[test]
    fn a_damaged_key_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(KEY_FILE), b"short").unwrap();
        let key = ComponentCache::open(dir.path()).unwrap().key;
        assert_eq!(read_key(&dir.path().join(KEY_FILE)), Some(key));
    }
}
