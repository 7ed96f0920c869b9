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
    /// An interruption (cookie banner, promotion, chat widget) the host
    /// dismissed before the next move, or left alone and why.
    Interruption {
        turn: u32,
        kind: crate::page::interruption::Kind,
        /// The button it pressed, or would have.
        button: String,
        /// Words of the box it sits in.
        context: String,
        url: String,
        dismissed: bool,
        left: Option<String>,
    },
    /// A failed action the host tried once more after mending what was in
    /// the way (`ok`: the retry worked, and the model never heard of it).
    Recovered {
        turn: u32,
        tool: String,
        trouble: super::recover::Trouble,
        /// What the host did first: dismissed, scrolled, waited.
        after: String,
        ok: bool,
    },
    /// The replay of the remembered path stopped matching the page; the
    /// driver (the model, or the plugin's plan offline) goes on from here.
    HandedOver {
        turn: u32,
        /// Steps replayed before.
        replayed: usize,
        why: String,
        to: String,
    },
    /// The model wrote its tool call as text: read and used (`tool`), or
    /// not usable (`problem`, sent back to it as a repair prompt).
    CallInText {
        turn: u32,
        tool: Option<String>,
        problem: Option<String>,
    },
    /// The path this verified run took, remembered for the next.
    Remembered {
        steps: usize,
        file: String,
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
                if result.reason != super::TaskReason::DryRun {
                    println!("{dim}{}{dim:#}", spent(result));
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
            Event::Interruption {
                kind,
                button,
                dismissed: true,
                ..
            } => println!("{dim}  ↳ dismissed {}: {button}{dim:#}", kind.describe()),
            Event::HandedOver {
                replayed, why, to, ..
            } => println!(
                "{dim}  ↳ replayed {replayed} remembered step(s); {why}: {to} takes over{dim:#}"
            ),
            Event::ModelReply { .. }
            | Event::Interruption { .. }
            | Event::Recovered { .. }
            | Event::Remembered { .. }
            | Event::CallInText { .. }
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

/// A run's tokens, cost and time in one line: `Tokens: 9,812 in (7,200
/// cached) · 312 out · $0.0123 · 8.4 s: model 1.2 s, browser 6.6 s, you
/// 0.4 s, host 0.2 s`.
pub fn spent(result: &TaskResult) -> String {
    let t = &result.time;
    let secs = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    let time = format!(
        "{}: model {}, browser {}, you {}, host {}",
        secs(t.total_ms),
        secs(t.model_ms),
        secs(t.browser_ms),
        secs(t.human_ms),
        secs(t.host_ms)
    );
    let u = &result.usage;
    if u.input == 0 && u.output == 0 {
        return format!("Time {time}");
    }
    let cost = result
        .cost_usd
        .map_or_else(|| "cost unknown".to_owned(), |c| format!("${c:.4}"));
    format!(
        "Tokens: {} in ({} cached) · {} out · {cost} · {time}",
        thousands(u.input),
        thousands(u.cached),
        thousands(u.output)
    )
}

/// `12345` → `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::result::TimeSplit;
    use crate::agent::{TaskReason, TaskResult};

    #[test]
    fn thousands_are_grouped() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), want);
        }
    }

    #[test]
    fn the_last_line_says_tokens_cost_and_where_the_time_went() {
        let mut result = TaskResult::new(true, true, TaskReason::Completed, 4);
        result.time = TimeSplit {
            total_ms: 8_400,
            model_ms: 1_200,
            browser_ms: 6_600,
            human_ms: 400,
            host_ms: 200,
        };
        assert_eq!(
            spent(&result),
            "Time 8.4 s: model 1.2 s, browser 6.6 s, you 0.4 s, host 0.2 s"
        );
        result.usage = Tokens {
            input: 9_812,
            output: 312,
            cached: 7_200,
            cache_write: 0,
        };
        result.cost_usd = Some(0.0123);
        assert_eq!(
            spent(&result),
            "Tokens: 9,812 in (7,200 cached) · 312 out · $0.0123 · 8.4 s: model 1.2 s, browser 6.6 s, you 0.4 s, host 0.2 s"
        );
        result.cost_usd = None;
        assert!(spent(&result).contains("cost unknown"));
    }
}
