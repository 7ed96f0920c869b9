//! The turn loop: the model (or the offline policy) proposes one tool call
//! per turn; the host validates it, resolves its target from the latest
//! snapshot, asks the human BEFORE anything irreversible, runs it, takes a
//! fresh snapshot, watches for sign-in walls, and only believes "success"
//! when the service plugin verifies it on the page.

mod events;
pub mod history;
pub mod offline;
pub mod profile;
pub mod schema;
mod step;
mod virtual_tools;

use std::path::Path;
use std::time::Instant;

use base64::Engine as _;
use serde::Serialize;

pub use events::{Event, Reporter};
pub use offline::OfflinePolicy;
pub use profile::{ModelScreenshot, ToolProfile, compact::CompactProfile, full::FullProfile};

use crate::approval::Console;
use crate::browser::Browser;
use crate::error::{Error, ErrorClass};
use crate::llm::{Completion, Message, Provider, Request, ToolCall, Usage};
use crate::page::Snapshot;
use crate::plugin::{self, ServiceEntry, Verdict};

/// Turns one run may take unless told otherwise (seed 000 §2.4).
pub const DEFAULT_MAX_TURNS: u32 = 20;
/// Replies in a row with no tool call before the run gives up.
pub const MAX_NO_ACTION_REPLIES: u32 = 3;
/// Output tokens one model reply may use; one tool call needs few.
pub const MAX_REPLY_TOKENS: u32 = 1024;
/// How many sign-in pauses one run allows before it gives up.
pub const MAX_AUTH_PAUSES: u32 = 3;

/// Largest screenshot sent to the model, in bytes of PNG: both APIs refuse
/// images much past a few MiB (Anthropic: 5 MB once base64-encoded), and a
/// bigger one would mostly be cost.
pub const MAX_MODEL_IMAGE_BYTES: u64 = 2 * 1024 * 1024;

/// What the profiles' screenshots are.
const SCREENSHOT_MEDIA_TYPE: &str = "image/png";

/// Said to the model when it answers without calling a tool.
pub const NUDGE: &str = "Call a tool or complete_task.";

/// Why a run ended (seed 000 §5.1, plus what this host adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskReason {
    Completed,
    HumanRejected,
    MaxTurnsExceeded,
    LlmNoAction,
    LlmError,
    McpError,
    VerificationFailed,
    AuthRequired,
    Interrupted,
    DryRun,
}

impl std::fmt::Display for TaskReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        f.write_str(&text)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskResult {
    pub success: bool,
    pub verified: bool,
    pub reason: TaskReason,
    pub turns: u32,
    pub final_url: Option<String>,
    pub error: Option<String>,
    pub usage: Tokens,
    pub exit_code: u8,
}

impl TaskResult {
    fn new(success: bool, verified: bool, reason: TaskReason, turns: u32) -> Self {
        let exit_code = match reason {
            _ if success => 0,
            TaskReason::DryRun => 0,
            TaskReason::Interrupted => ErrorClass::Interrupted.exit_code(),
            _ => ErrorClass::Failure.exit_code(),
        };
        Self {
            success,
            verified,
            reason,
            turns,
            final_url: None,
            error: None,
            usage: Tokens::default(),
            exit_code,
        }
    }

    fn with_error(mut self, error: impl Into<String>) -> Self {
        self.error = Some(error.into());
        self
    }

    /// A run cut short by an error the loop cannot hand to the model.
    pub fn from_error(error: &Error, turns: u32) -> Self {
        let reason = match error {
            Error::Llm(_) => TaskReason::LlmError,
            Error::Interrupted => TaskReason::Interrupted,
            _ => TaskReason::McpError,
        };
        let mut result = Self::new(false, false, reason, turns).with_error(error.to_string());
        result.exit_code = error.class().exit_code();
        result
    }
}

/// Tokens a run used, as the providers counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

impl Tokens {
    fn add(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
    }
}

impl From<Usage> for Tokens {
    fn from(u: Usage) -> Self {
        Self {
            input: u.input_tokens,
            output: u.output_tokens,
        }
    }
}

