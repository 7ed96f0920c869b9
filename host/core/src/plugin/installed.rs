//! What the user installed, and from where: `<data>/plugins/installed.toml`
//! lists every installed plugin with the SHA-256 of its bytes, so a file that
//! changed after install (by hand, by another program, on disk) is refused at
//! load instead of run.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::PluginError;
use super::limits::COMPONENT_SIZE_LIMIT_BYTES;

/// The manifest's file name inside the installed-plugins folder.
pub const MANIFEST_FILE: &str = "installed.toml";

/// The whole manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// One entry per installed plugin.
    ///
    /// ```toml
    /// [[plugin]]
    /// id = "acme"
    /// ```
    #[serde(default, rename = "plugin")]
    pub plugins: Vec<InstalledPlugin>,
}

/// Whether a plugin is a compiled component or a declarative service file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PluginKind {
    /// A WebAssembly component built with the SDK.
    Component,
    /// A `service.toml`, run by the interpreter component.
    Declarative,
}

impl PluginKind {
    /// The extension its file is stored with.
    pub fn extension(self) -> &'static str {
        match self {
            PluginKind::Component => "wasm",
            PluginKind::Declarative => "toml",
        }
    }

    /// What a plugin named `name` (a path or URL) with these bytes is: a
    /// `.toml` name is a service file; otherwise a component starts with the
    /// wasm magic number, and anything else is taken as a service file.
    pub fn of(name: &str, bytes: &[u8]) -> Self {
        if !name.ends_with(".toml") && bytes.starts_with(b"\0asm") {
            PluginKind::Component
        } else {
            PluginKind::Declarative
        }
    }
}

impl std::fmt::Display for PluginKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PluginKind::Component => "component",
            PluginKind::Declarative => "declarative",
        })
    }
}

/// One installed plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct InstalledPlugin {
    /// The service id it provides.
    ///
    /// ```toml
    /// id = "acme"
    /// ```
    pub id: String,
    /// The plugin's own version, from its metadata.
    ///
    /// ```toml
    /// version = "1.2.0"
    /// ```
    pub version: String,
    /// The plugin API it speaks.
    ///
    /// ```toml
    /// api-version = "0.2.0"
    /// ```
    pub api_version: String,
    /// Component or declarative.
    ///
    /// ```toml
    /// kind = "declarative"
    /// ```
    pub kind: PluginKind,
    /// Its file inside the installed-plugins folder.
    ///
    /// ```toml
    /// file = "acme.toml"
    /// ```
    pub file: String,
    /// SHA-256 of the file's bytes, lower-case hex.
    ///
    /// ```toml
    /// sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    /// ```
    pub sha256: String,
    /// Where it came from: a path, a URL, or `index <location>`.
    ///
    /// ```toml
    /// source = "https://plugins.example.org/acme-1.2.0.wasm"
    /// ```
    pub source: String,
    /// When it was installed, RFC 3339 in UTC.
    ///
    /// ```toml
    /// installed-at = "2026-11-23T07:00:00Z"
    /// ```
    pub installed_at: String,
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether `text` is a SHA-256 in hex (either case).
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit())
}

impl Manifest {
    /// Reads the manifest in `dir`; no file is an empty manifest.
    pub fn load(dir: &Path) -> Result<Self, PluginError> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(PluginError::Io {
                    context: "cannot read the installed-plugins manifest",
                    path,
                    source,
                });
            }
        };
        toml::from_str(&text).map_err(|e| PluginError::Manifest {
            path,
            cause: e.to_string(),
        })
    }

    /// Writes the manifest to `dir` atomically: a crash leaves the old one.
    pub fn save(&self, dir: &Path) -> Result<(), PluginError> {
        let text = toml::to_string_pretty(self).map_err(|e| PluginError::Manifest {
            path: dir.join(MANIFEST_FILE),
            cause: e.to_string(),
        })?;
        let header = "# Plugins installed with `subterminator plugin install`. Each file's SHA-256\n\
                      # is checked at load: edit a plugin and it is refused until reinstalled.\n\n";
        write_atomic(
            &dir.join(MANIFEST_FILE),
            format!("{header}{text}").as_bytes(),
        )
    }

    pub fn get(&self, id: &str) -> Option<&InstalledPlugin> {
        self.plugins.iter().find(|p| p.id == id)
    }

    /// Adds `entry`, replacing any entry with its id.
    pub fn put(&mut self, entry: InstalledPlugin) {
        self.plugins.retain(|p| p.id != entry.id);
        self.plugins.push(entry);
        self.plugins.sort_by(|a, b| a.id.cmp(&b.id));
    }

    /// Removes the entry for `id`, returning it.
    pub fn take(&mut self, id: &str) -> Option<InstalledPlugin> {
        let at = self.plugins.iter().position(|p| p.id == id)?;
        Some(self.plugins.remove(at))
    }
}

