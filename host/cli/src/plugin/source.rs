//! Getting a plugin's bytes from what a person names on the command line: a
//! `.wasm`, a `service.toml`, a plugin folder (built when it is a Rust
//! crate), an https URL, or an id looked up in the configured index.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use subterminator_core::error::{Error, Result};
use subterminator_core::plugin::bounds::is_loopback;
use subterminator_core::plugin::index::Index;
use subterminator_core::plugin::limits::COMPONENT_SIZE_LIMIT_BYTES;
use subterminator_core::plugin::{PluginError, PluginKind, sha256_hex};

/// How long a plugin or index download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// The file a declarative plugin folder holds.
pub const SERVICE_FILE: &str = "service.toml";

/// A plugin's bytes and where they came from.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub bytes: Vec<u8>,
    pub kind: PluginKind,
    /// For the manifest and the prompt: a path, a URL, or `index …`.
    pub source: String,
    /// The folder its fixtures live in, when it came from a folder or file.
    pub fixtures: Option<PathBuf>,
}

/// Reads a local plugin: a file, or a folder with a `service.toml` or a
/// `Cargo.toml` (built for the plugin target first).
pub fn local(path: &Path, quiet: bool) -> Result<Candidate> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if absolute.is_dir() {
        let service = absolute.join(SERVICE_FILE);
        if service.is_file() {
            return file(&service);
        }
        if absolute.join("Cargo.toml").is_file() {
            let wasm = build_rust(&absolute, quiet)?;
            let mut candidate = file(&wasm)?;
            candidate.fixtures = Some(absolute.join("fixtures"));
            candidate.source = absolute.display().to_string();
            return Ok(candidate);
        }
        return Err(Error::Configuration(format!(
            "{} holds neither a {SERVICE_FILE} nor a Cargo.toml; point at a plugin folder, a .wasm or a service.toml (create one with `subterminator plugin new <id>`)",
            absolute.display()
        )));
    }
    file(&absolute)
}

fn file(path: &Path) -> Result<Candidate> {
    let size = std::fs::metadata(path)
        .map_err(|e| Error::io("cannot read the plugin", path, e))?
        .len();
    if size > COMPONENT_SIZE_LIMIT_BYTES {
        return Err(PluginError::Install(format!(
            "{}: {size} bytes is over the {} MiB plugin limit; check that this is the plugin you meant",
            path.display(),
            COMPONENT_SIZE_LIMIT_BYTES / (1024 * 1024)
        ))
        .into());
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read the plugin", path, e))?;
    let kind = PluginKind::of(&path.to_string_lossy(), &bytes);
    let folder = path.parent().unwrap_or(Path::new("."));
    // A .wasm in a crate's target/ folder has its fixtures in the crate.
    let fixtures = folder
        .ancestors()
        .map(|a| a.join("fixtures"))
        .take(5)
        .find(|f| f.is_dir())
        .unwrap_or_else(|| folder.join("fixtures"));
    Ok(Candidate {
        bytes,
        kind,
        source: path.display().to_string(),
        fixtures: Some(fixtures),
    })
}

/// Whether `what` is a URL this tool will download from: https, or plain
/// http on loopback (tests, a local mirror).
pub fn parse_url(what: &str) -> Option<Result<url::Url>> {
    if !what.starts_with("https://") && !what.starts_with("http://") {
        return None;
    }
    Some(check_url(what))
}

fn check_url(what: &str) -> Result<url::Url> {
    let url = url::Url::parse(what).map_err(|e| {
        PluginError::Install(format!("{what:?} is not a URL: {e}; check the address"))
    })?;
    let loopback = url.host_str().is_some_and(is_loopback);
    if url.scheme() != "https" && !(url.scheme() == "http" && loopback) {
        return Err(PluginError::Install(format!(
            "{what}: plugins are downloaded over https only (plain http only from 127.0.0.1); use an https URL"
        ))
        .into());
    }
    Ok(url)
}

/// Downloads `url`, bounded in size and time.
pub async fn download(url: &url::Url) -> Result<Vec<u8>> {
    let fail = |cause: String| {
        PluginError::Install(format!(
            "cannot download {url}: {cause}; check the URL and your connection"
        ))
    };
    subterminator_core::tls::ready();
    let client = reqwest::Client::builder()
        .timeout(DOWNLOAD_TIMEOUT)
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            // A redirect must not step down from https to plain http.
            let secure = attempt.url().scheme() == "https"
                || attempt.url().host_str().is_some_and(is_loopback);
            if secure && attempt.previous().len() < 5 {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }))
        .build()
        .map_err(|e| fail(e.to_string()))?;
    let mut response = client
        .get(url.clone())
        .send()
        .await
        .map_err(|e| fail(e.to_string()))?;
    if !response.status().is_success() {
        return Err(fail(format!("the server answered {}", response.status())).into());
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| fail(e.to_string()))? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > COMPONENT_SIZE_LIMIT_BYTES {
            return Err(fail(format!(
                "more than the {} MiB plugin limit",
                COMPONENT_SIZE_LIMIT_BYTES / (1024 * 1024)
            ))
            .into());
        }
    }
    Ok(bytes)
}

