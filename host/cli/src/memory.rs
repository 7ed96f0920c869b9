//! `subterminator memory show|forget <service>`: the paths remembered from
//! verified cancellations, which later runs take as hints and `--replay`
//! follows.

use clap::Subcommand;

use subterminator_core::error::{Error, Result};
use subterminator_core::memory::Memory;
use subterminator_core::paths::Dirs;

#[derive(Debug, Subcommand)]
pub enum MemoryAction {
    /// Show the path remembered for a service, per plugin version and site.
    #[command(after_help = "Examples:\n  \
        subterminator memory show netflix           the steps that worked last time\n  \
        subterminator memory show netflix --json    the same as one JSON object")]
    Show {
        /// The service's id, e.g. netflix.
        service: String,
    },
    /// Forget every path remembered for a service.
    #[command(after_help = "Examples:\n  \
        subterminator memory forget netflix    the next run starts without hints")]
    Forget {
        /// The service's id, e.g. netflix.
        service: String,
    },
}

/// Ids are what plugins may be called: a-z, 0-9 and `-`.
fn checked(service: &str) -> Result<&str> {
    let ok = !service.is_empty()
        && service
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(service)
    } else {
        Err(Error::Configuration(format!(
            "{service:?} is not a service id; ids are a-z, 0-9 and '-' (see `subterminator services`)"
        )))
    }
}

pub fn run(action: MemoryAction, dirs: &Dirs, json: bool) -> Result<u8> {
    let memory = Memory::new(dirs.memory());
    match action {
        MemoryAction::Show { service } => {
            let found = memory.of_service(checked(&service)?);
            if json {
                let paths: Vec<_> = found.iter().map(|(_, p)| p).collect();
                anstream::println!(
                    "{}",
                    serde_json::json!({ "service": service, "paths": paths })
                );
                return Ok(0);
            }
            if found.is_empty() {
                anstream::println!(
                    "Nothing is remembered for {service}: a verified cancellation remembers its path."
                );
            }
            for (file, path) in &found {
                anstream::println!(
                    "{} (plugin {}) on {}, worked {}:",
                    path.service,
                    path.plugin_version,
                    path.site,
                    path.saved_at
                );
                for (i, step) in path.steps.iter().enumerate() {
                    anstream::println!(
                        "  {}. {}",
                        i + 1,
                        subterminator_core::text::sanitize(&step.describe())
                    );
                }
                anstream::println!("  ({})", file.display());
            }
            Ok(0)
        }
        MemoryAction::Forget { service } => {
            let gone = memory.forget(checked(&service)?)?;
            if json {
                anstream::println!(
                    "{}",
                    serde_json::json!({ "service": service, "forgotten": gone })
                );
            } else if gone == 0 {
                anstream::println!("Nothing was remembered for {service}.");
            } else {
                anstream::println!("Forgot {gone} remembered path(s) for {service}.");
            }
            Ok(0)
        }
    }
}
