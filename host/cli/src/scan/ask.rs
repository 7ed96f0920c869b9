//! `scan --cancel`: one question for the whole list, then the same batch
//! `subterminator cancel a b c` runs, built by `cancel`'s own functions so
//! that its runs are exactly the ones `cancel` would start (each still asks
//! before the step that commits).

use std::io::{IsTerminal, Write};

use subterminator_core::batch::Job;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::Registry;
use subterminator_core::session::SessionSpec;
use subterminator_scan::{Action, Report};

use super::ScanArgs;
use crate::cancel;

/// What `--cancel` will need, checked before any statement is read: a bad
/// `--jobs` or config is said at once, not after the table.
pub(super) struct Plan {
    config: Config,
    spec: SessionSpec,
    parallel: usize,
    /// `--start-url SERVICE=URL`, checked for its shape; which services
    /// they are for is known only once the statements are read.
    start_urls: Vec<(String, String)>,
    yes: bool,
    json: bool,
    verbose: bool,
}

impl Plan {
    pub(super) fn new(args: &ScanArgs, dirs: &Dirs, json: bool, verbose: bool) -> Result<Plan> {
        let config = Config::load(&dirs.config_file())?;
        let spec = cancel::session_spec(&args.run, args.isolated, &config, json, verbose)?;
        Ok(Plan {
            parallel: cancel::parallel(args.jobs)?,
            start_urls: start_url_pairs(&args.start_url)?,
            config,
            spec,
            yes: args.yes,
            json,
            verbose,
        })
    }

    /// Asks once, then runs the batch; its exit code is the command's. With
    /// nothing to cancel here, or a no, nothing starts and the scan itself
    /// succeeded: 0.
    pub(super) async fn offer(
        self,
        report: &Report,
        registry: &Registry,
        dirs: &Dirs,
    ) -> Result<u8> {
        let picks = cancellable(report);
        // Every run is checked (the model's key above all) before the
        // question, so that a yes is never followed by "cannot start".
        let keys: Vec<String> = picks.iter().map(|p| p.key().to_owned()).collect();
        let (start_urls, unused) = start_urls_for(&keys, &self.start_urls);
        for id in unused {
            // A service id or a site, never a transaction: safe to say.
            say(
                self.json,
                &format!(
                    "--start-url {id}=…: {id} is not among the subscriptions to cancel; left out."
                ),
            );
        }
        let mut services = Vec::new();
        let mut service_urls = Vec::new();
        let mut offered = Vec::new();
        let mut address_jobs = Vec::new();
        for (pick, start_url) in picks.into_iter().zip(start_urls) {
            match &pick {
                Pick::Service(id) => {
                    services.push(id.clone());
                    service_urls.push(start_url);
                    offered.push(pick);
                }
                Pick::Address { site, url } => {
                    address_jobs.push(
                        self.address_job(registry, dirs, site, url, start_url)
                            .await?,
                    );
                    offered.push(pick);
                }
            }
        }
        if offered.is_empty() {
            say(
                self.json,
                "Nothing to cancel here: no current subscription found has a plugin or an address to cancel at; the table says where to cancel each.",
            );
            return Ok(0);
        }
        let mut jobs = cancel::batch_jobs(
            registry,
            dirs,
            &self.config,
            &self.spec,
            &services,
            service_urls,
        )?;
        jobs.extend(address_jobs);
        // Each kind was checked alone; together they must not share a
        // browser profile either.
        subterminator_core::batch::check_profiles(&jobs)?;
        if !self.yes && !confirm(&question(&offered), self.json).await {
            say(self.json, "Nothing was cancelled.");
            return Ok(0);
        }
        crate::batch::run(
            dirs,
            &self.config,
            jobs,
            self.parallel,
            self.json,
            self.verbose,
        )
        .await
    }

    /// The run for a subscription no plugin knows, made from the address
    /// its descriptor names, as `subterminator cancel <address>` starts it;
    /// with `--start-url SITE=URL`, on that copy instead.
    async fn address_job(
        &self,
        registry: &Registry,
        dirs: &Dirs,
        site: &str,
        url: &str,
        start_url: Option<String>,
    ) -> Result<Job> {
        let address = start_url.as_deref().unwrap_or(url);
        let mut spec = self.spec.clone();
        // What `plugin new --from-run` will list as its billing
        // descriptors: made from the site the statement names, never from
        // the statement's own words (a reference number, a name).
        spec.billing_descriptors = vec![format!("*{}*", site.to_ascii_uppercase())];
        cancel::generic_job(registry, dirs, &self.config, &spec, address).await
    }
}

/// One subscription the question offers to cancel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pick {
    /// A service a plugin here cancels, by its id.
    Service(String),
    /// A service no plugin knows, whose descriptor names where it is
    /// cancelled: `site` is `adobe.com`, `url` `https://adobe.com`.
    Address { site: String, url: String },
}

impl Pick {
    /// What `--start-url KEY=URL` names it by: the service id, or the site.
    pub(super) fn key(&self) -> &str {
        match self {
            Pick::Service(id) => id,
            Pick::Address { site, .. } => site,
        }
    }

