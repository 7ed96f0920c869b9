//! `plugin new`: writes a plugin that builds and passes its own tests at
//! once, in Rust or as a declarative `service.toml`.

use std::path::{Path, PathBuf};

use clap::Args;

use super::draft;
use crate::scaffold::{self, Kind, Sdk};
use subterminator_core::error::Result;
use subterminator_core::paths::Dirs;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator plugin new acme-tv                              a Rust crate in ./acme-tv\n  \
    subterminator plugin new acme-tv --declarative                a service.toml: no toolchain needed\n  \
    subterminator plugin new acme-tv --dir plugins/acme-tv        in that folder\n  \
    subterminator plugin new acme-tv --sdk ../subterminator/sdk   against a local SDK checkout\n  \
    subterminator plugin new acme-tv --from-run last          from the last run, if verified\n  \
    subterminator plugin new acme-tv --from-run 20261128T1412 --descriptor 'ACME*TV*'\n  \
    subterminator plugin new acme-tv --from-run last --force  replace ./acme-tv\n\n\
    --from-run drafts a service.toml from a verified run only (exit 2 otherwise), masks\n\
    personal data in its fixtures, and writes nothing unless `plugin test` passes on it.")]
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
    #[arg(long, value_name = "PATH", conflicts_with_all = ["declarative", "from_run"])]
    pub sdk: Option<PathBuf>,

    /// Draft a `service.toml` from a verified run (its id, part of it,
    /// `last`, or its folder, as `runs show` takes them): the path it took,
    /// the step its person approved, the confirmation the host verified,
    /// and its pages as fixtures with personal data masked.
    #[arg(long, value_name = "RUN", conflicts_with = "declarative")]
    pub from_run: Option<String>,

    /// With --from-run: how the service's charges read on a bank statement
    /// (a glob such as 'ACME*TV*'), for `scan`; repeatable.
    #[arg(long, value_name = "GLOB", requires = "from_run")]
    pub descriptor: Vec<String>,

    /// With --from-run: replace the folder if it exists.
    #[arg(long, requires = "from_run")]
    pub force: bool,
}

pub async fn run(args: NewArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    scaffold::check_id(&args.id)?;
    if let Some(run) = &args.from_run {
        return from_run(&args, run, dirs, json).await;
    }
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

/// `--from-run`: the draft, checked, then what was written.
async fn from_run(args: &NewArgs, run: &str, dirs: &Dirs, json: bool) -> Result<u8> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(&args.id));
    let drafted = draft::run(
        draft::Request {
            id: &args.id,
            run,
            dir,
            descriptors: &args.descriptor,
            force: args.force,
        },
        dirs,
    )
    .await?;
    if json {
        anstream::println!("{}", serde_json::to_string(&drafted).unwrap_or_default());
        return Ok(0);
    }
    anstream::println!(
        "Drafted the declarative plugin {} in {} from run {}: {} plan steps, {} fixtures; `plugin test` passes ({} checks).",
        drafted.id,
        drafted.dir.display(),
        drafted.run,
        drafted.steps,
        drafted.fixtures,
        drafted.checks
    );
    for file in &drafted.files {
        anstream::println!("  {}", file.display());
    }
    if drafted.placeholders > 0 {
        anstream::println!(
            "\n{} fill step(s) say \"TODO: what to type here\": the run's own text is never copied; write what to type.",
            drafted.placeholders
        );
    }
    if !drafted.commit_request {
        anstream::println!(
            "\nThe record names no request the yes let through: add commit-requests if the site commits by one."
        );
    }
    anstream::println!(
        "\nRead every rule against the real site, then: subterminator plugin test {}",
        shell_word(&drafted.dir)
    );
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