impl InstalledPlugin {
    /// The file's bytes, refused unless they still hash to the recorded
    /// SHA-256.
    pub fn read_verified(&self, dir: &Path) -> Result<Vec<u8>, PluginError> {
        let path = self.path(dir)?;
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if size > COMPONENT_SIZE_LIMIT_BYTES {
            return Err(PluginError::Invalid {
                source_name: path.display().to_string(),
                cause: format!(
                    "{size} bytes is over the {} MiB limit",
                    COMPONENT_SIZE_LIMIT_BYTES / (1024 * 1024)
                ),
            });
        }
        let bytes = std::fs::read(&path).map_err(|source| PluginError::Io {
            context: "cannot read the installed plugin",
            path: path.clone(),
            source,
        })?;
        let found = sha256_hex(&bytes);
        if !found.eq_ignore_ascii_case(&self.sha256) {
            return Err(PluginError::Tampered {
                id: self.id.clone(),
                path,
                expected: self.sha256.clone(),
                found,
            });
        }
        Ok(bytes)
    }

    /// The file's path, refused when the manifest names anything but a plain
    /// file name in `dir`.
    pub fn path(&self, dir: &Path) -> Result<PathBuf, PluginError> {
        let plain = Path::new(&self.file)
            .file_name()
            .map(|n| n.to_string_lossy())
            == Some(self.file.as_str().into());
        if !plain || self.file.starts_with('.') {
            return Err(PluginError::Manifest {
                path: dir.join(MANIFEST_FILE),
                cause: format!(
                    "plugin '{}': file {:?} is not a file name in the plugins folder",
                    self.id, self.file
                ),
            });
        }
        Ok(dir.join(&self.file))
    }
}

/// Plugin-looking files in `dir` that the manifest does not list: dropped
/// there by hand, so nothing says where they came from.
pub fn unlisted_files(dir: &Path, manifest: &Manifest) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wasm" || x == "toml"))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            name.as_deref() != Some(MANIFEST_FILE)
                && !manifest
                    .plugins
                    .iter()
                    .any(|e| Some(e.file.as_str()) == name.as_deref())
        })
        .collect();
    files.sort();
    files
}

/// Writes `bytes` to `path` through a temporary file in the same folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PluginError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |source| PluginError::Io {
        context: "cannot write",
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn entry(id: &str, file: &str, sha: &str) -> InstalledPlugin {
        InstalledPlugin {
            id: id.into(),
            version: "1.0.0".into(),
            api_version: "0.2.0".into(),
            kind: PluginKind::Declarative,
            file: file.into(),
            sha256: sha.into(),
            source: "/tmp/acme.toml".into(),
            installed_at: "2026-11-23T07:00:00Z".into(),
        }
    }

    #[test]
    fn manifest_round_trips_and_replaces_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::default();
        m.put(entry("zed", "zed.toml", "00"));
        m.put(entry("acme", "acme.toml", "11"));
        m.put(entry("acme", "acme.toml", "22"));
        m.save(dir.path()).unwrap();
        let back = Manifest::load(dir.path()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.plugins.len(), 2);
        assert_eq!(back.get("acme").unwrap().sha256, "22");
        assert_eq!(back.plugins[0].id, "acme", "sorted by id");
    }

    #[test]
    fn a_changed_byte_is_refused_with_both_hashes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("acme.toml"), b"api = \"0.2.0\"\n").unwrap();
        let sha = sha256_hex(b"api = \"0.2.0\"\n");
        let e = entry("acme", "acme.toml", &sha);
        assert!(e.read_verified(dir.path()).is_ok());
        std::fs::write(dir.path().join("acme.toml"), b"api = \"0.2.1\"\n").unwrap();
        let err = e.read_verified(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no longer match"), "{err}");
        assert!(err.contains(&sha), "{err}");
    }

    #[test]
    fn manifest_file_names_cannot_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "../evil.wasm",
            "/etc/passwd",
            "sub/x.wasm",
            ".hidden.wasm",
            "",
        ] {
            let err = entry("acme", file, "00").path(dir.path()).unwrap_err();
            assert!(err.to_string().contains("not a file name"), "{file}: {err}");
        }
        assert!(entry("acme", "acme.wasm", "00").path(dir.path()).is_ok());
    }

    #[test]
    fn unknown_manifest_keys_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            "[[plugin]]\nid = \"a\"\ntrusted = true\n",
        )
        .unwrap();
        let err = Manifest::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("trusted"), "{err}");
    }

    #[test]
    fn files_not_in_the_manifest_are_found() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["acme.toml", "dropped.wasm", "notes.txt", MANIFEST_FILE] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let mut m = Manifest::default();
        m.put(entry("acme", "acme.toml", "00"));
        let unlisted = unlisted_files(dir.path(), &m);
        assert_eq!(unlisted, vec![dir.path().join("dropped.wasm")]);
    }

    #[test]
    fn kinds_are_told_apart_by_name_and_bytes() {
        let wasm = b"\0asm\x0d\0\x01\0";
        let cases: [(&str, &[u8], PluginKind); 4] = [
            ("acme.wasm", wasm, PluginKind::Component),
            ("https://x.test/acme", wasm, PluginKind::Component),
            ("acme.wasm", b"api = \"0.2.0\"", PluginKind::Declarative),
            ("acme.toml", wasm, PluginKind::Declarative),
        ];
        for (name, bytes, want) in cases {
            assert_eq!(PluginKind::of(name, bytes), want, "{name}");
        }
    }
}
