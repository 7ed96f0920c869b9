//! One stream of events per run. The same events become the human's lines on
//! stdout (with a spinner on a terminal) and the JSONL run record, so the two
//! never disagree.

use std::io::IsTerminal;
use std::time::Duration;

use anstream::{eprint, eprintln, print, println};
use serde::Serialize;

use super::TaskResult;
use super::Tokens;
use crate::approval::{Answer, ApprovalRequest};
use crate::browser::tools as mcp;
use crate::record::RunRecord;

/// How often the spinner redraws.
const SPINNER_TICK: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    RunStarted {
        service: String,
        display_name: String,
        model: String,
        start_url: String,
        /// Set when `--start-url` points the plugin at a local copy.
        local_copy: Option<String>,
        tools: String,
        max_turns: u32,
        checkpoints: bool,
        /// Which plugin ran: id, version, API, SHA-256 and where it came from.
        plugin: crate::plugin::Provenance,
    },
    /// What was sent to the model this turn, in summary.
    ModelRequest {
        turn: u32,
        messages: usize,
        tools: usize,
        /// Characters of system prompt, text messages and tool schemas;
        /// images are counted apart, by size only (never their data).
        chars: usize,
        /// Images sent (`--vision`): at most the latest screenshot.
        images: usize,
        /// Base64 characters of those images.
        image_chars: usize,
    },
    ModelReply {
        turn: u32,
        text: Option<String>,
        tool_calls: Vec<String>,
        usage: Tokens,
        elapsed_ms: u64,
    },
    ToolCall {
        turn: u32,
        tool: String,
        /// The element as resolved from the page, e.g. `button "Cancel Membership"`.
        target: Option<String>,
        arguments: serde_json::Value,
    },
    Refused {
        turn: u32,
        tool: String,
        code: String,
        why: String,
    },
    ToolResult {
        turn: u32,
        tool: String,
        ok: bool,
        error: Option<String>,
        url: String,
        elapsed_ms: u64,
        /// The page text the model was shown; in the record always, on screen with -v.
        page: Option<String>,
    },
    CheckpointPassed {
        turn: u32,
        reason: String,
    },
    /// Requests the network guard stopped during an unapproved action.
    GuardBlocked {
        turn: u32,
        requests: Vec<crate::browser::guard::BlockedRequest>,
    },
    /// A dialog the host answered by itself (alerts, `beforeunload`).
    DialogAnswered {
        turn: u32,
        kind: String,
        message: String,
        accepted: bool,
    },
    ApprovalAsked {
        turn: u32,
        request: ApprovalRequest,
    },
    ApprovalAnswered {
        turn: u32,
        answer: Answer,
    },
    Verification {
        turn: u32,
        verified: bool,
        detail: String,
    },
    AuthRequired {
        turn: u32,
        kind: String,
        message: String,
        url: String,
    },
    /// Where a turn's time went; `host_us` is everything but the model, the
    /// browser and the human.
    TurnTiming {
        turn: u32,
        total_us: u64,
        model_us: u64,
        browser_us: u64,
        human_us: u64,
        host_us: u64,
        /// The safety layers' share of the turn (within the figures above).
        safety_us: u64,
    },
    DryRun {
        tool: String,
        target: Option<String>,
        arguments: serde_json::Value,
    },
    Finished {
        result: TaskResult,
    },
    /// The receipt of a verified success, in the run folder.
    ReceiptWritten {
        files: Vec<String>,
    },
}

/// Where events go: the run record always, the human's screen unless
/// `--json` asked for one machine-readable object instead.
pub struct Reporter {
    record: Option<RunRecord>,
    human: bool,
    verbose: bool,
    display_name: String,
    spinner: Option<indicatif::ProgressBar>,
    terminal: bool,
    /// A copy of every event, for a front-end that reports progress its
    /// own way (the MCP server's notifications).
    tap: Option<tokio::sync::mpsc::UnboundedSender<Event>>,
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reporter")
            .field("human", &self.human)
            .finish_non_exhaustive()
    }
}

impl Reporter {
    pub fn new(record: Option<RunRecord>, human: bool, verbose: bool) -> Self {
        Self {
            record,
            human,
            verbose,
            display_name: String::new(),
            spinner: None,
            terminal: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
            tap: None,
        }
    }

    /// The same reporter, also sending a copy of every event to `tap`.
    pub fn with_tap(mut self, tap: tokio::sync::mpsc::UnboundedSender<Event>) -> Self {
        self.tap = Some(tap);
        self
    }

    pub fn record(&mut self) -> Option<&mut RunRecord> {
        self.record.as_mut()
    }

    pub fn emit(&mut self, event: Event) {
        self.idle();
        if let Some(record) = &mut self.record
            && let Err(e) = record.append(&event)
        {
            tracing::warn!("{e}");
        }
        if self.human {
            self.show(&event);
        }
        if let Some(tap) = &self.tap
            && tap.send(event).is_err()
        {
            self.tap = None;
        }
    }

    /// A spinner while waiting; only on a terminal, never in a pipe.
    pub fn busy(&mut self, what: &str) {
        if !self.human || !self.terminal {
            return;
        }
        self.idle();
        let spinner = indicatif::ProgressBar::new_spinner();
        spinner.set_message(what.to_owned());
        spinner.enable_steady_tick(SPINNER_TICK);
        self.spinner = Some(spinner);
    }

    pub fn idle(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }

