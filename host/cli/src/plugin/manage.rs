//! `plugin list`, `plugin info` and `plugin remove`: what is loaded, where
//! it came from, and taking an installed plugin away.

use anstream::println;
use clap::Args;

use crate::table::print_table;
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::{Manifest, PluginError, PluginSource, ServiceEntry};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator plugin remove acme    remove an installed plugin (a bundled one comes back)")]
pub struct RemoveArgs {
    /// The installed plugin's id.
    pub id: String,
}

pub fn remove(args: RemoveArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    let dir = dirs.installed_plugins();
    let mut manifest = Manifest::load(&dir)?;
    let Some(entry) = manifest.take(&args.id) else {
        let bundled = subterminator_core::plugin::BUNDLED
            .iter()
            .any(|b| b.package.ends_with(&format!("-{}", args.id)));
        return Err(PluginError::Install(if bundled {
            format!("'{}' is bundled with subterminator and cannot be removed; install another with `plugin install … --replace` to take its place", args.id)
        } else {
            format!(
                "no installed plugin '{}'; `subterminator plugin list` shows what is installed",
                args.id
            )
        })
        .into());
    };
    let path = entry.path(&dir)?;
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io("cannot remove the plugin", &path, e)),
    }
    manifest.save(&dir)?;
    if json {
        println!("{}", serde_json::json!({ "removed": entry }));
    } else {
        println!("Removed {} {}.", entry.id, entry.version);
    }
    Ok(0)
}

pub async fn list(dirs: &Dirs, json: bool) -> Result<u8> {
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    if json {
        let plugins: Vec<_> = registry
            .services()
            .iter()
            .map(ServiceEntry::provenance)
            .collect();
        let broken = crate::broken_json(&registry);
        println!(
            "{}",
            serde_json::json!({ "plugins": plugins, "broken": broken })
        );
        return Ok(0);
    }
    let rows: Vec<[String; 6]> = registry
        .services()
        .iter()
        .map(|s| {
            [
                s.metadata.id.clone(),
                s.metadata.version.clone(),
                s.kind.to_string(),
                s.api_version.to_owned(),
                s.sha256.chars().take(12).collect(),
                s.source.to_string(),
            ]
        })
        .collect();
    print_table(&["ID", "VERSION", "KIND", "API", "SHA256", "SOURCE"], &rows);
    crate::print_broken(&registry);
    Ok(0)
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator plugin info netflix          where it came from, its hash, and what it may do\n  \
    subterminator plugin info acme --json      the same as one JSON object")]
pub struct InfoArgs {
    /// The plugin's id.
    pub id: String,
}

pub async fn info(args: InfoArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    let entry = registry.get(&args.id)?;
    let m = &entry.metadata;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "plugin": entry.provenance(),
                "metadata": m,
                "plan": entry.plan,
            })
        );
        return Ok(0);
    }
    println!("{} ({}) {}", m.display_name, m.id, m.version);
    println!("  kind:            {}", entry.kind);
    println!("  plugin API:      {}", entry.api_version);
    println!("  sha256:          {}", entry.sha256);
    match &entry.source {
        PluginSource::Bundled => println!("  source:          bundled with subterminator"),
        PluginSource::Installed {
            path,
            from,
            installed_at,
        } => {
            println!("  file:            {}", path.display());
            println!("  installed from:  {from}");
            println!("  installed at:    {installed_at}");
        }
        PluginSource::Generic { address } => {
            println!("  source:          no plugin, the built-in generic service for {address}");
        }
    }
    println!("  starts at:       {}", m.initial_url);
    println!("  may visit:       {}", m.allowed_origins.join(", "));
    for step in entry.plan.iter().filter(|s| s.irreversible) {
        println!("  asks before:     {}", step.description);
    }
    Ok(0)
}
