//! `plugin install`, `plugin list`, `plugin info` and `plugin remove`: the
//! installed plugins and their manifest.

use std::io::IsTerminal;
use std::path::Path;

use anstream::println;
use clap::Args;

use super::source::{self, Candidate};
use crate::console::Console;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::{
    InstalledPlugin, Manifest, Plugin, PluginError, PluginKind, PluginSource, Registry,
    ServiceEntry, is_sha256_hex, load_declarative, sha256_hex,
};
use subterminator_core::text::sanitize;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator plugin install ./acme                      a folder; a Rust crate is built first\n  \
    subterminator plugin install ./acme/service.toml         a declarative service\n  \
    subterminator plugin install acme.wasm --sha256 9f86d0…  pin the bytes you expect\n  \
    subterminator plugin install https://example.org/acme.wasm --sha256 9f86d0…  a download\n  \
    subterminator plugin install acme                        look the id up in the configured index\n  \
    subterminator plugin install ./netflix --replace --yes   take a bundled plugin's place, unasked\n  \
    subterminator plugin install ./acme --yes --json         unasked; one JSON object out")]
pub struct InstallArgs {
    /// A .wasm, a service.toml, a plugin folder, an https URL, or an id from the index set in the config's `[plugins] index`.
    pub what: String,

    /// The SHA-256 the plugin's bytes must have (hex); required for a URL.
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,

    /// Install in place of a bundled or already installed plugin with the same id.
    #[arg(long)]
    pub replace: bool,

