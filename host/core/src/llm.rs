//! The model layer: one provider trait, spoken over plain HTTP (reqwest) to the
//! Anthropic Messages API and to OpenAI Chat Completions, which also covers any
//! OpenAI-compatible local server (Ollama, llama.cpp, vLLM, LM Studio).
//!
//! The agent holds a provider-neutral history ([`Message`]) and a list of
//! [`ToolSpec`]s; each provider converts them to its own wire format, keeping
//! that provider's pairing rules, and turns whatever comes back into a
//! [`Completion`]. What the model sends is data, never an error: invalid JSON
//! arguments, unknown tool names, several calls or text alone all arrive as
//! values the agent can answer.

pub mod anthropic;
pub mod choice;
mod conversation;
mod error;
pub mod openai;
pub mod pricing;
mod retry;
mod settings;
pub mod textcall;
mod tools;
mod transport;

use std::future::Future;
use std::ops::AddAssign;
use std::pin::Pin;

pub use anthropic::AnthropicProvider;
pub use choice::{ModelChoice, ProviderKind, WireFormat};
pub use conversation::NOT_EXECUTED;
pub use error::LlmError;
pub use openai::OpenAiProvider;
pub use settings::{
    ANTHROPIC_VERSION, ApiKey, BACKOFF_BASE, CONNECT_TIMEOUT, DEFAULT_ANTHROPIC_BASE_URL,
    DEFAULT_MAX_ATTEMPTS, DEFAULT_OPENAI_BASE_URL, LlmSettings, MAX_BACKOFF, MAX_RETRY_AFTER,
    MAX_TOOL_NAME_CHARS, ProviderEnv, REQUEST_TIMEOUT, UNREADABLE_REPLY_RETRIES,
};

/// The model used when neither `--model`, `SUBTERMINATOR_MODEL` nor the config
/// file names one.
pub const DEFAULT_MODEL: &str = "claude-opus-4-6";

/// The environment variable that chooses the model when `--model` is absent.
pub const MODEL_ENV: &str = "SUBTERMINATOR_MODEL";

/// A future that can be stored behind `dyn Provider`; `async fn` in traits
/// would make the trait impossible to use as an object.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool the model may call, as an MCP server (or the agent's own virtual
/// tools) describes it. Each provider converts the schema to its own shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

/// One entry of the provider-neutral history. The system prompt travels
/// separately in [`Request::system`] because the two APIs place it differently.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    User(String),
    Assistant {
        text: Option<String>,
        tool_calls: Vec<ToolCall>,
    },
    ToolResult {
        call_id: String,
        content: String,
        is_error: bool,
    },
    /// A picture on the user's side (the page under `--vision`). It joins
    /// the user turn it falls in, after that turn's tool results, since
    /// neither API lets anything come between a call and its result.
    Image {
        /// `image/png`, ... as both APIs name it.
        media_type: String,
        /// The file's bytes, base64 (standard alphabet, padded).
        data_base64: String,
    },
}

/// A tool call as the model sent it. The name is not checked against the
/// tools offered, and arguments that are not valid JSON are kept as an error
/// value, so the agent can answer the model instead of crashing.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Result<serde_json::Value, InvalidArguments>,
}

/// Arguments the model sent that could not be used as a JSON object: the text
/// exactly as received and why it was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool arguments ({error}): {raw}")]
pub struct InvalidArguments {
    pub raw: String,
    pub error: String,
}

/// What one model call produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Completion {
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// The provider's own word (`tool_use`, `end_turn`, `tool_calls`, `stop`,
    /// `max_tokens`, `length`, ...), kept for the run record.
    pub stop_reason: Option<String>,
}

/// Tokens billed for a call. Summed over a run with `+=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Every input token, cached or not, so the total reflects the prompt's size.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of `input_tokens`, those read from the provider's prompt cache
    /// (billed at a fraction of the input price).
    pub cache_read_tokens: u64,
    /// Of `input_tokens`, those written to it (Anthropic bills a premium).
    pub cache_write_tokens: u64,
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
    }
}

impl std::iter::Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        let mut total = Usage::default();
        for usage in iter {
            total += usage;
        }
        total
    }
}

/// One call's input.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
    /// Whether the conversation up to its newest tool result is sent again
    /// unchanged on the next request, so a provider's prompt cache could
    /// read it back. `false` when older turns are summarised afresh each
    /// time: a cache written there would never be read.
    pub cache_history: bool,
}

/// A model the agent can ask for the next step. Object-safe so the agent can
/// hold `Box<dyn Provider>` and tests can plug in a deterministic policy.
pub trait Provider: Send + Sync {
    /// Which provider this is (`anthropic`, `openai`, `ollama`, ...), for logs
    /// and the run record.
    fn name(&self) -> &str;
    fn model(&self) -> &str;
    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Completion, LlmError>>;
}

/// Builds the provider a [`ModelChoice`] names, with its key and base URL
/// taken from `env` (and `choice.base_url`, which wins over the environment).
///
/// A key is required unless the base URL is a local address, so Ollama and
/// friends work without one.
pub fn connect(
    choice: &ModelChoice,
    env: &ProviderEnv,
    settings: &LlmSettings,
) -> Result<Box<dyn Provider>, LlmError> {
    let endpoint = settings::Endpoint::resolve(choice, env)?;
    let transport = transport::Transport::new(choice.provider, endpoint, settings.clone())?;
    Ok(match choice.provider.wire_format() {
        WireFormat::Anthropic => Box::new(AnthropicProvider::new(&choice.model, transport)?),
        WireFormat::OpenAi => Box::new(OpenAiProvider::new(
            choice.provider,
            &choice.model,
            transport,
        )?),
    })
}

/// The start of a provider's response body, for an error message.
fn excerpt(body: &serde_json::Value) -> String {
    let text = body.to_string();
    crate::text::truncate(&text, EXCERPT_CHARS, crate::text::ELLIPSIS).into_owned()
}

/// How much of an unreadable response body an error quotes.
const EXCERPT_CHARS: usize = 200;
