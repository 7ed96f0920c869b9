//! The turn loop: the model (or the offline policy) proposes one tool call
//! per turn; the host validates it, resolves its target from the latest
//! snapshot, asks the human BEFORE anything irreversible, runs it, takes a
//! fresh snapshot, watches for sign-in walls, and only believes "success"
//! when the service plugin verifies it on the page.

mod act;
mod auth;
mod driver;
mod events;
mod execute;
mod gather;
pub mod history;
mod image;
mod metrics;
pub mod offline;
mod overlay;
mod passwords;
mod prompt;
mod recover;
mod remember;
pub mod replay;
mod reporter;
mod result;
pub mod schema;
mod state;
mod step;
pub mod toolset;
mod virtual_tools;

use std::time::Instant;

use base64::Engine as _;

pub use driver::{ClientCall, ClientCalls, ClientModel, ClientReply, Driver, client_model};
pub use events::Event;
pub use image::MAX_MODEL_IMAGE_BYTES;
pub use offline::OfflinePolicy;
pub use reporter::Reporter;
pub use result::{TaskReason, TaskResult, Tokens};
pub use toolset::{ModelScreenshot, Toolset, compact::CompactToolset, full::FullToolset};
pub use virtual_tools::{COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};

use crate::approval::Approver;
use crate::browser::Browser;
use crate::browser::guard::{GuardRules, NetworkGuard};
use crate::error::Error;
use crate::llm::textcall::{self, TextCall};
use crate::llm::{Completion, Message, Request, ToolCall, ToolSpec};
use crate::page::{Snapshot, origin_of};
use crate::plugin::{self, ServiceEntry, Verdict};
use crate::safety;
use image::{SCREENSHOT_MEDIA_TYPE, read_image};
use metrics::{request_chars, request_images};
use state::{State, Timing, millis, timed};

/// Turns one run may take unless told otherwise (seed 000 §2.4).
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
    /// The config's list prices (`[prices]`), over the defaults.
    pub prices: std::collections::BTreeMap<String, crate::llm::pricing::Price>,
}

/// Everything one run works with.
pub struct Agent<'a> {
    pub service: &'a ServiceEntry,
    pub browser: &'a Browser,
    pub driver: Driver,
    pub toolset: Box<dyn Toolset>,
    pub approver: &'a mut Approver,
    pub reporter: &'a mut Reporter,
    pub options: RunOptions,
}

