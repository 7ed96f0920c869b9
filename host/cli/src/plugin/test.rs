//! `plugin test`: runs a plugin's fixture expectations against the component
//! users will install, inside the real sandbox, and checks its metadata.

use std::path::PathBuf;

use anstream::println;
use clap::Args;

use super::install::load_candidate;
use super::source;
use crate::table::print_table;
use subterminator_core::error::{Error, Result};
use subterminator_core::fixture::{self, CheckRow};
use subterminator_core::paths::Dirs;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator plugin test .                    the plugin here; a Rust crate is built first\n  \
    subterminator plugin test ./acme/service.toml  a declarative service and the fixtures/ beside it\n  \
    subterminator plugin test acme.wasm --json     a built component; one JSON object out")]
pub struct TestArgs {
    /// A plugin folder, a .wasm or a service.toml; its fixtures are in `fixtures/` beside it.
    #[arg(default_value = ".")]
    pub path: PathBuf,
}

pub async fn run(args: TestArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    let path = args.path.clone();
    let dirs = dirs.clone();
    let (rows, fixtures_dir) = tokio::task::spawn_blocking(move || check(&dirs, &path, json))
        .await
        .map_err(|e| {
            Error::Configuration(format!(
                "testing the plugin failed: {e}; this is a bug in subterminator: please report it"
            ))
        })??;
    let failed = rows.iter().filter(|r| !r.pass).count();
    if json {
        println!(
            "{}",
            serde_json::json!({ "checks": rows, "failed": failed, "fixtures": fixtures_dir })
        );
    } else {
        let table: Vec<[String; 5]> = rows
            .iter()
            .map(|r| {
                [
                    r.fixture.clone(),
                    r.check.clone(),
                    r.expected.clone(),
                    r.got.clone(),
                    if r.pass { "ok" } else { "FAIL" }.to_owned(),
                ]
            })
            .collect();
        print_table(&["FIXTURE", "CHECK", "EXPECTED", "GOT", ""], &table);
        println!(
            "{} checks, {} failed ({} fixtures from {})",
            rows.len(),
            failed,
            rows.iter()
                .map(|r| r.fixture.as_str())
                .filter(|f| *f != METADATA)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            fixtures_dir.display()
        );
    }
    Ok(if failed == 0 {
        0
    } else {
        subterminator_core::exit::ErrorClass::Failure.exit_code()
    })
}

/// The row name of the metadata checks.
const METADATA: &str = "(metadata)";

/// Every check of `plugin test` on the plugin at `path`: its rows and the
/// fixtures folder. `plugin new --from-run` runs it on a draft before
/// writing it.
pub(crate) fn check(
    dirs: &Dirs,
    path: &std::path::Path,
    quiet: bool,
) -> Result<(Vec<CheckRow>, PathBuf)> {
    let candidate = source::local(path, quiet)?;
    let fixtures_dir = candidate
        .fixtures
        .clone()
        .unwrap_or_else(|| PathBuf::from("fixtures"));
    let meta_row = |check: &str, result: std::result::Result<(), String>| CheckRow {
        fixture: METADATA.into(),
        check: check.into(),
        expected: "ok".into(),
        pass: result.is_ok(),
        got: result.err().unwrap_or_else(|| "ok".into()),
    };
    // Loading checks the API version, the id, the origins and every other
    // bound, and that the plan marks its irreversible step: a plugin that
    // fails any of them is one users could not install.
    let mut plugin = match load_candidate(dirs, &candidate) {
        Ok(plugin) => plugin,
        Err(e) => {
            return Ok((
                vec![meta_row("loads in the sandbox", Err(e.to_string()))],
                fixtures_dir,
            ));
        }
    };
    let mut rows = vec![
        meta_row("loads in the sandbox", Ok(())),
        // Loading enforced these already; checked again here so the row
        // reports what the plugin says rather than assuming it.
        meta_row(
            "id, origins (https) and text within bounds",
            subterminator_core::plugin::bounds::check_metadata(plugin.metadata())
                .and_then(|()| subterminator_core::plugin::bounds::check_plan(plugin.plan())),
        ),
        meta_row(
            "plan marks an irreversible step",
            if subterminator_core::plugin::has_irreversible_step(plugin.plan()) {
                Ok(())
            } else {
                Err(format!(
                    "none marked (API {} runs it plan-less)",
                    plugin.api_version()
                ))
            },
        ),
    ];
    let fixtures = fixture::load_dir(&fixtures_dir).map_err(Error::Configuration)?;
    if fixtures.is_empty() {
        rows.push(meta_row(
            "has fixtures",
            Err(format!(
                "none in {}; collect some with `subterminator plugin record`",
                fixtures_dir.display()
            )),
        ));
    }
    rows.extend(fixture::check(&mut plugin, &fixtures));
    Ok((rows, fixtures_dir))
}
