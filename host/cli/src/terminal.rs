//! The terminal's side of runs: it reads a run's (or a batch's) feed and
//! shows it — each event as lines on stdout, a spinner while the run waits
//! (on a terminal only, never in a pipe or a batch), notices, and each
//! question with its `Approve? [y/N]: ` prompt, whose answer it reads from
//! stdin. Under `--json` nothing but questions and notices is shown, on
//! stderr, so stdout stays one JSON value. Several runs at once (a batch)
//! label their lines with the service and ask one question at a time.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anstream::{eprint, eprintln, print, println};
use tokio::sync::mpsc;

use crate::console::Console;
use subterminator_core::approval::Answer;
use subterminator_core::browser::tools as mcp;
use subterminator_core::feed::{Ask, Envelope, Update};
use subterminator_core::feed::{Event, TaskReason, TaskResult};

/// How often the spinner redraws.
const SPINNER_TICK: Duration = Duration::from_millis(100);

/// What is shown, and how.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Lines for a person on stdout; `false` under `--json`.
    pub human: bool,
    pub verbose: bool,
    /// Several runs share the terminal: lines are labelled with the run's
    /// service, questions say who asks, and there is no spinner.
    pub batch: bool,
}

/// Reads `feed` until every run has hung up, showing what comes and
/// answering questions from `console`.
pub async fn serve(
    mut feed: mpsc::UnboundedReceiver<Envelope>,
    mut console: Console,
    options: Options,
) {
    let mut terminal = Terminal {
        options,
        tty: std::io::stdout().is_terminal() && std::io::stderr().is_terminal() && !options.batch,
        spinner: None,
        names: HashMap::new(),
        records: HashMap::new(),
    };
    while let Some(Envelope { from, update }) = feed.recv().await {
        match update {
            Update::Record(dir) => {
                terminal.records.insert(from, dir);
            }
            Update::Event(event) => {
                terminal.idle();
                if terminal.options.human {
                    terminal.show(&from, &event);
                }
            }
            Update::Waiting(Some(what)) => terminal.busy(&what),
            Update::Waiting(None) => terminal.idle(),
            Update::Notice(text) => terminal.notice(&from, &text),
            Update::Question(mut question) => {
                terminal.idle();
                let ask = question.ask.clone();
                let answered = tokio::select! {
                    answer = terminal.answer(&from, &ask, &mut console) => Some(answer),
                    () = question.withdrawn() => None,
                };
                match answered {
                    Some(answer) => question.answer(answer),
                    // The run stopped waiting (Ctrl+C): the prompt's line ends.
                    None if terminal.options.human => println!(),
                    None => eprintln!(),
                }
            }
        }
    }
    terminal.idle();
}

struct Terminal {
    options: Options,
    /// Both streams are a terminal (a spinner may be drawn).
    tty: bool,
    spinner: Option<indicatif::ProgressBar>,
    /// Each run's service name, from its first event.
    names: HashMap<Option<String>, String>,
    /// Each run's record folder.
    records: HashMap<Option<String>, PathBuf>,
}

impl Terminal {
    /// A spinner while waiting; only on a terminal, never in a pipe.
    fn busy(&mut self, what: &str) {
        if !self.options.human || !self.tty {
            return;
        }
        self.idle();
        let spinner = indicatif::ProgressBar::new_spinner();
        spinner.set_message(what.to_owned());
        spinner.enable_steady_tick(SPINNER_TICK);
        self.spinner = Some(spinner);
    }

    fn idle(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }

    /// Shows `ask` and reads the person's answer.
    async fn answer(&mut self, from: &Option<String>, ask: &Ask, console: &mut Console) -> Answer {
        match ask {
            Ask::Approval(request) => {
                console.forget_typed_ahead();
                self.prompt(from, &request.render());
                Answer::parse(console.read_line().await.as_deref())
            }
            Ask::SignIn { .. } => {
                self.notice(
                    from,
                    "Do it in the browser window, then press Enter here to continue.",
                );
                match console.read_line().await {
                    Some(_) => Answer::Approved,
                    None => Answer::Rejected,
                }
            }
        }
    }

    /// A line the person must see even under `--json` (then on stderr).
    fn notice(&mut self, from: &Option<String>, text: &str) {
        self.idle();
        let text = match from {
            Some(label) if self.options.batch => format!("[{label}] {text}"),
            _ => text.to_owned(),
        };
        if self.options.human {
            println!("{text}");
        } else {
            eprintln!("{text}");
        }
    }

    /// The question and `Approve? [y/N]: `, on stderr under `--json`; in a
    /// batch it says which service asks.
    fn prompt(&mut self, from: &Option<String>, rendered: &str) {
        let text = match from {
            Some(who) if self.options.batch => format!(
                "\n[{}] asks:\n{rendered}Approve? [y/N]: ",
                subterminator_core::text::sanitize(who)
            ),
            _ => format!("\n{rendered}Approve? [y/N]: "),
        };
        if self.options.human {
            print!("{text}");
            let _ = std::io::Write::flush(&mut std::io::stdout());
        } else {
            eprint!("{text}");
        }
    }

    fn show(&mut self, from: &Option<String>, event: &Event) {
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
                self.names.insert(from.clone(), display_name.clone());
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
                ..
            } => {
                let shown = target.clone().or_else(|| headline(tool, arguments));
                match shown {
                    Some(t) => say!("{bold}[Turn {turn}]{bold:#} {tool} {t}"),
                    None => say!("{bold}[Turn {turn}]{bold:#} {tool}"),
                }
                if self.options.verbose {
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
                if self.options.verbose
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
                let name = self.names.get(from).cloned().unwrap_or_default();
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
                if let Some(dir) = self.records.get(from) {
                    say!("{dim}Run record: {}{dim:#}", dir.display());
                }
            }
            Event::ReceiptWritten { files } => {
                if let (Some(dir), Some(first)) = (self.records.get(from), files.first()) {
                    say!("Receipt: {}", dir.join(first).display());
                }
            }
            Event::Overlay {
                kind,
                button,
                dismissed: true,
                ..
            } => say!("{dim}  ↳ dismissed {}: {button}{dim:#}", kind.describe()),
            Event::HandedOver {
                from,
                replayed,
                why,
                to,
                ..
            } => say!("{dim}  ↳ {from} took {replayed} step(s); {why}: {to} takes over{dim:#}"),
            Event::ModelReply { .. }
            | Event::Overlay { .. }
            | Event::Recovered { .. }
            | Event::PageWaitedFor { .. }
            | Event::Remembered { .. }
            | Event::CallInText { .. }
            | Event::ModelRequest { .. }
            | Event::TurnTiming { .. }
            | Event::CheckpointPassed { .. }
            | Event::DialogAnswered { .. }
            | Event::GuardBlocked { .. }
            | Event::GuardHeld { .. }
            | Event::Released { .. }
            | Event::ApprovalAsked { .. }
            | Event::Observed { .. }
            | Event::Verification { .. } => {}
        }
        self.print(from, &out);
    }

    /// Prints `text`, each line labelled in a batch.
    fn print(&self, from: &Option<String>, text: &str) {
        match from {
            Some(label) if self.options.batch => {
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
            _ => print!("{text}"),
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
    use subterminator_core::feed::{TaskReason, TaskResult, TimeSplit, Tokens};

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