    /// Shows the approval request and the `Approve? [y/N]: ` prompt. On
    /// stderr under `--json`, so stdout stays one JSON object.
    pub fn prompt_approval(&mut self, request: &ApprovalRequest) {
        self.idle();
        if self.human {
            print!("\n{}Approve? [y/N]: ", request.render());
            let _ = std::io::Write::flush(&mut std::io::stdout());
        } else {
            eprint!("\n{}Approve? [y/N]: ", request.render());
        }
    }

    /// A line the human must see even under `--json` (sign-in hand-offs).
    pub fn notice(&mut self, text: &str) {
        self.idle();
        if self.human {
            println!("{text}");
        } else {
            eprintln!("{text}");
        }
    }

    fn show(&mut self, event: &Event) {
        let bold = anstyle::Style::new().bold();
        let green = anstyle::AnsiColor::Green.on_default().bold();
        let red = anstyle::AnsiColor::Red.on_default().bold();
        let dim = anstyle::Style::new().dimmed();
        match event {
            Event::RunStarted {
                display_name,
                local_copy,
                checkpoints,
                model,
                ..
            } => {
                self.display_name.clone_from(display_name);
                match local_copy {
                    Some(url) => println!(
                        "Starting {display_name} cancellation on a local copy at {url} (its origin joins the allowed origins)..."
                    ),
                    None => println!("Starting {display_name} cancellation..."),
                }
                println!("{dim}Driven by: {model}{dim:#}");
                if !checkpoints {
                    println!(
                        "{red}WARNING: --no-checkpoint is for testing only: nothing will ask before irreversible steps.{red:#}"
                    );
                }
            }
            Event::ToolCall {
                turn,
                tool,
                target,
                arguments,
            } => {
                let shown = target.clone().or_else(|| headline(tool, arguments));
                match shown {
                    Some(t) => println!("{bold}[Turn {turn}]{bold:#} {tool} {t}"),
                    None => println!("{bold}[Turn {turn}]{bold:#} {tool}"),
                }
                if self.verbose {
                    println!("{dim}  arguments: {arguments}{dim:#}");
                }
            }
            Event::Refused { why, .. } => println!("{dim}  ↳ refused: {why}{dim:#}"),
            Event::ToolResult {
                ok, error, page, ..
            } => {
                if !ok && let Some(error) = error {
                    println!("{dim}  ↳ {error}{dim:#}");
                }
                if self.verbose
                    && let Some(page) = page
                {
                    println!("{dim}{page}{dim:#}");
                }
            }
            Event::ApprovalAnswered { answer, .. } => match answer {
                Answer::Approved => {}
                Answer::Rejected => println!("{red}Rejected.{red:#}"),
                Answer::Unavailable(why) => println!("{red}Not approved: {why}.{red:#}"),
                Answer::Feedback(text) => {
                    println!("{dim}  ↳ not approved; telling the model: {text}{dim:#}")
                }
            },
            Event::Verification {
                verified: false,
                detail,
                ..
            } => {
                println!("{dim}  ↳ not verified: {detail}{dim:#}");
            }
            Event::AuthRequired { message, .. } => println!("{bold}{message}{bold:#}"),
            Event::DryRun {
                tool,
                target,
                arguments,
            } => {
                let t = target.clone().unwrap_or_default();
                println!("Dry run: the model's first action would be {tool} {t}");
                println!("  arguments: {arguments}");
                println!("Nothing was executed.");
            }
            Event::Finished { result } => {
                let name = &self.display_name;
                if result.success {
                    println!(
                        "\n{green}✓{green:#} {name} cancellation completed successfully ({} turns)",
                        result.turns
                    );
                } else if result.reason == super::TaskReason::DryRun {
                } else if result.reason == super::TaskReason::CannotCancelHere {
                    let why = result.error.clone().unwrap_or_default();
                    println!(
                        "\n{red}✗{red:#} {name} cannot be cancelled here: {why}\n  Nothing was changed by this run."
                    );
                } else {
                    let why = result
                        .error
                        .clone()
                        .unwrap_or_else(|| result.reason.to_string());
                    println!(
                        "\n{red}✗{red:#} {name} cancellation not completed: {} ({why}, {} turns)",
                        result.reason, result.turns
                    );
                }
                if let Some(record) = &self.record {
                    println!("{dim}Run record: {}{dim:#}", record.dir().display());
                }
            }
            Event::ReceiptWritten { files } => {
                if let (Some(record), Some(first)) = (&self.record, files.first()) {
                    println!("Receipt: {}", record.dir().join(first).display());
                }
            }
            Event::ModelReply { .. }
            | Event::ModelRequest { .. }
            | Event::TurnTiming { .. }
            | Event::CheckpointPassed { .. }
            | Event::DialogAnswered { .. }
            | Event::GuardBlocked { .. }
            | Event::ApprovalAsked { .. }
            | Event::Verification { .. } => {}
        }
    }
}

/// What to show after the tool name when no element was resolved.
fn headline(tool: &str, arguments: &serde_json::Value) -> Option<String> {
    let field = match tool {
        "complete_task" => "status",
        mcp::NAVIGATE => "url",
        mcp::PRESS_KEY => "key",
        "request_human_approval" => "action",
        "browser_scroll" => "direction",
        _ => return None,
    };
    arguments
        .get(field)
        .and_then(|v| v.as_str())
        .map(|s| format!("\"{s}\""))
}
