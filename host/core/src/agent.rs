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
mod facts;
mod guard_rules;
pub mod history;
mod image;
mod look;
mod metrics;
pub mod offline;
mod options;
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
pub use image::MAX_MODEL_IMAGE_BYTES;
pub use offline::OfflinePolicy;
pub use options::{
    DEFAULT_MAX_TURNS, MAX_AUTH_PAUSES, MAX_NO_ACTION_REPLIES, MAX_REPLY_TOKENS, NUDGE, RunOptions,
};
pub use reporter::Reporter;
pub use toolset::{ModelScreenshot, Toolset, compact::CompactToolset, full::FullToolset};
pub use turn::Turn;
pub use virtual_tools::{COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};

use crate::browser::Browser;
use crate::feed::{Event, TaskResult};
use crate::page::origin_of;
use crate::plugin::ServiceEntry;
use ctx::Ctx;
use state::{Clocks, State};

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
        look::refuse_left_held(&mut cx, &mut state).await;
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
