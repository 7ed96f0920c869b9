//! One run of the agent: a driver (a model, the offline policy, a
//! remembered path, an MCP client's model) proposes one tool call per turn
//! (`turns.rs`, `call.rs`); every browser action, whoever proposed it, goes
//! through the one pipeline (`pipeline.rs`): resolve the target
//! (`resolve.rs`) → read its facts (`facts.rs`) → decide (`decide.rs`, the
//! one safety decision) → ask the person (`ask.rs`, the question from
//! `question.rs`) → run it under the network guard (`run.rs`) → look again
//! (`look.rs`). "Success" is believed only when the host verifies it on the
//! page (`claim.rs`).
//!
//! The loop owns the run's state (`state.rs`); the stages are functions
//! that take the run's fixed parts (`ctx.rs`) and what they need of it.

mod action;
mod ask;
mod auth;
mod call;
mod claim;
mod ctx;
mod decide;
mod driver;
mod events;
mod facts;
mod guard_rules;
pub mod history;
mod image;
mod look;
mod metrics;
pub mod offline;
mod overlays;
mod passwords;
mod pipeline;
mod plan_first;
mod prompt;
mod question;
mod recover;
mod remember;
pub mod replay;
mod reporter;
mod resolve;
mod result;
mod run;
pub mod schema;
mod state;
pub mod toolset;
mod trouble;
mod turn;
mod turns;
mod virtual_tools;
mod yes;

use std::time::Instant;

pub use action::{Action, Origin};
pub use claim::MAX_REFUSED_CLAIMS;
pub use driver::{ClientCall, ClientCalls, ClientModel, ClientReply, Driver, client_model};
pub use events::Event;
pub use image::MAX_MODEL_IMAGE_BYTES;
pub use offline::OfflinePolicy;
pub use reporter::Reporter;
pub use result::{Asked, StepsBy, TaskReason, TaskResult, TimeSplit, Tokens};
pub use toolset::{ModelScreenshot, Toolset, compact::CompactToolset, full::FullToolset};
pub use turn::Turn;
pub use virtual_tools::{COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};

use crate::browser::Browser;
use crate::page::origin_of;
use crate::plugin::ServiceEntry;
use ctx::Ctx;
use state::{Clocks, State};

/// Turns one run may take unless told otherwise (`--max-turns`).
pub const DEFAULT_MAX_TURNS: u32 = 20;
/// Replies in a row with no tool call before the run gives up.
pub const MAX_NO_ACTION_REPLIES: u32 = 3;
/// Output tokens one model reply may use; one tool call needs few.
pub const MAX_REPLY_TOKENS: u32 = 1024;
/// How many sign-in pauses one run allows before it gives up.
pub const MAX_AUTH_PAUSES: u32 = 3;

/// Said to the model when it answers without calling a tool.
pub const NUDGE: &str = "Call a tool or complete_task.";

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub max_turns: u32,
    pub dry_run: bool,
    /// False only under `--no-checkpoint`.
    pub checkpoints: bool,
    /// Where the run starts; `--start-url` or the plugin's initial URL.
    pub start_url: String,
    /// Set for `--start-url`: its origin joins the allowed origins.
    pub local_copy: bool,
    /// Whether a sign-in wall may pause for the human (headed, on a terminal).
    pub interactive: bool,
    /// Whether cookie banners, promotions and chat widgets in the way are
    /// dismissed by the host (`[agent] dismiss-interruptions`, on by default).
    pub dismiss_overlays: bool,
    /// Where paths that worked are remembered; `None` remembers nothing.
    pub memory: Option<crate::memory::Memory>,
    /// `--replay`: follow the remembered path with no model until it no
    /// longer matches the page.
    pub replay: bool,
    /// `--model-drives`: a configured model takes every turn, with the
    /// plan and the remembered path as hints only. Off, the path and then
    /// the plan take every turn whose step they find on the page.
    pub model_drives: bool,
    /// See `SessionSpec::billing_descriptors`.
    pub billing_descriptors: Vec<String>,
    /// The config's list prices (`[prices]`), over the defaults.
    pub prices: std::collections::BTreeMap<String, crate::llm::pricing::Price>,
}

/// Everything one run works with.
pub struct Agent<'a> {
    pub service: &'a ServiceEntry,
    pub browser: &'a Browser,
    pub driver: Driver,
    pub toolset: Box<dyn Toolset>,
    pub reporter: &'a mut Reporter,
    pub options: RunOptions,
}

impl Agent<'_> {
    /// Runs to the end. Errors the driver cannot be told about (the model
    /// or the browser gone) still end in a [`TaskResult`] with the right
    /// exit code.
    pub async fn run(self) -> TaskResult {
        let started = Instant::now();
        let Agent {
            service,
            browser,
            mut driver,
            toolset,
            reporter,
            options,
        } = self;
        let mut cx = Ctx {
            service,
            browser,
            toolset,
            reporter,
            options,
            clocks: Clocks::default(),
        };
        let mut state = State::new(allowed_origins(&cx));
        cx.reporter.emit(Event::RunStarted {
            service: service.metadata.id.clone(),
            display_name: service.metadata.display_name.clone(),
            model: driver.label(),
            start_url: cx.options.start_url.clone(),
            local_copy: cx.options.local_copy.then(|| cx.options.start_url.clone()),
            tools: cx.toolset.name().into(),
            max_turns: cx.options.max_turns,
            checkpoints: cx.options.checkpoints,
            plugin: service.provenance(),
            billing_descriptors: cx.options.billing_descriptors.clone(),
        });
        remember::recall(&cx, &driver, &mut state);
        plan_first::arm(&cx, &driver, &mut state);
        let mut result = match turns::run(&mut cx, &mut state, &mut driver).await {
            Ok(result) => result,
            Err(error) => TaskResult::from_error(&error, state.turn),
        };
        remember::remember(&mut cx, &result, &state);
        result.usage = state.usage;
        result.steps = state.steps;
        result.asked = state.asked;
        result.cost_usd = driver.cost_usd(state.usage, &cx.options.prices);
        result.time = cx.clocks.split(started.elapsed());
        if result.final_url.is_none() && !state.snapshot.url.is_empty() {
            result.final_url = Some(state.snapshot.url.clone());
        }
        cx.reporter.emit(Event::Finished {
            result: result.clone(),
        });
        result
    }
}

/// The origins the run may visit: the plugin's, and a local copy's.
fn allowed_origins(cx: &Ctx<'_>) -> Vec<String> {
    let mut origins: Vec<String> = cx
        .service
        .metadata
        .allowed_origins
        .iter()
        .filter_map(|o| origin_of(o))
        .collect();
    if cx.options.local_copy
        && let Some(origin) = origin_of(&cx.options.start_url)
    {
        origins.push(origin);
    }
    origins
}