    /// How the question names it.
    fn label(&self) -> String {
        match self {
            Pick::Service(id) => id.clone(),
            Pick::Address { site, url } => format!("{site} (no plugin; cancel at {url})"),
        }
    }
}

/// What can be cancelled from here, each once, in the table's order: the
/// services a plugin knows, then those no plugin knows whose descriptor
/// names an address. A subscription marked "ended?" is left out: its
/// charges stopped, and a run on an account with nothing to cancel would
/// only fail.
pub(super) fn cancellable(report: &Report) -> Vec<Pick> {
    let mut services: Vec<Pick> = Vec::new();
    let mut addresses: Vec<Pick> = Vec::new();
    for subscription in report.subscriptions.iter().filter(|s| !s.ended) {
        let (pick, list) = match (&subscription.action, &subscription.cancel_at) {
            (Action::Cancel { service }, _) => (Pick::Service(service.clone()), &mut services),
            (Action::NoPlugin, Some(url)) => (
                Pick::Address {
                    site: url.trim_start_matches("https://").to_owned(),
                    url: url.clone(),
                },
                &mut addresses,
            ),
            _ => continue,
        };
        if !list.contains(&pick) {
            list.push(pick);
        }
    }
    services.extend(addresses);
    services
}

/// `--start-url` as (service, URL) pairs. Unlike `cancel`'s, each says
/// whose it is: the services are the statements' to name, not the command
/// line's, so a bare URL could belong to any of them.
pub(super) fn start_url_pairs(given: &[String]) -> Result<Vec<(String, String)>> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for entry in given {
        let Some((id, url)) = entry.split_once('=').filter(|(id, _)| !id.is_empty()) else {
            return Err(Error::Configuration(format!(
                "--start-url {entry:?}: say whose it is, e.g. --start-url spotify=http://127.0.0.1:8000/"
            )));
        };
        if pairs.iter().any(|(seen, _)| seen == id) {
            return Err(Error::Configuration(format!(
                "--start-url: {id} has two; give each service one"
            )));
        }
        pairs.push((id.to_owned(), url.to_owned()));
    }
    Ok(pairs)
}

/// Each pick's start URL in `ids`' order (service ids and sites), and the
/// ones given a URL that are not to be cancelled (not found, ended, or
/// billed elsewhere).
pub(super) fn start_urls_for(
    ids: &[String],
    pairs: &[(String, String)],
) -> (Vec<Option<String>>, Vec<String>) {
    let urls = ids
        .iter()
        .map(|id| {
            pairs
                .iter()
                .find(|(service, _)| service == id)
                .map(|(_, url)| url.clone())
        })
        .collect();
    let unused = pairs
        .iter()
        .filter(|(service, _)| !ids.contains(service))
        .map(|(service, _)| service.clone())
        .collect();
    (urls, unused)
}

/// The one question: `Cancel these 2 subscriptions here: netflix,
/// adobe.com (no plugin; cancel at https://adobe.com)? [y/N] `.
pub(super) fn question(picks: &[Pick]) -> String {
    let labels: Vec<String> = picks.iter().map(Pick::label).collect();
    match labels.as_slice() {
        [one] => format!("Cancel this subscription here: {one}? [y/N] "),
        _ => format!(
            "Cancel these {} subscriptions here: {}? [y/N] ",
            labels.len(),
            labels.join(", ")
        ),
    }
}

/// Only a yes is a yes; end of input, an empty line or anything else is no.
pub(super) fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}

/// Shows `question` and reads one line of stdin. The line is read through
/// std's one shared stdin buffer, so what follows it (answers a run's
/// questions will need) stays there for the batch's own reader.
async fn confirm(question: &str, json: bool) -> bool {
    // As for a run's questions: a `y` typed before this one was on the
    // screen is no answer to it. A pipe keeps its lines.
    if std::io::stdin().is_terminal() {
        crate::console::discard_typed_ahead();
    }
    if json {
        // stdout is JSON Lines; the question is for the person.
        anstream::eprint!("{question}");
        let _ = std::io::stderr().flush();
    } else {
        anstream::print!("\n{question}");
        let _ = std::io::stdout().flush();
    }
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    match read {
        Ok(Ok(line)) => {
            if !line.ends_with('\n') {
                // End of input: nobody typed Enter, so what follows would
                // otherwise go on the question's line.
                say(json, "");
            }
            is_yes(&line)
        }
        Ok(Err(e)) => {
            tracing::warn!("cannot read the answer from stdin ({e}); taken as no");
            false
        }
        Err(e) => {
            tracing::warn!("the stdin reader ended abnormally ({e}); taken as no");
            false
        }
    }
}

/// A line for the person: on stdout, or on stderr under `--json`, where
/// stdout holds only JSON.
fn say(json: bool, line: &str) {
    if json {
        anstream::eprintln!("{line}");
    } else {
        anstream::println!("{line}");
    }
}
