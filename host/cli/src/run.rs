//! One service cancelled on this terminal (`cancel <service>`, `demo`): the
//! run in the core, its feed shown and answered here, and the one JSON
//! object under `--json` once every line of the run has been shown.

use subterminator_core::agent::Driver;
use subterminator_core::agent::Reporter;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::feed::{self, Feed};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::ServiceEntry;
use subterminator_core::session::{Finished, Run, SessionSpec, interrupted};

use crate::console::Console;
use crate::terminal;

/// Runs `service` end to end on this terminal, and returns the process's
/// exit code.
pub async fn run(
    dirs: &Dirs,
    config: &Config,
    service: &ServiceEntry,
    spec: &SessionSpec,
    driver: Driver,
) -> Result<u8> {
    let (feed, updates) = feed::feed();
    let options = terminal::Options {
        human: !spec.json,
        verbose: spec.verbose,
        batch: false,
    };
    let showing = tokio::spawn(terminal::serve(updates, Console::stdin(), options));
    let finished = drive(dirs, config, service, spec, driver, feed).await;
    // Every sender is gone with the run: the terminal shows what is left,
    // then stops.
    if let Err(e) = showing.await {
        tracing::warn!("the terminal's reader ended abnormally: {e}");
    }
    let finished = finished?;
    if spec.json {
        let value = serde_json::json!({
            "service": service.metadata.id,
            "result": finished.result,
            "run_dir": finished.run_dir,
            "receipt": finished.receipt,
        });
        anstream::println!("{value}");
    }
    Ok(finished.result.exit_code)
}

/// The run itself, until it is finished or Ctrl+C stops it.
async fn drive(
    dirs: &Dirs,
    config: &Config,
    service: &ServiceEntry,
    spec: &SessionSpec,
    driver: Driver,
    feed: Feed,
) -> Result<Finished> {
    let mut run = Run::start(dirs, config, service, spec, |record| {
        Reporter::new(Some(record), feed)
    })
    .await?;
    // Whoever answers the approvals on stdin, a terminal or a program, can
    // be asked to sign in; where they cannot see the browser the session
    // says no (`Run::agent`). Input that ends says no to the pause too.
    let agent = run.agent(service, spec, driver, true);
    let outcome = tokio::select! {
        result = agent.run() => Some(result),
        () = interrupted() => None,
    };
    Ok(match outcome {
        Some(result) => run.finish(result).await,
        None => {
            run.reporter
                .notice("\n⚠️  Interrupt received, cleaning up...");
            run.interrupted(&Error::Interrupted).await
        }
    })
}
