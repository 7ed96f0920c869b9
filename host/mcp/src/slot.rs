//! One session's run: its browser, the task that runs the agent, and the
//! way in for the client's calls. A slot lives from the call that starts
//! its run to the run's end; its browser is gone when the run is.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::{mpsc, oneshot, watch};

use super::{STOP_TIMEOUT, elicit};
use subterminator_core::agent::{
    ClientCall, ClientCalls, ClientReply, Driver, Event, Reporter, TaskResult,
};
use subterminator_core::browser::Browser;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::feed;
use subterminator_core::llm::ToolCall;
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::ServiceEntry;
use subterminator_core::session::{Finished, Run, SessionSpec};

/// Which connection and which `session_id` a slot belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotKey {
    pub connection: u64,
    pub session: String,
}

/// Who drives the slot's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driving {
    /// The client's own model, through the browser tools.
    Client,
    /// The host's agent (`cancel_subscription`).
    Host,
}

/// One session's run.
pub struct Slot {
    pub key: SlotKey,
    pub service_id: String,
    pub driving: Driving,
    /// Whether it holds its service's signed-in profile.
    pub persistent: bool,
    pub browser: Arc<Browser>,
    pub run_dir: PathBuf,
    /// Set for a client's run until it is closed; dropping it ends the run
    /// at its next turn.
    calls: Mutex<Option<ClientCalls>>,
    /// One client call at a time, in the order they came.
    lane: tokio::sync::Mutex<()>,
    stop: watch::Sender<bool>,
    done: watch::Receiver<Option<Finished>>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    last_used: Mutex<Instant>,
    busy: AtomicUsize,
    screenshots: AtomicU32,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("key", &self.key)
            .field("service", &self.service_id)
            .finish_non_exhaustive()
    }
}

/// What a session's run is: where, what, who drives, who approves.
pub struct Launch {
    pub key: SlotKey,
    pub service: ServiceEntry,
    pub spec: SessionSpec,
    pub driver: Driver,
    /// The way in for a client's calls, with [`Driver::Client`].
    pub calls: Option<ClientCalls>,
    /// The client's connection, for approvals.
    pub peer: Peer<RoleServer>,
    /// A copy of every event, for progress notifications.
    pub tap: Option<mpsc::UnboundedSender<Event>>,
}

impl Slot {
    /// Creates the run's record, starts its browser server and spawns the
    /// agent; the browser itself starts with the agent's first call.
    pub async fn start(dirs: &Dirs, config: &Config, launch: Launch) -> Result<Arc<Slot>> {
        let Launch {
            key,
            service,
            spec,
            driver,
            calls,
            peer,
            tap,
        } = launch;
        let driving = match driver {
            Driver::Client(_) => Driving::Client,
            Driver::Model(_) | Driver::Offline(_) => Driving::Host,
        };
        // The run's front-end is this server: its events become progress
        // notifications, its questions elicitations.
        let (feed, updates) = feed::feed();
        tokio::spawn(elicit::serve(peer, updates, tap));
        let run = Run::start(dirs, config, &service, &spec, |record| {
            Reporter::new(Some(record), feed)
        })
        .await?;
        let browser = run.browser.clone();
        let run_dir = run.dir().to_path_buf();
        let (stop, stopped) = watch::channel(false);
        let (finished, done) = watch::channel(None);
        let service_id = service.metadata.id.clone();
        let persistent = !spec.isolated && spec.attach.is_none();
        let task = tokio::spawn(drive(run, service, spec, driver, stopped, finished));
        Ok(Arc::new(Slot {
            key,
            service_id,
            driving,
            persistent,
            browser,
            run_dir,
            calls: Mutex::new(calls),
            lane: tokio::sync::Mutex::new(()),
            stop,
            done,
            task: Mutex::new(Some(task)),
            last_used: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            screenshots: AtomicU32::new(0),
        }))
    }

    /// Hands one call of the client's model to the run and waits for the
    /// host's answer. `Err` is how the run ended, when it ended instead of
    /// answering (the person said no, a success was verified).
    pub async fn call(&self, call: ToolCall) -> std::result::Result<ClientReply, Finished> {
        let _lane = self.lane.lock().await;
        let _busy = Busy::new(self);
        let calls = self.calls.lock().ok().and_then(|c| c.clone());
        let Some(calls) = calls else {
            return Err(self.finished().await);
        };
        let (reply, answered) = oneshot::channel();
        let sent = calls.send(ClientCall { call, reply }).await;
        drop(calls);
        if sent.is_err() {
            return Err(self.finished().await);
        }
        match answered.await {
            Ok(reply) => Ok(reply),
            Err(_) => Err(self.finished().await),
        }
    }

