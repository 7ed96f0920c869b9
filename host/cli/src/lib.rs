//! The `subterminator` command: argument parsing, every command, and the
//! terminal's side of a run (`terminal`: the printer that shows a run's
//! events and the answerer that reads the person's replies from `console`).
//! Everything a run does is in `subterminator-core`; the MCP server is
//! `subterminator-mcp`.

mod batch;
pub mod bench;
pub mod cancel;
mod console;
pub mod demo;
pub mod doctor;
pub mod key;
pub mod login;
pub mod manpage;
pub mod mcp;
pub mod memory;
mod open;
pub mod plugin;
pub mod run;
pub mod runs;
pub mod scaffold;
pub mod scan;
mod services;
mod table;
mod terminal;

#[cfg(test)]
mod tests;

use clap::{Parser, Subcommand};

use subterminator_core::error::Result;
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::{Registry, load_registry};

#[derive(Debug, Parser)]
#[command(
    name = "subterminator",
    version,
    about = "Cancel subscriptions by letting an AI model drive your own browser, with your \"yes\" before every irreversible step.",
    after_help = "Examples:\n  \
        subterminator demo                 see it work on a bundled practice site\n  \
        subterminator doctor               check that this machine has what a run needs\n  \
        subterminator services             list the services it can cancel\n  \
        subterminator login netflix        sign in once; later runs reuse the session\n  \
        subterminator cancel netflix       cancel your Netflix membership"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Print one machine-readable JSON object instead of human output.
    #[arg(long, global = true)]
    pub json: bool,

    /// Show more: tool arguments, snapshots, debug logs (-vv).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Cancel a subscription: the model drives your browser, you approve the irreversible steps.
    Cancel(cancel::CancelArgs),

    /// Find what you pay for: the subscriptions in your bank statements, read on this machine.
    Scan(scan::ScanArgs),

    /// See the whole thing work on a bundled practice site (no account, no key needed).
    Demo(demo::DemoArgs),

    /// Open the browser on a service so you can sign in once; the session is kept.
    Login(login::LoginArgs),

    /// Serve the canceller over MCP (stdio or HTTP), for Claude Desktop, Claude Code, Cursor.
    Mcp(mcp::McpArgs),

    /// Run CancelBench: cancellation flows built from the tricks regulators name, scored from the site's log.
    Bench(bench::BenchArgs),

    /// Check Node.js, Playwright MCP, the browser, the profile, the plugins and the keys.
    #[command(after_help = "Examples:\n  \
        subterminator doctor           one line per check, with the fix for each that fails\n  \
        subterminator doctor --json    the same checks as one JSON object\n  \
        subterminator doctor --cdp-endpoint http://127.0.0.1:9222   also attach to that browser")]
    Doctor {
        /// Also check this running browser can be attached to (the config's
        /// `[browser] cdp-endpoint` is checked without it).
        #[arg(long, value_name = "URL")]
        cdp_endpoint: Option<String>,
    },

    /// Print this machine's signing key (made on first use), or rotate it.
    Key(key::KeyArgs),

    /// Print shell completions.
    #[command(after_help = "Examples:\n  \
        subterminator completions bash > ~/.local/share/bash-completion/completions/subterminator\n  \
        subterminator completions zsh > ~/.zfunc/_subterminator\n  \
        subterminator completions fish > ~/.config/fish/completions/subterminator.fish")]
    Completions { shell: clap_complete::Shell },

    /// Write the man pages into a folder (for packagers: see host/cli/packaging/).
    #[command(hide = true)]
    Manpage { dir: std::path::PathBuf },

    /// List the services subterminator can cancel.
    #[command(after_help = "Examples:\n  \
        subterminator services                 each service's id, version, hash, source and plugin API\n  \
        subterminator services show netflix    one service's plan and where it may go\n  \
        subterminator services --json          the list as one JSON object")]
    Services {
        #[command(subcommand)]
        action: Option<ServicesAction>,
    },

    /// Show or forget the paths remembered from verified cancellations.
    #[command(after_help = "Examples:\n  \
        subterminator memory show netflix      the path that worked last time\n  \
        subterminator memory forget netflix    start from scratch next time")]
    Memory {
        #[command(subcommand)]
        action: memory::MemoryAction,
    },

    /// List past runs; show, verify, open the receipt of, or prune one.
    #[command(after_help = "Examples:\n  \
        subterminator runs                       past runs, newest first, with cost\n  \
        subterminator runs --json                the same as one JSON object\n  \
        subterminator runs show last             the newest run's summary\n  \
        subterminator runs verify last           check its record and signature\n  \
        subterminator runs verify receipt.html --key ed25519:…   a receipt someone sent\n  \
        subterminator runs dispute last --to bank   the letter for a charge after it\n  \
        subterminator runs open last             its receipt\n  \
        subterminator runs prune --older-than 90 delete old runs, keeping proofs")]
    Runs {
        #[command(subcommand)]
        action: Option<runs::RunsAction>,
    },

    /// Write, record, test, install and manage service plugins.
    #[command(after_help = "Examples:\n  \
        subterminator plugin new acme --declarative       a service.toml to fill in, in ./acme\n  \
        subterminator plugin record acme --start-url https://acme.tv/account  save its pages\n  \
        subterminator plugin test ./acme                  check the plugin against them\n  \
        subterminator plugin install ./acme/service.toml  install it, after your yes\n  \
        subterminator plugin list                         every plugin, with its SHA-256")]
    Plugin {
        #[command(subcommand)]
        action: plugin::PluginAction,
    },
}