impl Agent<'_> {
    /// Runs to the end. Errors the model cannot be told about (the model or
    /// the browser gone) still end in a [`TaskResult`] with the right exit code.
    pub async fn run(mut self) -> TaskResult {
        let started = Instant::now();
        let mut state = State::new(self.allowed_origins());
        self.reporter.emit(Event::RunStarted {
            service: self.service.metadata.id.clone(),
            display_name: self.service.metadata.display_name.clone(),
            model: self.driver.label(),
            start_url: self.options.start_url.clone(),
            local_copy: self
                .options
                .local_copy
                .then(|| self.options.start_url.clone()),
            tools: self.toolset.name().into(),
            max_turns: self.options.max_turns,
            checkpoints: self.options.checkpoints,
            plugin: self.service.provenance(),
        });
        self.recall(&mut state);
        let mut result = match self.run_loop(&mut state).await {
            Ok(result) => result,
            Err(error) => TaskResult::from_error(&error, state.turn),
        };
        self.remember(&result, &state);
        result.usage = state.usage;
        result.cost_usd = self.driver.cost_usd(state.usage, &self.options.prices);
        result.time = state.timing.split(started.elapsed());
        if result.final_url.is_none() && !state.snapshot.url.is_empty() {
            result.final_url = Some(state.snapshot.url.clone());
        }
        self.reporter.emit(Event::Finished {
            result: result.clone(),
        });
        result
    }

    /// What the network guard stops: the plugin's commit patterns always,
    /// and, while an unapproved action runs, posts and navigations to the
    /// service's own sites.
    fn guard_rules(&self, state: &State) -> GuardRules {
        let m = &self.service.metadata;
        GuardRules {
            origins: state.allowed_origins.clone(),
            commit_requests: m
                .commit_requests
                .iter()
                .map(|r| (r.method.clone(), r.url_pattern.clone()))
                .collect(),
            commit_urls: m.commit_url_patterns.clone(),
        }
    }

    fn allowed_origins(&self) -> Vec<String> {
        let mut origins: Vec<String> = self
            .service
            .metadata
            .allowed_origins
            .iter()
            .filter_map(|o| origin_of(o))
            .collect();
        if self.options.local_copy
            && let Some(origin) = origin_of(&self.options.start_url)
        {
            origins.push(origin);
        }
        origins
    }

    async fn run_loop(&mut self, state: &mut State) -> Result<TaskResult, Error> {
        self.reporter.busy("Opening the browser…");
        if self.options.checkpoints {
            let rules = self.guard_rules(state);
            let installed = timed(
                &mut state.timing.browser,
                NetworkGuard::install(self.browser, &rules),
            )
            .await?;
            state.guard = Some(installed);
        }
        timed(
            &mut state.timing.browser,
            self.browser.navigate(&self.options.start_url),
        )
        .await?;
        state.snapshot = timed(
            &mut state.timing.browser,
            self.toolset.look(self.browser, None),
        )
        .await?;
        self.mask_passwords(state).await;
        if let Some(ended) = self.watch_auth(state).await? {
            return Ok(ended);
        }
        let dismissed = self.clear_overlays(state).await?;
        let page = self.toolset.observe(&state.snapshot);
        // The goal is in the system prompt; this message is the page.
        let mut first = format!("Current page:\n{page}");
        for note in dismissed {
            first.push_str(&format!("\n{note}"));
        }
        if let Some(hints) = self.hints(state) {
            first.push_str(&format!("\n\n{hints}"));
        }
        state.history.push(Message::User(first));
        self.attach_screenshot(state).await;
        let system = prompt::system_prompt(&self.service.metadata, &self.service.plan);
        let mut tools = self.toolset.tools();
        tools.extend(virtual_tools::specs());
        let mut no_action = 0;
        loop {
            let verdict = self.plugin_verdict(&state.snapshot).await;
            if let Some(ended) = self.dead_end(&verdict, state) {
                return Ok(ended);
            }
            if state.turn >= self.options.max_turns {
                return Ok(
                    TaskResult::new(false, false, TaskReason::MaxTurnsExceeded, state.turn)
                        .with_error(format!("no result after {} turns", self.options.max_turns)),
                );
            }
            state.turn += 1;
            // The clocks run for the whole run; a turn's share is the
            // difference from here.
            let turn_timing = state.timing;
            let turn_started = Instant::now();
            let request = Request {
                system: system.clone(),
                messages: history::for_request(&state.history, &*self.toolset),
                tools: tools.clone(),
                max_tokens: MAX_REPLY_TOKENS,
            };
            let Some(mut completion) = self.next_completion(&request, state, verdict).await? else {
                return Ok(
                    TaskResult::new(false, false, TaskReason::Closed, state.turn)
                        .with_error("the MCP client closed the session before the run ended"),
                );
            };
            let repair = self.call_in_text(&mut completion, &tools, state.turn);
            if completion.tool_calls.is_empty() {
                self.report_timing(state, &turn_timing, turn_started);
            }
            let Some(call) = completion.tool_calls.first().cloned() else {
                no_action += 1;
                if no_action >= MAX_NO_ACTION_REPLIES {
                    return Ok(
                        TaskResult::new(false, false, TaskReason::LlmNoAction, state.turn)
                            .with_error("the model answered three times without calling a tool"),
                    );
                }
                state.history.push(Message::Assistant {
                    text: completion.text.clone(),
                    tool_calls: Vec::new(),
                });
                let prompt =
                    repair.map_or_else(|| NUDGE.to_owned(), |p| textcall::repair_prompt(&p));
                state.history.push(Message::User(prompt));
                continue;
            };
            no_action = 0;
            if completion.tool_calls.len() > 1 {
                tracing::debug!(
                    "Ignoring {} additional tool calls",
                    completion.tool_calls.len() - 1
                );
            }
            // Only the executed call enters the history: providers require a
            // result for every call they see.
            state.history.push(Message::Assistant {
                text: completion.text.clone(),
                tool_calls: vec![call.clone()],
            });
            if self.options.dry_run {
                return Ok(self.dry_run(&call, state));
            }
            let outcome = self.step(&call, state).await?;
            self.report_timing(state, &turn_timing, turn_started);
            match outcome {
                step::Turn::Continue { content, is_error } => {
                    if let Driver::Client(client) = &mut self.driver {
                        client.deliver(&content, is_error);
                    }
                    state.history.push(Message::ToolResult {
                        call_id: call.id.clone(),
                        content,
                        is_error,
                    });
                    self.attach_screenshot(state).await;
                }
                step::Turn::End(result) => return Ok(*result),
            }
        }
    }

    /// Puts the screenshot of the latest look (`--vision`) in the history
    /// after the message that described the page. Without a new look (a
    /// refused call) the last picture still shows the page, so it stays.
    /// A picture that cannot be taken, read or sent only costs the model
    /// the picture, but then the older ones go too: they show a page that
    /// is gone.
    async fn attach_screenshot(&mut self, state: &mut State) {
        let image = match self.toolset.take_screenshot_for_model() {
            None => return,
            Some(ModelScreenshot::Failed) => None,
            Some(ModelScreenshot::Taken(path)) => match read_image(&path).await {
                Ok(data) => Some(data),
                Err(why) => {
                    tracing::warn!("screenshot {} not sent to the model: {why}", path.display());
                    None
                }
            },
        };
        state
            .history
            .retain(|m| !matches!(m, Message::Image { .. }));
        if let Some(data) = image {
            state.history.push(Message::Image {
                media_type: SCREENSHOT_MEDIA_TYPE.to_owned(),
                data_base64: base64::engine::general_purpose::STANDARD.encode(data),
            });
        }
    }

    /// The next move; `None` when an MCP client closed its session.
    async fn next_completion(
        &mut self,
        request: &Request,
        state: &mut State,
        verdict: Result<Verdict, String>,
    ) -> Result<Option<Completion>, Error> {
        let replaying = state.replay.as_ref().is_some_and(|r| !r.handed_over());
        // A client's model is sent nothing by the host: its client already
        // holds the page the last result carried. Nor is a replayed step.
        if !matches!(self.driver, Driver::Client(_)) && !replaying {
            let (images, image_chars) = request_images(request);
            self.reporter.emit(Event::ModelRequest {
                turn: state.turn,
                messages: request.messages.len(),
                tools: request.tools.len(),
                chars: request_chars(request),
                images,
                image_chars,
            });
        }
        let started = Instant::now();
        // The offline policy and the replay trust the host's verification
        // and nothing else.
        let verified = state.dialog.is_none()
            && (matches!(self.driver, Driver::Offline(_)) || replaying)
            && matches!(
                self.judge(verdict.unwrap_or_else(could_not_verify), state),
                safety::Verification::Verified | safety::Verification::AlreadyCancelled
            );
        if replaying && let Some(completion) = self.replayed(verified, state) {
            self.reporter.emit(Event::ModelReply {
                turn: state.turn,
                text: completion.text.clone(),
                tool_calls: completion
                    .tool_calls
                    .iter()
                    .map(|c| c.name.clone())
                    .collect(),
                usage: Tokens::default(),
                elapsed_ms: millis(started),
            });
            return Ok(Some(completion));
        }
        let completion = match &mut self.driver {
            Driver::Model(provider) => {
                self.reporter.busy("Waiting for the model…");
                provider.complete(request).await.map_err(Error::from)?
            }
            Driver::Offline(policy) => driver::offline_completion(
                policy,
                &*self.toolset,
                &state.snapshot,
                verified,
                state.turn,
            ),
            Driver::Client(client) => {
                self.reporter.busy("Waiting for the MCP client…");
                match client.next().await {
                    Some(completion) => completion,
                    None => return Ok(None),
                }
            }
        };
        state.timing.model += started.elapsed();
        let usage = Tokens::from(completion.usage);
        state.usage.add(usage);
        self.reporter.emit(Event::ModelReply {
            turn: state.turn,
            text: completion.text.clone(),
            tool_calls: completion
                .tool_calls
                .iter()
                .map(|c| c.name.clone())
                .collect(),
            usage,
            elapsed_ms: millis(started),
        });
        Ok(Some(completion))
    }

    /// A model that wrote its call as text instead of calling the tool:
    /// the call is read from the text (and checked like any call). Returns
    /// what was wrong when the text meant a call that cannot be used.
    fn call_in_text(
        &mut self,
        completion: &mut Completion,
        tools: &[ToolSpec],
        turn: u32,
    ) -> Option<String> {
        if !completion.tool_calls.is_empty() || !matches!(self.driver, Driver::Model(_)) {
            return None;
        }
        let read = textcall::read(completion.text.as_deref()?, tools);
        let (tool, problem) = match read {
            TextCall::None => return None,
            TextCall::Call(mut call) => {
                call.id = format!("text-{turn}");
                let tool = call.name.clone();
                completion.tool_calls.push(call);
                (Some(tool), None)
            }
            TextCall::Invalid(problem) => (None, Some(problem)),
        };
        self.reporter.emit(Event::CallInText {
            turn,
            tool,
            problem: problem.clone(),
        });
        problem
    }

    fn report_timing(&mut self, state: &State, before: &Timing, started: Instant) {
        let total = started.elapsed();
        let t = state.timing.since(before);
        let host = total.saturating_sub(t.model + t.browser + t.human);
        let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.reporter.emit(Event::TurnTiming {
            turn: state.turn,
            total_us: us(total),
            model_us: us(t.model),
            browser_us: us(t.browser),
            human_us: us(t.human),
            host_us: us(host),
            safety_us: us(t.safety),
        });
    }

    fn dry_run(&mut self, call: &ToolCall, state: &State) -> TaskResult {
        let arguments = call.arguments.clone().unwrap_or(serde_json::Value::Null);
        let target = self
            .toolset
            .translate(&call.name, &arguments, &state.snapshot)
            .ok()
            .and_then(|a| a.target)
            .map(|e| toolset::describe(&e));
        self.reporter.emit(Event::DryRun {
            tool: call.name.clone(),
            target: target.clone(),
            arguments: arguments.clone(),
        });
        TaskResult::new(false, false, TaskReason::DryRun, state.turn).with_error(format!(
            "DRY-RUN: Would execute {}({arguments}){}",
            call.name,
            target.map(|t| format!(" on {t}")).unwrap_or_default()
        ))
    }

    /// The plugin's verdict, or why it could not give one.
    pub(super) async fn plugin_verdict(&self, snapshot: &Snapshot) -> Result<Verdict, String> {
        let snapshot = snapshot.clone();
        plugin::call_blocking(&self.service.plugin, move |p| p.verify(&snapshot))
            .await
            .map_err(|e| e.to_string())
    }

    /// The plugin's verdict; a failing plugin is "not verified".
    pub(super) async fn verify(&self, snapshot: &Snapshot) -> Verdict {
        self.plugin_verdict(snapshot)
            .await
            .unwrap_or_else(could_not_verify)
    }

    /// Ends the run when, before anything was committed, the plugin says the
    /// page cannot lead to a cancellation here: billed through another
    /// company, cancellable only by phone, an error. Its reason says where to
    /// cancel instead; going on could only guess. A plugin that fails to
    /// answer ends nothing: its silence is not a verdict.
    fn dead_end(&self, verdict: &Result<Verdict, String>, state: &State) -> Option<TaskResult> {
        if state.approved_commit || state.dialog.is_some() {
            return None;
        }
        let Ok(Verdict::Failure(why)) = verdict else {
            return None;
        };
        Some(
            TaskResult::new(false, true, TaskReason::CannotCancelHere, state.turn)
                .with_error(why.clone()),
        )
    }
}

/// A plugin that fails to answer has not verified anything.
fn could_not_verify(error: String) -> Verdict {
    Verdict::Failure(format!("the plugin could not verify: {error}"))
}