    /// Install without asking, after showing what the plugin may do.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub async fn install(args: InstallArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    if let Some(hex) = &args.sha256
        && !is_sha256_hex(hex)
    {
        return Err(PluginError::Install(format!(
            "--sha256 {hex:?} is not a SHA-256: give its 64 hex digits (`sha256sum FILE` prints them)"
        ))
        .into());
    }
    let candidate = resolve(&args, dirs, json).await?;
    if let Some(expected) = &args.sha256 {
        let found = sha256_hex(&candidate.bytes);
        if !found.eq_ignore_ascii_case(expected) {
            return Err(PluginError::HashMismatch {
                what: candidate.source.clone(),
                expected: expected.to_lowercase(),
                found,
            }
            .into());
        }
    }
    let (plugin, registry) = load_with_registry(dirs, &candidate).await?;
    let metadata = plugin.metadata().clone();
    if let Ok(existing) = registry.get(&metadata.id)
        && existing.metadata.id == metadata.id
        && !args.replace
    {
        return Err(PluginError::Install(clash_message(existing)).into());
    }
    let sha256 = sha256_hex(&candidate.bytes);
    if !json || !args.yes {
        print_permissions(&plugin, &candidate, &sha256, json);
    }
    if !args.yes && !confirm(&metadata.id).await? {
        println!("Not installed.");
        return Ok(subterminator_core::exit::ErrorClass::Failure.exit_code());
    }
    let dir = dirs.installed_plugins();
    let file = format!("{}.{}", metadata.id, candidate.kind.extension());
    let entry = InstalledPlugin {
        id: metadata.id.clone(),
        version: metadata.version.clone(),
        api_version: plugin.api_version().to_owned(),
        kind: candidate.kind,
        file: file.clone(),
        sha256: sha256.clone(),
        source: candidate.source.clone(),
        installed_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let mut manifest = Manifest::load(&dir)?;
    if let Some(old) = manifest.get(&metadata.id)
        && old.file != file
        && let Ok(path) = old.path(&dir)
    {
        let _ = std::fs::remove_file(path);
    }
    subterminator_core::plugin::write_atomic(&dir.join(&file), &candidate.bytes)?;
    manifest.put(entry.clone());
    manifest.save(&dir)?;
    if json {
        println!("{}", serde_json::json!({ "installed": entry }));
    } else {
        println!(
            "Installed {} {} ({}), sha256 {}.\nRun `subterminator cancel {}` to use it.",
            metadata.id, metadata.version, candidate.kind, sha256, metadata.id
        );
    }
    Ok(0)
}

async fn resolve(args: &InstallArgs, dirs: &Dirs, json: bool) -> Result<Candidate> {
    if let Some(url) = source::parse_url(&args.what) {
        let url = url?;
        if args.sha256.is_none() {
            return Err(PluginError::Install(format!(
                "installing from a URL needs --sha256 HEX, the hash its publisher gives, so the bytes you run are the ones you meant: subterminator plugin install {url} --sha256 <hex>"
            ))
            .into());
        }
        return source::from_url(&url).await;
    }
    let path = Path::new(&args.what);
    if path.exists() {
        let path = path.to_path_buf();
        return tokio::task::spawn_blocking(move || source::local(&path, json))
            .await
            .map_err(|e| Error::Configuration(format!("building the plugin failed: {e}; this is a bug in subterminator: please report it")))?;
    }
    let looks_like_id = !args.what.is_empty()
        && args
            .what
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !looks_like_id {
        return Err(PluginError::Install(format!(
            "{:?} is not a file, a folder, an https URL or a plugin id; check the path",
            args.what
        ))
        .into());
    }
    let config = Config::load(&dirs.config_file())?;
    let Some(index) = config.plugins.index else {
        return Err(PluginError::Install(format!(
            "no file or folder {:?} here, and no plugin index is set to look the id up in; give a path, or set one in {}:\n  [plugins]\n  index = \"https://…/index.toml\"",
            args.what,
            dirs.config_file().display()
        ))
        .into());
    };
    source::from_index(
        &index,
        &args.what,
        subterminator_core::plugin::SUPPORTED_API_VERSIONS,
    )
    .await
}

/// Loads the candidate in the sandbox (which checks its API version,
/// metadata bounds and plan) beside the registry it would join.
async fn load_with_registry(dirs: &Dirs, candidate: &Candidate) -> Result<(Plugin, Registry)> {
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    let candidate = candidate.clone();
    let dirs = dirs.clone();
    let plugin = tokio::task::spawn_blocking(move || load_candidate(&dirs, &candidate))
        .await
        .map_err(|e| {
            Error::Configuration(format!(
                "loading the plugin failed: {e}; this is a bug in subterminator: please report it"
            ))
        })??;
    Ok((plugin, registry))
}

/// The candidate, loaded in the real sandbox, on the same cached engine as
/// every other command.
pub fn load_candidate(dirs: &Dirs, candidate: &Candidate) -> Result<Plugin> {
    let engine = subterminator_core::plugin::engine(dirs)?;
    let name = candidate.source.clone();
    Ok(match candidate.kind {
        PluginKind::Component => Plugin::load(&engine, &name, &candidate.bytes)?,
        PluginKind::Declarative => {
            let text =
                std::str::from_utf8(&candidate.bytes).map_err(|_| PluginError::ServiceFile {
                    source_name: name.clone(),
                    cause: "not UTF-8 text".into(),
                })?;
            load_declarative(&engine, &name, text)?
        }
    })
}

fn clash_message(existing: &ServiceEntry) -> String {
    let id = &existing.metadata.id;
    match &existing.source {
        PluginSource::Bundled => format!(
            "'{id}' is the id of a bundled plugin; pass --replace to install this one in its place"
        ),
        PluginSource::Installed { from, .. } => format!(
            "'{id}' is already installed ({} from {from}); pass --replace to replace it, or `subterminator plugin remove {id}` first",
            existing.metadata.version
        ),
        // The registry never lists the generic service: it is made per run.
        PluginSource::Generic { .. } => format!("'{id}' is taken; pass --replace to replace it"),
    }
}

/// What the plugin may do, shown before the yes, like a browser extension's
/// permissions. Everything it says is cleaned before it reaches the terminal.
fn print_permissions(plugin: &Plugin, candidate: &Candidate, sha256: &str, json: bool) {
    let m = plugin.metadata();
    let out = |line: String| {
        if json {
            anstream::eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    out(format!(
        "{} ({}) {}, {} plugin, API {}",
        sanitize(&m.display_name),
        m.id,
        sanitize(&m.version),
        candidate.kind,
        plugin.api_version()
    ));
    out(format!(
        "  from:            {}",
        sanitize(&candidate.source)
    ));
    out(format!("  sha256:          {sha256}"));
    out(format!("  starts at:       {}", sanitize(&m.initial_url)));
    out(format!(
        "  may visit:       {}",
        m.allowed_origins
            .iter()
            .map(|o| sanitize(o))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let irreversible: Vec<String> = plugin
        .plan()
        .iter()
        .filter(|s| s.irreversible)
        .map(|s| {
            let targets: Vec<String> = s
                .targets
                .iter()
                .map(|t| {
                    format!(
                        "{} {}",
                        t.role.as_deref().unwrap_or("element"),
                        t.name_patterns
                            .iter()
                            .map(|p| format!("{:?}", sanitize(p)))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    )
                })
                .collect();
            format!("{} ({})", sanitize(&s.description), targets.join("; "))
        })
        .collect();
    out(format!(
        "  asks you before: {}",
        if irreversible.is_empty() {
            "nothing it marks itself (the host's own checks still ask)".to_owned()
        } else {
            irreversible.join("; ")
        }
    ));
    if !m.commit_requests.is_empty() || !m.commit_url_patterns.is_empty() {
        let mut stops: Vec<String> = m
            .commit_requests
            .iter()
            .map(|r| format!("{} {}", sanitize(&r.method), sanitize(&r.url_pattern)))
            .collect();
        stops.extend(
            m.commit_url_patterns
                .iter()
                .map(|p| format!("GET {}", sanitize(p))),
        );
        out(format!("  held for a yes:  {}", stops.join(", ")));
    }
    // The one place a plugin spares a question the network guard would
    // put: each entry shown, with the step it belongs to.
    let mut harmless = m.harmless.iter().map(|h| {
        format!(
            "{}, while {} runs",
            crate::services::request(h),
            crate::services::request_step(h, plugin.plan())
        )
    });
    match harmless.next() {
        None => out(
            "  passes unasked:  nothing (every request that changes something waits for your yes)"
                .to_owned(),
        ),
        Some(first) => {
            out(format!("  passes unasked:  {first}"));
            for more in harmless {
                out(format!("                   {more}"));
            }
        }
    }
    out(format!(
        "  on statements:   {}",
        crate::services::descriptors(&m.billing_descriptors)
    ));
}

async fn confirm(id: &str) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Err(PluginError::Install(format!(
            "installing '{id}' needs your yes, and there is no terminal to ask on; read what it may do above and pass --yes"
        ))
        .into());
    }
    anstream::print!("Install it? [y/N] ");
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let answer = Console::stdin().read_line().await.unwrap_or_default();
    Ok(matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"))
}
