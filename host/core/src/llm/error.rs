//! What can go wrong talking to a model, each failure named by its meaning
//! (as goose's `providers/errors.rs` names them). Every message ends with what
//! a person can do about it, [`LlmError::fix`], so the run's last line is
//! never a dead end. Every text that came from a server has been through the
//! transport's redaction before it lands here, so no variant can carry an API
//! key.

use std::fmt;
use std::time::Duration;

use super::ProviderKind;
use crate::exit::ErrorClass;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// A configuration problem told in a text written whole at its call
    /// site, which must end with its fix as a sentence of its own: the
    /// Python prototype's missing-key message is one, kept word for word.
    /// [`LlmError::fix`] reads that last sentence back.
    #[error("{0}")]
    Configuration(String),

    /// A model name that says no provider; begins as the Python prototype's.
    #[error("Unsupported model: {name}. {}", self.fix())]
    UnsupportedModel { name: String },

    /// A base URL that is not an http(s) URL with a host. `setting` says
    /// where it came from; `url` has any user:password removed.
    #[error("Invalid {setting} '{url}': {}. {}", Stop(reason), self.fix())]
    InvalidBaseUrl {
        provider: ProviderKind,
        setting: &'static str,
        url: String,
        reason: String,
    },

    /// A key that cannot travel in an HTTP header (a line break, a quote
    /// pasted with it, a non-ASCII character).
    #[error(
        "{} contains characters that cannot be sent in an HTTP header. {}",
        provider.key_env(),
        self.fix()
    )]
    InvalidKey { provider: ProviderKind },

    /// A tool neither API accepts: a bad or repeated name, or a schema that
    /// is not an object.
    #[error("Tool '{name}' {}. {}", Stop(reason), self.fix())]
    InvalidTool { name: String, reason: String },

    /// The HTTP client could not be set up, or a request could not be built.
    #[error("Cannot {action}: {}. {}", Stop(message), self.fix())]
    HttpSetup { action: String, message: String },

    /// One attempt ran past the per-call limit. Not retried: a model that
    /// needs more than a minute to answer will most likely need it again, and
    /// the provider bills the abandoned generation.
    #[error("{provider} API call timed out after {}s. {}", timeout.as_secs_f64(), self.fix())]
    Timeout {
        provider: ProviderKind,
        timeout: Duration,
    },

    /// No HTTP answer at all (refused, reset, DNS, TLS), on every attempt.
    #[error(
        "Could not reach the {provider} API at {url} ({attempts} attempts): {}. {}",
        Stop(message),
        self.fix()
    )]
    Unreachable {
        provider: ProviderKind,
        url: String,
        attempts: u32,
        message: String,
    },

    /// The server kept answering 408, 429 or 5xx until the attempts ran out,
    /// or asked us to wait longer than we are willing to.
    #[error(
        "{provider} API unavailable (HTTP {status}, {attempts} attempts): {}. {}",
        Stop(message),
        self.fix()
    )]
    Unavailable {
        provider: ProviderKind,
        status: u16,
        attempts: u32,
        message: String,
    },

    /// A 4xx that retrying cannot fix, with the provider's own message.
    #[error(
        "{provider} API rejected the request (HTTP {status}): {}. {}",
        Stop(message),
        self.fix()
    )]
    Rejected {
        provider: ProviderKind,
        status: u16,
        message: String,
    },

    /// A 2xx whose body could not be read to its end, was not JSON, or was
    /// JSON in another shape than the provider's, on the last attempt made.
    /// Such a reply is tried again [`super::UNREADABLE_REPLY_RETRIES`] times.
    #[error(
        "{provider} API sent a reply that was cut off or not in its format \
         ({attempts} attempts): {}. {}",
        Stop(cause),
        self.fix()
    )]
    UnreadableReply {
        provider: ProviderKind,
        url: String,
        attempts: u32,
        cause: String,
    },
}

