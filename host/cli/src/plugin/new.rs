//! `plugin new`: writes a plugin that builds and passes its own tests at
//! once, in Rust or as a declarative `service.toml`.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::scaffold::{self, Kind, Sdk};
use subterminator_core::error::Result;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator plugin new acme-tv                              a Rust crate in ./acme-tv\n  \
    subterminator plugin new acme-tv --declarative                a service.toml: no toolchain needed\n  \
    subterminator plugin new acme-tv --dir plugins/acme-tv        in that folder\n  \
    subterminator plugin new acme-tv --sdk ../subterminator/sdk   against a local SDK checkout")]
pub struct NewArgs {
    /// The new service's id: 1-64 characters of a-z, 0-9 and '-'.
    pub id: String,

    /// The folder to create; it must not exist or be empty. Default: ./<id>.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Write a `service.toml` (no toolchain needed) instead of a Rust crate.
    #[arg(long)]
    pub declarative: bool,

    /// The SDK folder of a subterminator source tree, for the Rust crate's
    /// dependency. Default: $SUBTERMINATOR_SDK_PATH, else the tree this
    /// binary was built from.
    #[arg(long, value_name = "PATH", conflicts_with = "declarative")]
    pub sdk: Option<PathBuf>,
}

pub fn run(args: NewArgs, json: bool) -> Result<u8> {
    scaffold::check_id(&args.id)?;
    let kind = if args.declarative {
        Kind::Declarative
    } else {
        Kind::Rust
    };
    let sdk = match kind {
        Kind::Rust => scaffold::resolve_sdk(
            args.sdk.as_deref(),
            std::env::var_os(scaffold::SDK_PATH_ENV).as_deref(),
            Path::new(scaffold::BUILT_FROM_SDK),
        )?,
        // A service.toml depends on nothing.
        Kind::Declarative => Sdk::Unpublished,
    };
    let dir = args.dir.unwrap_or_else(|| PathBuf::from(&args.id));
    let files = scaffold::render(kind, &args.id, &sdk);
    let written = scaffold::write(&dir, &files)?;
    if json {
        let value = serde_json::json!({
            "id": args.id,
            "kind": kind,
            "dir": dir,
            "files": written,
        });
        anstream::println!("{value}");
        return Ok(0);
    }
    let what = match kind {
        Kind::Rust => "Rust plugin",
        Kind::Declarative => "declarative plugin",
    };
    anstream::println!("Created the {what} {} in {}:", args.id, dir.display());
    for file in &written {
        anstream::println!("  {}", file.display());
    }
    if kind == Kind::Rust && sdk == Sdk::Unpublished {
        anstream::println!(
            "\nNo SDK folder was found, and the SDK is not on crates.io yet: the crate will not \
             build until the subterminator-sdk line of {} names one, as \
             {{ path = \"/path/to/subterminator/sdk/rust\" }}. Next time pass --sdk or set {}.",
            dir.join("Cargo.toml").display(),
            scaffold::SDK_PATH_ENV
        );
    }
    let next = match kind {
        Kind::Rust => format!(
            "cd {} && cargo test && subterminator plugin test .",
            shell_word(&dir)
        ),
        Kind::Declarative => format!("subterminator plugin test {}", shell_word(&dir)),
    };
    anstream::println!("\nNext: {next}");
    Ok(0)
}

/// A path as one shell word, quoted only when it needs to be.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+@:,".contains(c));
    if plain {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
