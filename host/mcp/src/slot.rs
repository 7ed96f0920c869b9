//! One session's run: its browser, the task that runs the agent, its
//! front-end ([`Desk`]) and the way in for the client's calls. A slot lives
//! from the call that starts its run to the run's end; its browser is gone
//! when the run is.
//!
//! A call waits on the slot until the run answers it, the run ends, or the
//! run asks the person something that must travel back as the call's
//! `input_required` result (2026-07-28). Then the call is *in flight*: the
//! slot keeps what it waits on, and the client's next call, bringing the
//! answer and repeating the call it answers, waits on it again.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{oneshot, watch};

use super::desk::{Answered, Asking, Desk, Parked, Refusal};
use super::presence::Presence;
use super::{APPROVAL_TIMEOUT, STOP_TIMEOUT};
use subterminator_core::agent::{ClientCall, ClientCalls, ClientReply, Driver, Reporter};
use subterminator_core::browser::Browser;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::feed;
use subterminator_core::feed::TaskResult;
use subterminator_core::llm::ToolCall;
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::ServiceEntry;
use subterminator_core::session::{Finished, Run, SessionSpec};

/// Which scope and which `session_id` a slot belongs to. The scope is a
/// connection's number (stdio, a pre-2026 HTTP session), or
/// [`STATELESS`] for every 2026-07-28 HTTP caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotKey {
    pub connection: u64,
    pub session: String,
}

/// The scope of 2026-07-28 calls over HTTP, which belong to no connection:
/// their sessions are named by the ids the server gives out.
pub const STATELESS: u64 = 0;

/// Who drives the slot's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driving {
    /// The client's own model, through the browser tools.
    Client,
    /// The host's agent (`cancel_subscription`).
    Host,
}

/// What shows that the slot's client is still there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tether {
    /// Its stdio pipe: while it is open the client is (when it closes the
    /// server ends, and every session with it).
    Process,
    /// A pre-2026 HTTP session (its `Mcp-Session-Id`): there while one of
    /// its HTTP exchanges is open, and for the lease after.
    HttpSession(String),
    /// A 2026-07-28 HTTP caller, which keeps nothing open: there while a
    /// call is in progress and for the lease after, or while a question
    /// waits on its person (up to the approval timeout).
    Exchange,
}

/// What a waiting call ends with.
#[derive(Debug)]
pub enum Outcome {
    /// The host's answer to the client's call.
    Reply(ClientReply),
    /// How the run ended.
    Finished(Finished),
    /// The run asks the person this, and waits: the call returns it.
    Asks(Arc<Parked>),
}

/// Why a call could not wait on the slot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "session \"{session}\" is waiting for the person's answer to {tool}; call {tool} again with the answer"
    )]
    Waiting { session: String, tool: String },

    #[error(
        "this call does not repeat the call the answer belongs to ({tool} with the same arguments); nothing was approved"
    )]
    NotTheCall { tool: String },

    #[error(transparent)]
    Answer(#[from] Refusal),
}

/// A call and its arguments, as the client sent them: a retry must repeat
/// them, so that an answer never reaches an action it was not asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Fingerprint {
    pub tool: String,
    pub arguments: Value,
}

/// What a call in flight waits on.
enum Waiting {
    /// The run's answer to a client's call.
    Reply(oneshot::Receiver<ClientReply>),
    /// The run's end (the host drives).
    End,
}

struct InFlight {
    fingerprint: Fingerprint,
    waiting: Waiting,
}

/// One session's run.
pub struct Slot {
    pub key: SlotKey,
    pub service_id: String,
    pub driving: Driving,
    /// Whether it holds its service's signed-in profile.
    pub persistent: bool,
    pub tether: Tether,
    pub browser: Arc<Browser>,
    pub run_dir: PathBuf,
    pub desk: Arc<Desk>,
    /// Set for a client's run until it is closed; dropping it ends the run
    /// at its next turn.
    calls: Mutex<Option<ClientCalls>>,
    /// One call at a time, in the order they came; it holds the call in
    /// flight between an `input_required` result and its answer.
    lane: tokio::sync::Mutex<Option<InFlight>>,
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
            .field("tether", &self.tether)
            .finish_non_exhaustive()
    }
}

