//! The human's side of a run's events: lines on stdout (a spinner while
//! waiting, on a terminal only) and the approval prompt; the same events go
//! to the run record. Several runs at once (a batch) label their lines.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::time::Duration;

use anstream::{eprint, eprintln, print, println};

use super::events::Event;
use super::{TaskReason, TaskResult};
use crate::approval::{Answer, ApprovalRequest};
use crate::browser::tools as mcp;
use crate::record::RunRecord;

/// How often the spinner redraws.
const SPINNER_TICK: Duration = Duration::from_millis(100);

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
    /// Put before each line when several runs share the terminal.
    label: Option<String>,
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
            label: None,
        }
    }

    /// The same reporter, its lines starting `[label] ` and without a
    /// spinner: several runs print at once, and spinners would overwrite
    /// each other's lines.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self.terminal = false;
        self
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
        let text = match &self.label {
            Some(label) => format!("[{label}] {text}"),
            None => text.to_owned(),
        };
        if self.human {
            println!("{text}");
        } else {
            eprintln!("{text}");
        }
    }

    fn show(&mut self, event: &Event) {
        let mut out = String::new();
        // One event's lines, printed together (with the label) at the end.
        macro_rules! say {
            ($($arg:tt)*) => {{
                let _ = writeln!(out, $($arg)*);
            }};
        }
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
                    Some(url) => say!(
                        "Starting {display_name} cancellation on a local copy at {url} (its origin joins the allowed origins)..."
                    ),
                    None => say!("Starting {display_name} cancellation..."),
                }
                say!("{dim}Driven by: {model}{dim:#}");
                if !checkpoints {
                    say!(
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
                    Some(t) => say!("{bold}[Turn {turn}]{bold:#} {tool} {t}"),
                    None => say!("{bold}[Turn {turn}]{bold:#} {tool}"),
                }
                if self.verbose {
                    say!("{dim}  arguments: {arguments}{dim:#}");
                }
            }
            Event::Refused { why, .. } => say!("{dim}  ↳ refused: {why}{dim:#}"),
            Event::ToolResult {
                ok, error, page, ..
            } => {
                if !ok && let Some(error) = error {
                    say!("{dim}  ↳ {error}{dim:#}");
                }
                if self.verbose
                    && let Some(page) = page
                {
                    say!("{dim}{page}{dim:#}");
                }
            }
            Event::ApprovalAnswered { answer, .. } => match answer {
                Answer::Approved => {}
                Answer::Rejected => say!("{red}Rejected.{red:#}"),
                Answer::Unavailable(why) => say!("{red}Not approved: {why}.{red:#}"),
                Answer::Feedback(text) => {
                    say!("{dim}  ↳ not approved; telling the model: {text}{dim:#}")
                }
            },
            Event::Verification {
                verified: false,
                detail,
                ..
            } => {
                say!("{dim}  ↳ not verified: {detail}{dim:#}");
            }
            Event::AuthRequired { message, .. } => say!("{bold}{message}{bold:#}"),
            Event::DryRun {
                tool,
                target,
                arguments,
            } => {
                let t = target.clone().unwrap_or_default();
                say!("Dry run: the model's first action would be {tool} {t}");
                say!("  arguments: {arguments}");
                say!("Nothing was executed.");
            }
            Event::Finished { result } => {
                let name = &self.display_name;
                if result.success {
                    say!(
                        "\n{green}✓{green:#} {name} cancellation completed successfully ({} turns)",
                        result.turns
                    );
                } else if result.reason == TaskReason::DryRun {
                } else if result.reason == TaskReason::CannotCancelHere {
                    let why = result.error.clone().unwrap_or_default();
                    say!(
                        "\n{red}✗{red:#} {name} cannot be cancelled here: {why}\n  Nothing was changed by this run."
                    );
                } else {
                    let why = result
                        .error
                        .clone()
                        .unwrap_or_else(|| result.reason.to_string());
                    say!(
                        "\n{red}✗{red:#} {name} cancellation not completed: {} ({why}, {} turns)",
                        result.reason,
                        result.turns
                    );
                }
                if result.reason != TaskReason::DryRun {
                    say!("{dim}{}{dim:#}", spent(result));
                }
                if let Some(record) = &self.record {
                    say!("{dim}Run record: {}{dim:#}", record.dir().display());
                }
            }
            Event::ReceiptWritten { files } => {
                if let (Some(record), Some(first)) = (&self.record, files.first()) {
                    say!("Receipt: {}", record.dir().join(first).display());
                }
            }
            Event::Overlay {
                kind,
                button,
                dismissed: true,
                ..
            } => say!("{dim}  ↳ dismissed {}: {button}{dim:#}", kind.describe()),
            Event::HandedOver {
                replayed, why, to, ..
            } => say!(
                "{dim}  ↳ replayed {replayed} remembered step(s); {why}: {to} takes over{dim:#}"
            ),
            Event::ModelReply { .. }
            | Event::Overlay { .. }
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
        self.print(&out);
    }

    /// Prints `text`, each line labelled in a batch.
    fn print(&self, text: &str) {
        match &self.label {
            None => print!("{text}"),
            Some(label) => {
                let mut labelled = String::new();
                for line in text.lines() {
                    if line.is_empty() {
                        labelled.push('\n');
                    } else {
                        let _ = writeln!(labelled, "[{label}] {line}");
                    }
                }
                print!("{labelled}");
            }
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
    use crate::agent::{TaskReason, TaskResult, Tokens};

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
