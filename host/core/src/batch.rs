//! Several services in one command (`cancel netflix spotify hulu`): each run
//! in a browser session of its own, `jobs` at a time, each with its own
//! record; their approvals go through one queue, so the person answers one
//! question at a time and each says which service asks. A stop (Ctrl+C)
//! ends every run the way a single run ends: recorded, browser shut down.
//!
//! The runs are the same [`Run`]s a single cancellation uses: the same
//! agent, decision, guard and verification, nothing looser for being many.

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::agent::Reporter;
use crate::config::Config;
use crate::error::Error;
use crate::feed::Feed;
use crate::feed::TaskResult;
use crate::paths::Dirs;
use crate::plugin::ServiceEntry;
use crate::session::{self, Finished, Run, SessionSpec};

/// Runs at once unless `--jobs` says otherwise: each is a browser of its
/// own, and this machine's two cores are busy with two (BENCHMARKS.md).
pub const DEFAULT_JOBS: usize = 2;

/// The most `--jobs` takes: past it a machine runs out of cores long
/// before it runs out of services to cancel.
pub const MAX_JOBS: usize = 16;

/// One service to cancel, with the settings of its run.
#[derive(Debug, Clone)]
pub struct Job {
    pub service: ServiceEntry,
    pub spec: SessionSpec,
}

/// How one job ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub service: String,
    pub display_name: String,
    pub result: TaskResult,
    /// `None` when the run never started (stopped while waiting its turn,
    /// or its browser could not start).
    pub finished: Option<Finished>,
}

/// The two runs that may not go at once: the same service on its one
/// signed-in profile (a browser profile is one browser's at a time).
/// Attached or `--isolated` runs each get a profile of their own.
pub fn check_profiles(jobs: &[Job]) -> Result<(), Error> {
    let mut seen: Vec<&str> = Vec::new();
    for job in jobs {
        let id = job.service.metadata.id.as_str();
        let own_profile = job.spec.isolated || job.spec.attach.is_some();
        if !own_profile && seen.contains(&id) {
            return Err(Error::Configuration(format!(
                "{id} is listed twice: both runs would use {id}'s signed-in browser profile, which one browser at a time may hold; list it once, or add --isolated for throwaway profiles"
            )));
        }
        seen.push(id);
    }
    Ok(())
}

/// Runs every job, `parallel` at a time, and returns their outcomes in the
/// order given. `feed` is the one queue every run reports and asks through,
/// each labelled with its service; `stop` ends them all.
pub async fn run(
    dirs: &Dirs,
    config: &Config,
    jobs: Vec<Job>,
    parallel: usize,
    feed: &Feed,
    stop: &CancellationToken,
) -> Vec<Outcome> {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(parallel.clamp(1, MAX_JOBS)));
    let count = jobs.len();
    let mut running = JoinSet::new();
    for (index, job) in jobs.into_iter().enumerate() {
        let (dirs, config) = (dirs.clone(), config.clone());
        let (slots, stop) = (slots.clone(), stop.clone());
        let feed = feed.from(job.service.metadata.display_name.clone());
        running.spawn(async move {
            let waited = tokio::select! {
                permit = slots.acquire_owned() => permit.ok(),
                () = stop.cancelled() => None,
            };
            let outcome = match waited {
                Some(_permit) if !stop.is_cancelled() => {
                    one(&dirs, &config, job, feed, &stop).await
                }
                _ => never_started(&job, &Error::Interrupted),
            };
            (index, outcome)
        });
    }
    let mut outcomes: Vec<Option<Outcome>> = vec![None; count];
    while let Some(joined) = running.join_next().await {
        match joined {
            Ok((index, outcome)) => {
                if let Some(place) = outcomes.get_mut(index) {
                    *place = Some(outcome);
                }
            }
            // A run's task cannot panic (the workspace denies it); should
            // one still fail to join, its place says so below.
            Err(e) => tracing::error!("a batch run ended abnormally: {e}"),
        }
    }
    outcomes
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.unwrap_or_else(|| Outcome {
                service: format!("run {}", i + 1),
                display_name: format!("run {}", i + 1),
                result: TaskResult::from_error(
                    &Error::Configuration("the run ended abnormally; see the log".into()),
                    0,
                ),
                finished: None,
            })
        })
        .collect()
}

/// One job from start to clean-up, as `cancel <service>` runs it, but
/// asking through the shared queue and never pausing for a sign-in (the
/// person's keyboard belongs to the queue).
async fn one(
    dirs: &Dirs,
    config: &Config,
    job: Job,
    feed: Feed,
    stop: &CancellationToken,
) -> Outcome {
    let Job { service, spec } = job;
    let driver = match session::driver(&spec, config, &service) {
        Ok(driver) => driver,
        Err(e) => return never_started_entry(&service, &e),
    };
    let started = Run::start(dirs, config, &service, &spec, |record| {
        Reporter::new(Some(record), feed)
    })
    .await;
    let mut run = match started {
        Ok(run) => run,
        Err(e) => return never_started_entry(&service, &e),
    };
    let agent = run.agent(&service, &spec, driver, false);
    let ended = tokio::select! {
        result = agent.run() => Some(result),
        () = stop.cancelled() => None,
    };
    let finished = match ended {
        Some(result) => run.finish(result).await,
        None => {
            run.reporter
                .notice("⚠️  Interrupt received, cleaning up...");
            run.interrupted(&Error::Interrupted).await
        }
    };
    Outcome {
        service: service.metadata.id.clone(),
        display_name: service.metadata.display_name.clone(),
        result: finished.result.clone(),
        finished: Some(finished),
    }
}

fn never_started(job: &Job, error: &Error) -> Outcome {
    never_started_entry(&job.service, error)
}

fn never_started_entry(service: &ServiceEntry, error: &Error) -> Outcome {
    Outcome {
        service: service.metadata.id.clone(),
        display_name: service.metadata.display_name.clone(),
        result: TaskResult::from_error(error, 0),
        finished: None,
    }
}

/// The batch's exit code: 0 only when every run verified its cancellation,
/// else the worst of theirs: an interruption over a connection failure over
/// a configuration error over a plain failure.
pub fn exit_code(outcomes: &[Outcome]) -> u8 {
    let rank = |code: u8| match code {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => 3,
        130 => 5,
        _ => 4,
    };
    outcomes
        .iter()
        .map(|o| {
            if o.result.exit_code == 0 && !(o.result.success && o.result.verified) {
                1
            } else {
                o.result.exit_code
            }
        })
        .max_by_key(|c| rank(*c))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::TaskReason;

    fn outcome(code: u8, verified: bool) -> Outcome {
        let mut result = TaskResult::new(verified, verified, TaskReason::Completed, 3);
        result.exit_code = code;
        Outcome {
            service: "s".into(),
            display_name: "S".into(),
            result,
            finished: None,
        }
    }

    #[test]
    fn the_batch_exits_with_its_worst_run() {
        let cases: &[(&[(u8, bool)], u8)] = &[
            (&[(0, true), (0, true)], 0),
            (&[(0, true), (1, false)], 1),
            (&[(1, false), (3, false), (2, false)], 3),
            (&[(3, false), (130, false), (0, true)], 130),
            (&[(2, false), (1, false)], 2),
            // A success the plugin did not verify is no success.
            (&[(0, true), (0, false)], 1),
            (&[], 0),
        ];
        for (runs, want) in cases {
            let outcomes: Vec<Outcome> = runs.iter().map(|(c, v)| outcome(*c, *v)).collect();
            assert_eq!(exit_code(&outcomes), *want, "{runs:?}");
        }
    }
}