#[derive(Debug, Subcommand)]
pub enum ServicesAction {
    /// Show one service's metadata and plan.
    #[command(after_help = "Examples:\n  \
        subterminator services show netflix           its plan, allowed origins and sign-in pages\n  \
        subterminator services show netflix --json    the same as one JSON object")]
    Show {
        /// The service's id, e.g. netflix.
        id: String,
    },
}

/// The whole program: parse, run, and turn the library's typed errors into a
/// message and an exit code.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            anstream::eprintln!("error: cannot start the async runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let code = match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            anstream::eprintln!("error: {e}");
            e.class().exit_code()
        }
    };
    // The stdin reader thread may still be blocked in read(); don't wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    std::process::ExitCode::from(code)
}

/// Logs go to stderr; `RUST_LOG` overrides the level `-v` picks.
fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info,subterminator=debug",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_logs(
            std::io::IsTerminal::is_terminal(&std::io::stderr()),
            std::env::var_os("NO_COLOR").as_deref(),
        ))
        .with_target(false)
        .init();
}

/// Logs are coloured only on a terminal, and never when `NO_COLOR` is set
/// to anything but the empty string (no-color.org): `… 2>log` must leave no
/// escape codes in the file.
fn colour_logs(stderr_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stderr_is_terminal && no_color.is_none_or(std::ffi::OsStr::is_empty)
}

/// Runs the parsed command; the exit code comes from the error's class.
pub async fn run(cli: Cli) -> Result<u8> {
    let dirs = Dirs::from_env()?;
    let (json, verbose) = (cli.json, cli.verbose > 0);
    match cli.command {
        Command::Cancel(args) => cancel::run(args, &dirs, json, verbose).await,
        Command::Scan(args) => scan::run(args, &dirs, json, verbose).await,
        Command::Demo(args) => demo::run(args, &dirs, json, verbose).await,
        Command::Login(args) => login::run(args, &dirs).await,
        Command::Mcp(args) => mcp::run(args, &dirs).await,
        Command::Bench(args) => bench::run(args, &dirs, json).await,
        Command::Doctor { cdp_endpoint } => doctor::run(&dirs, cdp_endpoint, json).await,
        Command::Key(args) => key::run(args, &dirs, json),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "subterminator",
                &mut std::io::stdout(),
            );
            Ok(0)
        }
        Command::Manpage { dir } => {
            for page in manpage::write(&dir)? {
                anstream::println!("{}", page.display());
            }
            Ok(0)
        }
        Command::Plugin { action } => plugin::run(action, &dirs, json).await,
        Command::Runs { action } => runs::run(action, &dirs, json).await,
        Command::Memory { action } => memory::run(action, &dirs, json),
        Command::Services { action } => {
            let registry = load_registry(&dirs).await?;
            match action {
                None => services::list(&registry, json),
                Some(ServicesAction::Show { id }) => services::show(&registry, &id, json),
            }
        }
    }
}

/// What failed to load, for `--json` listings.
pub fn broken_json(registry: &Registry) -> Vec<serde_json::Value> {
    registry
        .broken()
        .iter()
        .map(|(name, e)| serde_json::json!({ "plugin": name, "error": e.to_string() }))
        .collect()
}

/// What failed to load, on stderr, after a human listing.
pub fn print_broken(registry: &Registry) {
    for (name, e) in registry.broken() {
        anstream::eprintln!("not loaded: {name}: {e}");
    }
}

#[cfg(test)]
mod colour_tests {
    use super::colour_logs;
    use std::ffi::OsStr;

    #[test]
    fn logs_are_coloured_only_on_a_terminal_without_no_color() {
        let cases: [(bool, Option<&OsStr>, bool); 5] = [
            (true, None, true),
            (false, None, false),
            (true, Some(OsStr::new("1")), false),
            (false, Some(OsStr::new("1")), false),
            (true, Some(OsStr::new("")), true),
        ];
        for (terminal, no_color, want) in cases {
            assert_eq!(
                colour_logs(terminal, no_color),
                want,
                "{terminal} {no_color:?}"
            );
        }
    }
}