/// A download from a URL given on the command line, with its kind.
pub async fn from_url(url: &url::Url) -> Result<Candidate> {
    let bytes = download(url).await?;
    let kind = PluginKind::of(url.path(), &bytes);
    Ok(Candidate {
        bytes,
        kind,
        source: url.to_string(),
        fixtures: None,
    })
}

/// Looks `id` up in the index at `location` (a path or URL) and fetches the
/// newest version this host runs, refused unless its bytes hash to what the
/// index says.
pub async fn from_index(location: &str, id: &str, supported: &[&str]) -> Result<Candidate> {
    let text = match parse_url(location) {
        Some(url) => String::from_utf8(download(&url?).await?).map_err(|_| {
            PluginError::Install(format!("the plugin index at {location} is not UTF-8 text; check the index URL in the config's [plugins] index"))
        })?,
        None => std::fs::read_to_string(location)
            .map_err(|e| Error::io("cannot read the plugin index", Path::new(location), e))?,
    };
    let index = Index::parse(&text).map_err(|e| {
        PluginError::Install(format!(
            "the plugin index at {location}: {e}; fix the index or set another in the config's [plugins] index"
        ))
    })?;
    let entry = index
        .resolve(id, supported)
        .map_err(|e| PluginError::Install(format!("{e} (index: {location})")))?;
    let bytes = match parse_url(&entry.url) {
        Some(url) => download(&url?).await?,
        None => match parse_url(location) {
            Some(base) => {
                let url = base?.join(&entry.url).map_err(|e| {
                    PluginError::Install(format!(
                        "index entry url {:?}: {e}; fix the index at {location}",
                        entry.url
                    ))
                })?;
                download(&check_url(url.as_str())?).await?
            }
            None => {
                let base = Path::new(location).parent().unwrap_or(Path::new("."));
                let path = base.join(&entry.url);
                std::fs::read(&path).map_err(|e| Error::io("cannot read the plugin", &path, e))?
            }
        },
    };
    let found = sha256_hex(&bytes);
    if !found.eq_ignore_ascii_case(&entry.sha256) {
        return Err(PluginError::HashMismatch {
            what: format!(
                "the index entry for '{}' {} ({})",
                entry.id, entry.version, entry.url
            ),
            expected: entry.sha256.to_lowercase(),
            found,
        }
        .into());
    }
    let kind = PluginKind::of(&entry.url, &bytes);
    Ok(Candidate {
        bytes,
        kind,
        source: format!("index {location}: {} {}", entry.id, entry.version),
        fixtures: None,
    })
}

/// Builds the Rust plugin crate in `dir` for the plugin target and returns
/// its component. Cargo's own progress shows on a terminal.
pub fn build_rust(dir: &Path, quiet: bool) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    if !quiet && std::io::stderr().is_terminal() {
        anstream::eprintln!("Building {} for wasm32-wasip2…", dir.display());
    }
    let output = std::process::Command::new(&cargo)
        .current_dir(dir)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--message-format=json-render-diagnostics",
        ])
        .stdin(Stdio::null())
        .stderr(if quiet || !std::io::stderr().is_terminal() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .output()
        .map_err(|e| {
            Error::Configuration(format!(
                "cannot run {cargo} to build {}: {e}; install Rust from https://rustup.rs",
                dir.display()
            ))
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let hint = if stderr.contains("may not be installed")
            || stderr.contains("can't find crate for `std`")
        {
            "; run: rustup target add wasm32-wasip2"
        } else {
            ""
        };
        return Err(Error::Configuration(format!(
            "building {} failed{hint}\n{}",
            dir.display(),
            stderr.trim()
        )));
    }
    let manifest = dir.join("Cargo.toml");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let wasm = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "compiler-artifact")
        .filter(|v| {
            v["manifest_path"]
                .as_str()
                .is_some_and(|p| Path::new(p) == manifest)
        })
        .flat_map(|v| {
            v["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.as_str().map(PathBuf::from))
        })
        .find(|f| f.extension().is_some_and(|x| x == "wasm"));
    wasm.ok_or_else(|| {
        Error::Configuration(format!(
            "building {} made no .wasm; its Cargo.toml needs `[lib] crate-type = [\"cdylib\", \"rlib\"]`",
            dir.display()
        ))
    })
}
