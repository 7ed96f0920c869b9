//! `subterminator plugin …`: write, record, test, install and manage service
//! plugins, in Rust or as a declarative `service.toml`.

pub mod capture;
pub mod draft;
pub mod install;
pub mod manage;
pub mod new;
pub mod source;
pub mod test;

use clap::Subcommand;

use subterminator_core::error::Result;
use subterminator_core::paths::Dirs;

#[derive(Debug, Subcommand)]
pub enum PluginAction {
    /// Start a new plugin that builds and passes its own tests at once.
    ///
    /// Writes a Rust crate (the default) or, with --declarative, a service.toml with a
    /// comment on every key. Both describe the same example service, with four recorded
    /// pages in fixtures/ and what the plugin must say about each; change the places
    /// marked TODO for the real service, then run `subterminator plugin test .`.
    /// With --from-run, a service.toml drafted from a verified run instead: its path,
    /// its approved step, its confirmation, and its pages (masked) as fixtures.
    New(new::NewArgs),

    /// Walk a service's flow in the browser and save each page as a test fixture.
    ///
    /// A page is saved when its URL, its title or its set of named elements changes, as
    /// fixtures/NN-<page>.yaml (the accessibility tree, typed passwords masked) and
    /// fixtures/NN-<page>.toml (what the plugin must say about it: fill in its [expect]).
    /// Recording stops when you press Enter, press Ctrl+C or close the browser window.
    /// The browser uses a fresh profile that is thrown away afterwards: sign in inside it
    /// when the flow needs it; your own browser profile is never touched.
    Record(capture::CaptureArgs),

    /// Check a plugin against its fixtures, inside the real sandbox; exits 1 on any mismatch.
    Test(test::TestArgs),

    /// Install a plugin, after showing what it may do and asking for a yes.
    Install(install::InstallArgs),

    /// List every plugin, bundled and installed, with its SHA-256 and where it came from.
    #[command(
        after_help = "Examples:\n  subterminator plugin list\n  subterminator plugin list --json"
    )]
    List,

    /// Show one plugin: where it came from, its hash, and what it may do.
    Info(manage::InfoArgs),

    /// Remove an installed plugin.
    Remove(manage::RemoveArgs),
}

pub async fn run(action: PluginAction, dirs: &Dirs, json: bool) -> Result<u8> {
    match action {
        PluginAction::New(args) => new::run(args, dirs, json).await,
        PluginAction::Record(args) => capture::run(args, dirs, json).await,
        PluginAction::Test(args) => test::run(args, dirs, json).await,
        PluginAction::Install(args) => install::install(args, dirs, json).await,
        PluginAction::List => manage::list(dirs, json).await,
        PluginAction::Info(args) => manage::info(args, dirs, json).await,
        PluginAction::Remove(args) => manage::remove(args, dirs, json),
    }
}