impl LlmError {
    /// Which exit code this failure means.
    ///
    /// 401 and 403 are a bad or unauthorised key, and 404 a model name or base
    /// URL the server does not know: all three are fixed in the configuration,
    /// so they exit 2. Other 4xx (400 above all) mean the request itself was
    /// wrong, which is our failure (exit 1). Everything that is about getting
    /// a usable answer at all is a connection failure (exit 3): a reply cut
    /// off twice is, like a dropped connection, the server's or the network's.
    pub fn class(&self) -> ErrorClass {
        match self {
            LlmError::Configuration(_)
            | LlmError::UnsupportedModel { .. }
            | LlmError::InvalidBaseUrl { .. }
            | LlmError::InvalidKey { .. }
            | LlmError::InvalidTool { .. }
            | LlmError::HttpSetup { .. } => ErrorClass::Configuration,
            LlmError::Rejected {
                status: 401 | 403 | 404,
                ..
            } => ErrorClass::Configuration,
            LlmError::Rejected { .. } => ErrorClass::Failure,
            LlmError::Timeout { .. }
            | LlmError::Unreachable { .. }
            | LlmError::Unavailable { .. }
            | LlmError::UnreadableReply { .. } => ErrorClass::Connection,
        }
    }

    /// What a person can do about this failure: the last sentence of its
    /// message, starting with the verb to act on.
    pub fn fix(&self) -> String {
        match self {
            LlmError::Configuration(text) => last_sentence(text).to_owned(),
            LlmError::UnsupportedModel { .. } => {
                let prefixes: Vec<String> = ProviderKind::ALL
                    .iter()
                    .map(|kind| format!("{kind}:"))
                    .collect();
                format!(
                    "Choose a claude-*, gpt-* or o-series model, or put the provider first \
                     ({}), as in ollama:qwen2.5:7b.",
                    prefixes.join(", ")
                )
            }
            LlmError::InvalidBaseUrl { provider, .. } => format!(
                "Set the base URL ({}) to an http:// or https:// URL with a host, such as {}.",
                base_url_settings(*provider),
                provider.default_base_url()
            ),
            LlmError::InvalidKey { provider } => format!(
                "Set {} again to the key alone, without quotes, spaces or line breaks.",
                provider.key_env()
            ),
            LlmError::InvalidTool { .. } => "Fix that tool in the plugin or MCP server that \
                 offers it, or report it to the plugin's author."
                .to_owned(),
            LlmError::HttpSetup { .. } => "Check the base URL and the proxy variables \
                 (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), then try again."
                .to_owned(),
            LlmError::Timeout { .. } => {
                "Wait a minute and try again, or choose a faster model with --model.".to_owned()
            }
            LlmError::Unreachable { provider, .. } => format!(
                "Check your network and that the server is running at the base URL ({}), \
                 then try again.",
                base_url_settings(*provider)
            ),
            LlmError::Unavailable { status: 429, .. } => "Wait a few minutes and try again, \
                 or check the account's rate limits and credit with the provider."
                .to_owned(),
            LlmError::Unavailable { .. } => "Wait a few minutes and try again, or choose \
                 another model with --model."
                .to_owned(),
            LlmError::Rejected {
                provider,
                status: 401,
                ..
            } => format!(
                "Check {}: set it to a valid key for this server.",
                provider.key_env()
            ),
            LlmError::Rejected {
                provider,
                status: 403,
                ..
            } => format!(
                "Check that the key in {} may use this model, or choose another model with \
                 --model.",
                provider.key_env()
            ),
            LlmError::Rejected {
                provider,
                status: 404,
                ..
            } => format!(
                "Choose a model this server serves with --model, or check the base URL ({}).",
                base_url_settings(*provider)
            ),
            LlmError::Rejected { status: 413, .. } => {
                "Try again without --vision or with --tools compact, which send less.".to_owned()
            }
            LlmError::Rejected { .. } => "Choose another model with --model, or report this \
                 as a bug with the run record."
                .to_owned(),
            LlmError::UnreadableReply { provider, url, .. } => format!(
                "Check the server at {url} (base URL: {}) or try again.",
                base_url_settings(*provider)
            ),
        }
    }
}

