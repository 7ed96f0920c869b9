//! How a run ended: the result the CLI prints, records and turns into the
//! process's exit code.

use serde::Serialize;

use crate::error::Error;
use crate::exit::{EXIT_SUCCESS, ErrorClass};
use crate::llm::Usage;

/// Why a run ended: the Python prototype's seven reasons, then this host's.
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
    /// The page showed the subscription already cancelled; this run
    /// cancelled nothing.
    AlreadyCancelled,
    /// Before anything was committed, the plugin recognised a page that
    /// cannot lead to a cancellation here (billed through another company,
    /// phone only); the error says where to cancel instead.
    CannotCancelHere,
    AuthRequired,
    /// The page said it was cancelled, but nothing the run let through with
    /// a yes can have done it: a change to check by hand, never a success.
    UnverifiedChange,
    Interrupted,
    /// An MCP client closed its session, or left it idle, before the run
    /// ended.
    Closed,
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
    /// What the tokens cost in US dollars at list price; `None` for a
    /// model whose price is not known (`llm::pricing`).
    pub cost_usd: Option<f64>,
    /// Where the run's time went.
    pub time: TimeSplit,
    /// Who proposed the run's browser steps.
    pub steps: StepsBy,
    /// What the host sent its model (none under the offline policy, an
    /// MCP client, or a plan that knew the way).
    pub asked: Asked,
    pub exit_code: u8,
}

impl TaskResult {
    pub fn new(success: bool, verified: bool, reason: TaskReason, turns: u32) -> Self {
        let exit_code = match reason {
            _ if success => EXIT_SUCCESS,
            TaskReason::DryRun => EXIT_SUCCESS,
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
            cost_usd: None,
            time: TimeSplit::default(),
            steps: StepsBy::default(),
            asked: Asked::default(),
            exit_code,
        }
    }

    pub(crate) fn with_error(mut self, error: impl Into<String>) -> Self {
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

/// The browser steps of a run, by who proposed them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StepsBy {
    /// The plugin's plan: the offline policy, or plan first before a model.
    pub plan: u32,
    /// The remembered path.
    pub remembered: u32,
    /// A model: the host's, or an MCP client's.
    pub model: u32,
}

/// The requests a run sent its model, and their size in characters: every
/// character of system prompt, messages and tool schemas (images apart).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Asked {
    pub requests: u32,
    pub chars: u64,
}

/// Tokens a run used, as the providers counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// Every input token, cached or not.
    pub input: u64,
    pub output: u64,
    /// Of `input`, read from the provider's prompt cache.
    pub cached: u64,
    /// Of `input`, written to the prompt cache.
    pub cache_write: u64,
}

impl Tokens {
    pub(crate) fn add(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
        self.cache_write += other.cache_write;
    }
}

impl From<Usage> for Tokens {
    fn from(u: Usage) -> Self {
        Self {
            input: u.input_tokens,
            output: u.output_tokens,
            cached: u.cache_read_tokens,
            cache_write: u.cache_write_tokens,
        }
    }
}

impl From<Tokens> for Usage {
    fn from(t: Tokens) -> Self {
        Self {
            input_tokens: t.input,
            output_tokens: t.output,
            cache_read_tokens: t.cached,
            cache_write_tokens: t.cache_write,
        }
    }
}

/// Where a run's time went, in milliseconds: waiting for the model, the
/// browser's work, the person's answers, and the host's own share (the
/// rest of the run's wall time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TimeSplit {
    pub total_ms: u64,
    pub model_ms: u64,
    pub browser_ms: u64,
    pub human_ms: u64,
    pub host_ms: u64,
}