/// What a session's run is: where, what, who drives, how the person is
/// asked and what shows the client is there.
pub struct Launch {
    pub key: SlotKey,
    pub service: ServiceEntry,
    pub spec: SessionSpec,
    pub driver: Driver,
    /// The way in for a client's calls, with [`Driver::Client`].
    pub calls: Option<ClientCalls>,
    pub asking: Asking,
    pub tether: Tether,
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
            asking,
            tether,
        } = launch;
        let driving = match driver {
            Driver::Client(_) => Driving::Client,
            Driver::Model(_) | Driver::Offline(_) => Driving::Host,
        };
        // The run's front-end is this server: its events become progress
        // notifications, its questions elicitations or input requests.
        let (feed, updates) = feed::feed();
        let desk = Desk::open(asking, updates);
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
            tether,
            browser,
            run_dir,
            desk,
            calls: Mutex::new(calls),
            lane: tokio::sync::Mutex::new(None),
            stop,
            done,
            task: Mutex::new(Some(task)),
            last_used: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            screenshots: AtomicU32::new(0),
        }))
    }

    /// Hands one call of the client's model to the run and waits for the
    /// host's answer, the run's end, or a question for the person.
    pub async fn call(
        &self,
        call: ToolCall,
        fingerprint: Fingerprint,
    ) -> std::result::Result<Outcome, Refused> {
        let mut lane = self.lane.lock().await;
        self.refuse_while_asking(&lane)?;
        let calls = self.calls.lock().ok().and_then(|c| c.clone());
        let Some(calls) = calls else {
            return Ok(Outcome::Finished(self.finished().await));
        };
        let (reply, answered) = oneshot::channel();
        if calls.send(ClientCall { call, reply }).await.is_err() {
            return Ok(Outcome::Finished(self.finished().await));
        }
        *lane = Some(InFlight {
            fingerprint,
            waiting: Waiting::Reply(answered),
        });
        Ok(self.settle(&mut lane).await)
    }

    /// Waits for the host's run to end, or to ask the person something.
    pub async fn wait_for_end(
        &self,
        fingerprint: Fingerprint,
    ) -> std::result::Result<Outcome, Refused> {
        let mut lane = self.lane.lock().await;
        self.refuse_while_asking(&lane)?;
        *lane = Some(InFlight {
            fingerprint,
            waiting: Waiting::End,
        });
        Ok(self.settle(&mut lane).await)
    }

    /// The call that was asked `question`, again, with the person's
    /// `response`: the answer goes to the run, and the call waits on as it
    /// did. Only a call that repeats the one in flight may answer.
    pub async fn resume(
        &self,
        fingerprint: &Fingerprint,
        question: &str,
        response: Option<&Value>,
    ) -> std::result::Result<Outcome, Refused> {
        let mut lane = self.lane.lock().await;
        let Some(in_flight) = lane.as_ref() else {
            return Err(Refusal::NotWaiting.into());
        };
        if &in_flight.fingerprint != fingerprint {
            return Err(Refused::NotTheCall {
                tool: in_flight.fingerprint.tool.clone(),
            });
        }
        match self.desk.answer(question, response)? {
            Answered::Given => Ok(self.settle(&mut lane).await),
            Answered::Missing => match self.desk.parked() {
                Some(parked) => Ok(Outcome::Asks(parked)),
                None => Err(Refusal::NotWaiting.into()),
            },
        }
    }

    /// A question waits on the person: only its answer may come now. A call
    /// left in flight without one (its question expired) is let go.
    fn refuse_while_asking(&self, lane: &Option<InFlight>) -> std::result::Result<(), Refused> {
        match (lane, self.desk.parked()) {
            (Some(in_flight), Some(_)) => Err(Refused::Waiting {
                session: self.key.session.clone(),
                tool: in_flight.fingerprint.tool.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// Waits on the call in flight. Dropped halfway (the client went), the
    /// call stays in flight.
    async fn settle(&self, lane: &mut Option<InFlight>) -> Outcome {
        let _busy = Busy::new(self);
        let Some(in_flight) = lane.as_mut() else {
            return Outcome::Finished(self.finished().await);
        };
        let outcome = match &mut in_flight.waiting {
            Waiting::Reply(answered) => tokio::select! {
                biased;
                reply = answered => match reply {
                    Ok(reply) => Outcome::Reply(reply),
                    Err(_) => Outcome::Finished(self.finished().await),
                },
                parked = self.desk.asked() => return Outcome::Asks(parked),
            },
            Waiting::End => tokio::select! {
                biased;
                finished = self.finished() => Outcome::Finished(finished),
                parked = self.desk.asked() => return Outcome::Asks(parked),
            },
        };
        *lane = None;
        outcome
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

    /// Idle for longer than `limit`, with no call under way.
    pub fn idle_for(&self, limit: Duration) -> bool {
        self.busy.load(Ordering::SeqCst) == 0
            && self
                .last_used
                .lock()
                .map(|t| t.elapsed() >= limit)
                .unwrap_or(false)
    }

    /// Whether the slot's client is gone at `now`, by its [`Tether`].
    pub fn client_gone(&self, presence: &Presence, now: Instant) -> bool {
        match &self.tether {
            Tether::Process => false,
            Tether::HttpSession(id) => presence.absent(id, now),
            Tether::Exchange => match self.desk.parked() {
                // The desk answers no itself once the approval times out.
                Some(parked) => now.saturating_duration_since(parked.asked_at) > APPROVAL_TIMEOUT,
                None => self.idle_for(presence.lease()),
            },
        }
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