/// The last sentence of `text`: what follows its last ". ", or all of it.
fn last_sentence(text: &str) -> &str {
    let text = text.trim_end();
    let body = text.trim_end_matches('.');
    body.rfind(". ").map_or(text, |at| &text[at + 2..])
}

/// Every place a base URL can be set, in the order that wins.
fn base_url_settings(provider: ProviderKind) -> String {
    format!(
        "--base-url, base-url in the config file, or {}",
        provider.base_url_env()
    )
}

/// Text that ends a sentence, shown without its own full stop: the message
/// adds one before the fix, and servers' texts often end with theirs.
struct Stop<'a>(&'a str);

impl fmt::Display for Stop<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.trim_end_matches(['.', ' ']))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    /// The verbs a fix may start with: each one an act a person can do.
    const IMPERATIVES: [&str; 6] = ["Set ", "Check ", "Choose ", "Wait ", "Try ", "Fix "];

    /// One number per variant. The match has no wildcard, so a new variant
    /// does not compile until it gets a number here, and
    /// `every_variant_names_its_fix_table` then fails until the table holds
    /// a sample of it.
    fn variant_number(error: &LlmError) -> usize {
        match error {
            LlmError::Configuration(_) => 0,
            LlmError::UnsupportedModel { .. } => 1,
            LlmError::InvalidBaseUrl { .. } => 2,
            LlmError::InvalidKey { .. } => 3,
            LlmError::InvalidTool { .. } => 4,
            LlmError::HttpSetup { .. } => 5,
            LlmError::Timeout { .. } => 6,
            LlmError::Unreachable { .. } => 7,
            LlmError::Unavailable { .. } => 8,
            LlmError::Rejected { .. } => 9,
            LlmError::UnreadableReply { .. } => 10,
        }
    }
    const VARIANTS: usize = 11;

    fn samples() -> Vec<(LlmError, ErrorClass)> {
        use ProviderKind::{Anthropic, Ollama, OpenAi};
        let unavailable = |status| LlmError::Unavailable {
            provider: Anthropic,
            status,
            attempts: 3,
            message: "overloaded_error: Overloaded".into(),
        };
        let rejected = |status| LlmError::Rejected {
            provider: OpenAi,
            status,
            message: "invalid_request_error: Incorrect API key provided.".into(),
        };
        vec![
            (
                LlmError::Configuration(Anthropic.missing_key_message()),
                ErrorClass::Configuration,
            ),
            (
                LlmError::Configuration(Ollama.missing_key_message()),
                ErrorClass::Configuration,
            ),
            (
                LlmError::UnsupportedModel {
                    name: "llama3".into(),
                },
                ErrorClass::Configuration,
            ),
            (
                LlmError::InvalidBaseUrl {
                    provider: OpenAi,
                    setting: "OPENAI_BASE_URL",
                    url: "ftp://host/v1".into(),
                    reason: "scheme 'ftp' is not http or https".into(),
                },
                ErrorClass::Configuration,
            ),
            (
                LlmError::InvalidKey {
                    provider: Anthropic,
                },
                ErrorClass::Configuration,
            ),
            (
                LlmError::InvalidTool {
                    name: "dot.ted".into(),
                    reason: "has the character '.' in its name".into(),
                },
                ErrorClass::Configuration,
            ),
            (
                LlmError::HttpSetup {
                    action: "set up the HTTP client".into(),
                    message: "no TLS backend".into(),
                },
                ErrorClass::Configuration,
            ),
            (
                LlmError::Timeout {
                    provider: OpenAi,
                    timeout: Duration::from_secs(60),
                },
                ErrorClass::Connection,
            ),
            (
                LlmError::Unreachable {
                    provider: Ollama,
                    url: "http://localhost:11434/v1/chat/completions".into(),
                    attempts: 3,
                    message: "connection refused".into(),
                },
                ErrorClass::Connection,
            ),
            (unavailable(429), ErrorClass::Connection),
            (unavailable(529), ErrorClass::Connection),
            (rejected(400), ErrorClass::Failure),
            (rejected(401), ErrorClass::Configuration),
            (rejected(403), ErrorClass::Configuration),
            (rejected(404), ErrorClass::Configuration),
            (rejected(413), ErrorClass::Failure),
            (
                LlmError::UnreadableReply {
                    provider: Anthropic,
                    url: "http://127.0.0.1:8080/v1/messages".into(),
                    attempts: 2,
                    cause: "EOF while parsing a string at line 1 column 149".into(),
                },
                ErrorClass::Connection,
            ),
        ]
    }

    #[test]
    fn every_variant_names_its_fix_table() {
        let samples = samples();
        let mut covered = [false; VARIANTS];
        for (error, class) in &samples {
            covered[variant_number(error)] = true;
            let message = error.to_string();
            let fix = error.fix();
            assert!(
                IMPERATIVES.iter().any(|verb| fix.starts_with(verb)),
                "the fix does not start with an act: {fix}"
            );
            assert!(fix.ends_with('.'), "{fix}");
            assert!(message.ends_with(&fix), "{message}");
            let problem = &message[..message.len() - fix.len()];
            assert!(problem.ends_with(". "), "{message}");
            assert!(!problem.contains(".. "), "{message}");
            assert_eq!(error.class(), *class, "{message}");
        }
        let missing: Vec<usize> = (0..VARIANTS).filter(|n| !covered[*n]).collect();
        assert!(missing.is_empty(), "variants without a sample: {missing:?}");
    }

    #[test]
    fn a_configuration_texts_fix_is_its_last_sentence_table() {
        let cases = [
            ("Missing X. Set it now.", "Set it now."),
            ("Missing X. Set it now. ", "Set it now."),
            (
                "Set SUBTERMINATOR_HOME to a folder.",
                "Set SUBTERMINATOR_HOME to a folder.",
            ),
            ("Bad base. Use ollama:qwen2.5:7b.", "Use ollama:qwen2.5:7b."),
            ("No stop at all", "No stop at all"),
        ];
        for (text, fix) in cases {
            assert_eq!(LlmError::Configuration(text.into()).fix(), fix, "{text}");
        }
    }

    #[test]
    fn messages_read_whole_table() {
        let cases: [(LlmError, &str); 3] = [
            (
                LlmError::Configuration(ProviderKind::LmStudio.missing_key_message()),
                "Missing OPENAI_API_KEY. Set it via environment variable or use a Claude \
                 model with ANTHROPIC_API_KEY.",
            ),
            (
                LlmError::UnsupportedModel {
                    name: "llama3".into(),
                },
                "Unsupported model: llama3. Choose a claude-*, gpt-* or o-series model, or put \
                 the provider first (anthropic:, openai:, ollama:, llamacpp:, vllm:, lmstudio:), \
                 as in ollama:qwen2.5:7b.",
            ),
            (
                LlmError::UnreadableReply {
                    provider: ProviderKind::OpenAi,
                    url: "http://127.0.0.1:8080/v1/chat/completions".into(),
                    attempts: 2,
                    cause: "expected value at line 1 column 1; body: <html>".into(),
                },
                "openai API sent a reply that was cut off or not in its format (2 attempts): \
                 expected value at line 1 column 1; body: <html>. Check the server at \
                 http://127.0.0.1:8080/v1/chat/completions (base URL: --base-url, base-url in \
                 the config file, or OPENAI_BASE_URL) or try again.",
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(error.to_string(), expected);
        }
    }
}
