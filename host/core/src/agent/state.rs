//! What the loop carries from turn to turn: the run's state, owned by the
//! loop and lent to each stage; and, kept with the run's resources instead
//! (`ctx.rs`), the clocks that split the run's time between the model, the
//! browser, the person and the host.

use std::time::{Duration, Instant};

use super::yes::Spent;
use crate::browser::guard::NetworkGuard;
use crate::feed::result::{TimeSplit, Tokens};
use crate::llm::Message;
use crate::page::{Dialog, Snapshot};
use crate::safety::CommitPage;

/// Where the run's time went; the rest is the host's own overhead.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Clocks {
    pub(super) model: Duration,
    pub(super) browser: Duration,
    /// The safety layers' own share: reading the element's facts, the
    /// plugin's and the floor's judgement, the commit page, the guard. Part
    /// of the other clocks' time, not apart from it.
    pub(super) safety: Duration,
    pub(super) human: Duration,
}

impl Clocks {
    /// The time spent since `before` was read off these clocks.
    pub(super) fn since(&self, before: &Clocks) -> Clocks {
        Clocks {
            model: self.model.saturating_sub(before.model),
            browser: self.browser.saturating_sub(before.browser),
            safety: self.safety.saturating_sub(before.safety),
            human: self.human.saturating_sub(before.human),
        }
    }

    /// The run's `total` wall time, split; the host's share is the rest.
    pub(super) fn split(&self, total: Duration) -> TimeSplit {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let (model, browser, human) = (ms(self.model), ms(self.browser), ms(self.human));
        let total = ms(total);
        TimeSplit {
            total_ms: total,
            model_ms: model,
            browser_ms: browser,
            human_ms: human,
            host_ms: total.saturating_sub(model + browser + human),
        }
    }
}

/// The run's state between turns.
pub(super) struct State {
    pub(super) snapshot: Snapshot,
    pub(super) history: Vec<Message>,
    pub(super) usage: Tokens,
    pub(super) turn: u32,
    pub(super) allowed_origins: Vec<String>,
    pub(super) auth_pauses: u32,
    /// The approved actions that ran: the only way this run can have
    /// committed anything.
    pub(super) approved: Vec<Spent>,
    /// The state-changing requests a yes let through, each with the yes:
    /// the evidence a verified cancellation needs.
    pub(super) released: Vec<Released>,
    /// The yes whose shown request its action had not sent when the guard
    /// re-armed (`guard::Shown`): what the guard releases of it later is
    /// recorded as this yes's.
    pub(super) owed: Option<Spent>,
    /// A dialog the page has open, which only `browser_handle_dialog` can
    /// answer.
    pub(super) dialog: Option<OpenDialog>,
    /// The commit-page verdict of the latest page, by its fingerprint.
    pub(super) commit_page: Option<(u64, Option<CommitPage>)>,
    /// Success claims refused in a row.
    pub(super) refused_claims: u32,
    /// The network guard, once installed (not under `--no-checkpoint`).
    pub(super) guard: Option<NetworkGuard>,
    /// An action's call is still in flight, waiting on a request the guard
    /// holds, while its person is asked: the guard's calls and the
    /// question's picture go beside it (`Browser::call_beside`).
    pub(super) in_flight: bool,
    /// The path remembered from a run that worked, if any.
    pub(super) remembered: Option<crate::memory::Remembered>,
    /// That path being replayed, until it hands over.
    pub(super) replay: Option<super::replay::Replay>,
    /// The state-changing actions this run took that worked, in order.
    pub(super) path: Vec<crate::memory::Step>,
    /// With a model configured and the plan first: the plugin's plan,
    /// taking every turn whose step it finds on the page.
    pub(super) plan: Option<super::offline::OfflinePolicy>,
    /// What the remembered path and the plan did while they drove, one line
    /// a step: the model, when it takes over, is told these instead of
    /// being shown the turns.
    pub(super) known: Vec<String>,
    /// How many of `known` the model has been told.
    pub(super) told: usize,
    /// What the last step the plan or the path took answered (the page
    /// after it), for the model when it takes over.
    pub(super) known_page: Option<String>,
    /// Why the path or the plan stopped, for the model's brief.
    pub(super) stopped: Option<String>,
    /// Who took the last turn's step: the replay or the plan (`true`), or the driver.
    pub(super) known_drove_last: bool,
    /// The model's step count when the plan last handed over to it, so the
    /// hand-back says how many steps the model took in between.
    pub(super) model_steps_at_hand_over: u32,
    /// Steps taken, by who proposed them.
    pub(super) steps: crate::feed::result::StepsBy,
    /// What was sent to the model so far.
    pub(super) asked: crate::feed::result::Asked,
}

/// A state-changing request a yes let through.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(super) struct Released {
    pub(super) turn: u32,
    pub(super) method: String,
    pub(super) url: String,
    /// The yes it went out under.
    pub(super) approval: String,
}

/// A dialog the page has open, and the yes of the action that opened it.
#[derive(Debug, Clone)]
pub(super) struct OpenDialog {
    pub(super) dialog: Dialog,
    /// The yes of the action that opened it, when an approved action did
    /// (the dialog was "opened by a commit"): the site's own
    /// "are you sure?" to a cancellation the person said yes to may be
    /// answered under that yes (`pipeline::covered_dialog`).
    pub(super) opened_under: Option<Spent>,
}

impl State {
    pub(super) fn new(allowed_origins: Vec<String>) -> Self {
        Self {
            snapshot: Snapshot::default(),
            history: Vec::new(),
            usage: Tokens::default(),
            turn: 0,
            allowed_origins,
            auth_pauses: 0,
            approved: Vec::new(),
            released: Vec::new(),
            owed: None,
            dialog: None,
            commit_page: None,
            refused_claims: 0,
            guard: None,
            in_flight: false,
            remembered: None,
            replay: None,
            path: Vec::new(),
            plan: None,
            known: Vec::new(),
            told: 0,
            known_page: None,
            stopped: None,
            known_drove_last: false,
            model_steps_at_hand_over: 0,
            steps: crate::feed::result::StepsBy::default(),
            asked: crate::feed::result::Asked::default(),
        }
    }

    /// Whether an action that needed a yes was approved and ran.
    pub(super) fn approved_commit(&self) -> bool {
        !self.approved.is_empty()
    }
}

/// Runs `work`, adding the time it took to `clock`: how a turn's time is
/// split between the model, the browser, the human and the host.
pub(super) async fn timed<T>(
    clock: &mut Duration,
    work: impl std::future::Future<Output = T>,
) -> T {
    let started = Instant::now();
    let out = work.await;
    *clock += started.elapsed();
    out
}

pub(super) fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