/// Who decides each turn.
pub enum Driver {
    Model(Box<dyn Provider>),
    Offline(OfflinePolicy),
}

impl Driver {
    pub fn label(&self) -> String {
        match self {
            Driver::Model(p) => format!("{} ({})", p.model(), p.name()),
            Driver::Offline(_) => "offline policy (no model)".into(),
        }
    }
}

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
}

/// Everything one run works with.
pub struct Agent<'a> {
    pub service: &'a ServiceEntry,
    pub browser: &'a Browser,
    pub driver: Driver,
    pub profile: Box<dyn ToolProfile>,
    pub console: &'a mut Console,
    pub reporter: &'a mut Reporter,
    pub options: RunOptions,
}

/// Where one turn's time went; the rest is the host's own overhead.
#[derive(Debug, Default, Clone, Copy)]
struct Timing {
    model: std::time::Duration,
    browser: std::time::Duration,
    human: std::time::Duration,
}

/// The loop's state between turns.
struct State {
    timing: Timing,
    snapshot: Snapshot,
    history: Vec<Message>,
    usage: Tokens,
    turn: u32,
    allowed_origins: Vec<String>,
    auth_pauses: u32,
}

impl Agent<'_> {
    /// Runs to the end. Errors the model cannot be told about (the model or
    /// the browser gone) still end in a [`TaskResult`] with the right exit code.
    pub async fn run(mut self) -> TaskResult {
        let mut state = State {
            timing: Timing::default(),
            snapshot: Snapshot::default(),
            history: Vec::new(),
            usage: Tokens::default(),
            turn: 0,
            allowed_origins: self.allowed_origins(),
            auth_pauses: 0,
        };
        self.reporter.emit(Event::RunStarted {
            service: self.service.metadata.id.clone(),
            display_name: self.service.metadata.display_name.clone(),
            model: self.driver.label(),
            start_url: self.options.start_url.clone(),
            local_copy: self
                .options
                .local_copy
                .then(|| self.options.start_url.clone()),
            tools: self.profile.name().into(),
            max_turns: self.options.max_turns,
            checkpoints: self.options.checkpoints,
        });
        let mut result = match self.run_loop(&mut state).await {
            Ok(result) => result,
            Err(error) => TaskResult::from_error(&error, state.turn),
        };
        result.usage = state.usage;
        if result.final_url.is_none() && !state.snapshot.url.is_empty() {
            result.final_url = Some(state.snapshot.url.clone());
        }
        self.reporter.emit(Event::Finished {
            result: result.clone(),
        });
        result
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
        self.browser.navigate(&self.options.start_url).await?;
        state.snapshot = self.profile.look(self.browser, None).await?;
        if let Some(ended) = self.watch_auth(state).await? {
            return Ok(ended);
        }
        let page = self.profile.observe(&state.snapshot);
        state.history.push(Message::User(format!(
            "Goal: {}\n\nCurrent page:\n{page}",
            self.service.metadata.goal
        )));
        self.attach_screenshot(state).await;
        let system = self.system_prompt();
        let mut tools = self.profile.tools();
        tools.extend(virtual_tools::specs());
        let mut no_action = 0;
        loop {
            if state.turn >= self.options.max_turns {
                return Ok(
                    TaskResult::new(false, false, TaskReason::MaxTurnsExceeded, state.turn)
                        .with_error(format!("no result after {} turns", self.options.max_turns)),
                );
            }
            state.turn += 1;
            state.timing = Timing::default();
            let turn_started = Instant::now();
            let request = Request {
                system: system.clone(),
                messages: history::for_request(&state.history, &*self.profile),
                tools: tools.clone(),
                max_tokens: MAX_REPLY_TOKENS,
            };
            let completion = self.next_completion(&request, state).await?;
            if completion.tool_calls.is_empty() {
                self.report_timing(state, turn_started);
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
                state.history.push(Message::User(NUDGE.into()));
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
            self.report_timing(state, turn_started);
            match outcome {
                step::Step::Continue { content, is_error } => {
                    state.history.push(Message::ToolResult {
                        call_id: call.id.clone(),
                        content,
                        is_error,
                    });
                    self.attach_screenshot(state).await;
                }
                step::Step::End(result) => return Ok(*result),
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
        let image = match self.profile.take_screenshot_for_model() {
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

    async fn next_completion(
        &mut self,
        request: &Request,
        state: &mut State,
    ) -> Result<Completion, Error> {
        let (images, image_chars) = request_images(request);
        self.reporter.emit(Event::ModelRequest {
            turn: state.turn,
            messages: request.messages.len(),
            tools: request.tools.len(),
            chars: request_chars(request),
            images,
            image_chars,
        });
        let started = Instant::now();
        let verified = match self.driver {
            Driver::Offline(_) => matches!(self.verify(&state.snapshot).await, Verdict::Success),
            Driver::Model(_) => false,
        };
        let completion = match &mut self.driver {
            Driver::Model(provider) => {
                self.reporter.busy("Waiting for the model…");
                provider.complete(request).await.map_err(Error::from)?
            }
            Driver::Offline(policy) => offline_completion(
                policy,
                &*self.profile,
                &state.snapshot,
                verified,
                state.turn,
            ),
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
        Ok(completion)
    }

    fn report_timing(&mut self, state: &State, started: Instant) {
        let total = started.elapsed();
        let t = state.timing;
        let host = total.saturating_sub(t.model + t.browser + t.human);
        let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.reporter.emit(Event::TurnTiming {
            turn: state.turn,
            total_us: us(total),
            model_us: us(t.model),
            browser_us: us(t.browser),
            human_us: us(t.human),
            host_us: us(host),
        });
    }

    fn dry_run(&mut self, call: &ToolCall, state: &State) -> TaskResult {
        let arguments = call.arguments.clone().unwrap_or(serde_json::Value::Null);
        let target = self
            .profile
            .translate(&call.name, &arguments, &state.snapshot)
            .ok()
            .and_then(|a| a.target)
            .map(|e| profile::describe(&e));
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

    fn system_prompt(&self) -> String {
        let m = &self.service.metadata;
        let mut prompt = format!(
            "You are controlling a web browser to accomplish a task.\n\n\
             IMPORTANT RULES:\n\
             1. Element refs are only valid for the latest page snapshot. After any action, you get a fresh page with new refs.\n\
             2. Call one tool at a time. Wait for the result before deciding what to do next.\n\
             3. Always check the page carefully before acting.\n\
             4. Call complete_task when done or when you determine the goal cannot be achieved.\n\
             5. Stay on {}'s own pages. A human approves irreversible steps; if a step is refused, follow the human's feedback.\n\n\
             CURRENT GOAL: {}\n",
            m.display_name, m.goal
        );
        if !m.system_prompt_addition.is_empty() {
            prompt.push_str(&format!("\n{}\n", m.system_prompt_addition));
        }
        if !self.service.plan.is_empty() {
            prompt.push_str("\nThe usual steps (hints, not a script; trust the page):\n");
            for (i, step) in self.service.plan.iter().enumerate() {
                prompt.push_str(&format!(
                    "{}. {} (done when: {})\n",
                    i + 1,
                    step.description,
                    step.done_when
                ));
            }
        }
        prompt
    }

    /// The plugin's verdict; a failing plugin is "not verified".
    async fn verify(&self, snapshot: &Snapshot) -> Verdict {
        let snapshot = snapshot.clone();
        match plugin::call_blocking(&self.service.plugin, move |p| p.verify(&snapshot)).await {
            Ok(verdict) => verdict,
            Err(e) => Verdict::Failure(format!("the plugin could not verify: {e}")),
        }
    }
}

/// The offline policy's move as a model would have made it.
fn offline_completion(
    policy: &mut OfflinePolicy,
    profile: &dyn ToolProfile,
    snapshot: &Snapshot,
    verified: bool,
    turn: u32,
) -> Completion {
    let (text, name, arguments) = match policy.next(snapshot, verified) {
        offline::Move::Act {
            step,
            description,
            hint,
            element,
        } => {
            let (name, args) = profile.offline_call(hint.action, &element, hint.value.as_deref());
            (format!("Step {step}: {description}"), name, args)
        }
        offline::Move::Complete { success, reason } => (
            reason.clone(),
            "complete_task".to_owned(),
            serde_json::json!({ "status": if success { "success" } else { "failed" }, "reason": reason }),
        ),
    };
    Completion {
        text: Some(text),
        tool_calls: vec![ToolCall {
            id: format!("offline-{turn}"),
            name,
            arguments: Ok(arguments),
        }],
        usage: Usage::default(),
        stop_reason: Some("tool_use".into()),
    }
}

/// The size of a request in characters, for the run record.
fn request_chars(request: &Request) -> usize {
    let messages: usize = request
        .messages
        .iter()
        .map(|m| match m {
            Message::User(text) => text.len(),
            Message::Assistant { text, tool_calls } => {
                text.as_ref().map_or(0, String::len)
                    + tool_calls
                        .iter()
                        .map(|c| {
                            c.name.len() + c.arguments.as_ref().map_or(0, |a| a.to_string().len())
                        })
                        .sum::<usize>()
            }
            Message::ToolResult { content, .. } => content.len(),
            // Counted apart by `request_images`: an image's size in
            // characters says little about its tokens.
            Message::Image { .. } => 0,
        })
        .sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum();
    request.system.len() + messages + tools
}

/// How many images a request carries, and their base64 characters.
fn request_images(request: &Request) -> (usize, usize) {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Image { data_base64, .. } => Some(data_base64.len()),
            _ => None,
        })
        .fold((0, 0), |(n, chars), len| (n + 1, chars + len))
}

/// The bytes of a screenshot for the model, or why it is not sent.
async fn read_image(path: &Path) -> Result<Vec<u8>, ImageSkipped> {
    let io = |source| ImageSkipped::Unreadable { source };
    let size = tokio::fs::metadata(path).await.map_err(io)?.len();
    if size > MAX_MODEL_IMAGE_BYTES {
        return Err(ImageSkipped::TooBig { size });
    }
    tokio::fs::read(path).await.map_err(io)
}

/// Why a screenshot stays out of the conversation.
#[derive(Debug, thiserror::Error)]
enum ImageSkipped {
    #[error("it cannot be read: {source}")]
    Unreadable { source: std::io::Error },
    #[error("it is {size} bytes, over the {MAX_MODEL_IMAGE_BYTES}-byte limit")]
    TooBig { size: u64 },
}

/// `scheme://host:port` of a URL, or `None` when it has no such origin.
pub fn origin_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    match parsed.origin() {
        origin @ url::Origin::Tuple(..) => Some(origin.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

/// Runs `work`, adding the time it took to `clock`: how a turn's time is
/// split between the model, the browser, the human and the host.
async fn timed<T>(
    clock: &mut std::time::Duration,
    work: impl std::future::Future<Output = T>,
) -> T {
    let started = Instant::now();
    let out = work.await;
    *clock += started.elapsed();
    out
}

fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[tokio::test]
    async fn screenshots_past_the_cap_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("small.png", 1_000, true),
            ("at-cap.png", MAX_MODEL_IMAGE_BYTES, true),
            ("over-cap.png", MAX_MODEL_IMAGE_BYTES + 1, false),
        ];
        for (name, size, sent) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, vec![0u8; usize::try_from(size).unwrap()]).unwrap();
            let read = read_image(&path).await;
            assert_eq!(read.is_ok(), sent, "{name}");
            if !sent {
                assert!(matches!(read, Err(ImageSkipped::TooBig { size: s }) if s == size));
            }
        }
        let missing = read_image(&dir.path().join("none.png")).await;
        assert!(matches!(missing, Err(ImageSkipped::Unreadable { .. })));
    }

    #[test]
    fn the_run_record_counts_images_by_size_only() {
        let request = Request {
            system: "s".into(),
            messages: vec![
                Message::User("goal".into()),
                Message::Image {
                    media_type: SCREENSHOT_MEDIA_TYPE.into(),
                    data_base64: "A".repeat(4_000),
                },
            ],
            tools: Vec::new(),
            max_tokens: MAX_REPLY_TOKENS,
        };
        assert_eq!(request_chars(&request), "s".len() + "goal".len());
        assert_eq!(request_images(&request), (1, 4_000));
    }
}
