//! `subterminator login <service>`: sign in once, by hand, in that
//! service's own browser profile, so that later runs find the session.

use std::path::PathBuf;

use clap::Args;

use crate::console::Console;
use subterminator_core::browser::{Browser, BrowserOptions, UserData};
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::session;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator login netflix                              sign in to Netflix in a browser window\n  \
    subterminator login crunchyroll.com                      any site; `cancel crunchyroll.com` then\n  \
    subterminator login netflix --browser /usr/bin/chromium  in this browser; give `cancel` the same")]
pub struct LoginArgs {
    /// The service to sign in to: a plugin's id (netflix) or any site's
    /// address (crunchyroll.com), whose profile `cancel` then uses.
    pub service: String,

    /// The Chrome or Chromium executable to drive.
    #[arg(long, value_name = "PATH")]
    pub browser: Option<PathBuf>,
}

pub async fn run(args: LoginArgs, dirs: &Dirs) -> Result<u8> {
    let config = Config::load(&dirs.config_file())?;
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    let service = crate::cancel::service_named(&registry, &args.service, None, true).await?;
    if !session::has_display() {
        return Err(Error::Configuration(
            "`login` opens a browser window for you to sign in, and there is no display here. Run it on a desktop.".into(),
        ));
    }
    let output = dirs.runs().join("login");
    let id = &service.metadata.id;
    if subterminator_core::profiles::adopt_shared(dirs, id)? {
        anstream::println!(
            "{}",
            subterminator_core::profiles::adopted_notice(dirs, &service.metadata.display_name, id)
        );
    }
    let profile = dirs.signed_in_profile(id);
    let mut options = BrowserOptions::new(UserData::Persistent(profile), output);
    options.executable_path = args.browser.or_else(|| config.browser.executable.clone());
    options.command = config.browser.command.clone();
    let browser = Browser::start(options).await?;
    let opened = browser.navigate(&service.metadata.initial_url).await;
    if let Err(e) = opened {
        let _ = browser.shutdown().await;
        return Err(e.into());
    }
    anstream::println!(
        "Sign in to {} in the browser window, then press Enter here to save the session.",
        service.metadata.display_name
    );
    let mut console = Console::stdin();
    tokio::select! {
        _ = console.read_line() => {}
        () = session::interrupted() => {}
    }
    // Closing through the server keeps the profile's session data.
    browser.shutdown().await?;
    // A site with no plugin is cancelled by its address, as it was named.
    let next = match &service.generic {
        Some(_) => args.service.trim(),
        None => service.metadata.id.as_str(),
    };
    anstream::println!("Saved. Run `subterminator cancel {next}` next.");
    Ok(0)
}