    /// The run's end, once it has ended.
    pub async fn finished(&self) -> Finished {
        let mut done = self.done.clone();
        match done.wait_for(Option::is_some).await {
            Ok(finished) => finished.clone().unwrap_or_else(|| self.lost()),
            Err(_) => self.lost(),
        }
    }

    /// Whether the run has ended (its browser is shut down).
    pub fn is_done(&self) -> bool {
        self.done.borrow().is_some()
    }

    /// Waits for the run's end while marking the slot busy (never idle).
    pub async fn wait(&self) -> Finished {
        let _busy = Busy::new(self);
        self.finished().await
    }

    /// Idle for longer than `limit`, with no call under way.
    pub fn idle_for(&self, limit: std::time::Duration) -> bool {
        self.busy.load(Ordering::SeqCst) == 0
            && self
                .last_used
                .lock()
                .map(|t| t.elapsed() >= limit)
                .unwrap_or(false)
    }

    /// A fresh path for a screenshot the client asked for.
    pub fn next_screenshot(&self) -> PathBuf {
        let n = self.screenshots.fetch_add(1, Ordering::SeqCst) + 1;
        self.run_dir.join(format!("client-screenshot-{n:03}.png"))
    }

    /// Ends the run and waits for its clean-up. A client's run idle at its
    /// next turn ends as closed; anything under way (a host's run, a call
    /// waiting for the browser or the person) is cut short as interrupted
    /// when `now`, or after [`STOP_TIMEOUT`] otherwise.
    pub async fn close(&self, now: bool) -> Finished {
        if let Ok(mut calls) = self.calls.lock() {
            calls.take();
        }
        if now || self.driving == Driving::Host {
            let _ = self.stop.send(true);
        }
        if let Ok(finished) = tokio::time::timeout(STOP_TIMEOUT, self.finished()).await {
            return finished;
        }
        let _ = self.stop.send(true);
        if let Ok(finished) = tokio::time::timeout(STOP_TIMEOUT, self.finished()).await {
            return finished;
        }
        // A run that will not stop loses its task; its browser goes with it.
        tracing::warn!(session = %self.key.session, "the run did not stop; killing its browser");
        if let Err(e) = self.browser.shutdown().await {
            tracing::warn!("browser shutdown: {e}");
        }
        if let Some(task) = self.task.lock().ok().and_then(|mut t| t.take()) {
            task.abort();
        }
        self.lost()
    }

    /// What is known of a run whose task is gone without saying how it ended.
    fn lost(&self) -> Finished {
        Finished {
            result: TaskResult::from_error(&Error::Interrupted, 0),
            run_dir: self.run_dir.clone(),
            receipt: None,
        }
    }

    fn touch(&self) {
        if let Ok(mut at) = self.last_used.lock() {
            *at = Instant::now();
        }
    }
}

/// Marks a slot busy for as long as it lives; its end counts as a use.
struct Busy<'a>(&'a Slot);

impl<'a> Busy<'a> {
    fn new(slot: &'a Slot) -> Self {
        slot.busy.fetch_add(1, Ordering::SeqCst);
        slot.touch();
        Self(slot)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The slot's task: the agent until it ends or the slot is stopped, then
/// the run's clean-up (receipt, browser, record), then the news.
async fn drive(
    mut run: Run,
    service: ServiceEntry,
    spec: SessionSpec,
    driver: Driver,
    mut stopped: watch::Receiver<bool>,
    finished: watch::Sender<Option<Finished>>,
) {
    let outcome = {
        let agent = run.agent(&service, &spec, driver, false);
        tokio::select! {
            result = agent.run() => Some(result),
            _ = stopped.wait_for(|stop| *stop) => None,
        }
    };
    let done = match outcome {
        Some(result) => run.finish(result).await,
        None => run.interrupted(&Error::Interrupted).await,
    };
    finished.send_replace(Some(done));
}
