//! Which model, and therefore which provider. The first of `--model`,
//! `SUBTERMINATOR_MODEL` and the config file that is set wins, else
//! [`DEFAULT_MODEL`]. Names say their provider (`claude-*`, `gpt-*`, OpenAI's
//! o-series); anything else needs an explicit `provider:model` such as
//! `ollama:qwen2.5:7b`.

use super::{DEFAULT_MODEL, LlmError};

/// Who serves the model. Local servers all speak OpenAI's wire format and
/// differ only in where they listen by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    Ollama,
    LlamaCpp,
    Vllm,
    LmStudio,
}

/// The two request/response formats this crate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireFormat {
    Anthropic,
    OpenAi,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 6] = [
        ProviderKind::Anthropic,
        ProviderKind::OpenAi,
        ProviderKind::Ollama,
        ProviderKind::LlamaCpp,
        ProviderKind::Vllm,
        ProviderKind::LmStudio,
    ];

    /// The name used in `provider:model` and reported by `Provider::name`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Ollama => "ollama",
            ProviderKind::LlamaCpp => "llamacpp",
            ProviderKind::Vllm => "vllm",
            ProviderKind::LmStudio => "lmstudio",
        }
    }

    pub fn from_prefix(prefix: &str) -> Option<ProviderKind> {
        let prefix = prefix.to_ascii_lowercase();
        Self::ALL.into_iter().find(|kind| kind.as_str() == prefix)
    }

    pub const fn wire_format(self) -> WireFormat {
        match self {
            ProviderKind::Anthropic => WireFormat::Anthropic,
            _ => WireFormat::OpenAi,
        }
    }

    /// Where the server listens when no base URL is configured. OpenAI-style
    /// URLs include `/v1`; Anthropic's is the root, as in each provider's SDK.
    pub const fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => super::DEFAULT_ANTHROPIC_BASE_URL,
            ProviderKind::OpenAi => super::DEFAULT_OPENAI_BASE_URL,
            ProviderKind::Ollama => "http://localhost:11434/v1",
            ProviderKind::LlamaCpp => "http://localhost:8080/v1",
            ProviderKind::Vllm => "http://localhost:8000/v1",
            ProviderKind::LmStudio => "http://localhost:1234/v1",
        }
    }

    /// The variable holding this provider's key (and, by the same family, its
    /// base URL): every OpenAI-format server reads the OpenAI ones, as the
    /// OpenAI SDK does when pointed at a compatible server.
    pub const fn key_env(self) -> &'static str {
        match self.wire_format() {
            WireFormat::Anthropic => "ANTHROPIC_API_KEY",
            WireFormat::OpenAi => "OPENAI_API_KEY",
        }
    }

    pub const fn base_url_env(self) -> &'static str {
        match self.wire_format() {
            WireFormat::Anthropic => "ANTHROPIC_BASE_URL",
            WireFormat::OpenAi => "OPENAI_BASE_URL",
        }
    }

    /// The Python prototype's message, word for word.
    pub(crate) fn missing_key_message(self) -> String {
        match self.wire_format() {
            WireFormat::Anthropic => "Missing ANTHROPIC_API_KEY. Set it via environment variable \
                 or use --model gpt-4o with OPENAI_API_KEY."
                .to_owned(),
            WireFormat::OpenAi => "Missing OPENAI_API_KEY. Set it via environment variable \
                 or use a Claude model with ANTHROPIC_API_KEY."
                .to_owned(),
        }
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub provider: ProviderKind,
    /// The model name as the provider knows it (the `provider:` prefix removed).
    pub model: String,
    /// A base URL from the command line or config file; it wins over
    /// `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`. `resolve` leaves it empty.
    pub base_url: Option<String>,
}

impl ModelChoice {
    /// Picks the first non-empty of the three sources, else [`DEFAULT_MODEL`],
    /// and works out its provider. Pure: the caller reads the environment.
    pub fn resolve(
        cli: Option<&str>,
        env_model: Option<&str>,
        config_model: Option<&str>,
    ) -> Result<ModelChoice, LlmError> {
        Self::parse(wanted(cli, env_model, config_model).unwrap_or(DEFAULT_MODEL))
    }

    pub fn parse(name: &str) -> Result<ModelChoice, LlmError> {
        let unsupported = || LlmError::UnsupportedModel {
            name: name.to_owned(),
        };
        if let Some((prefix, model)) = name.split_once(':')
            && let Some(provider) = ProviderKind::from_prefix(prefix)
        {
            if model.trim().is_empty() {
                return Err(unsupported());
            }
            return Ok(Self::new(provider, model));
        }
        let provider = if name.starts_with("claude-") {
            ProviderKind::Anthropic
        } else if name.starts_with("gpt-") || name.starts_with("chatgpt-") || is_o_series(name) {
            ProviderKind::OpenAi
        } else {
            return Err(unsupported());
        };
        Ok(Self::new(provider, name))
    }

    fn new(provider: ProviderKind, model: &str) -> ModelChoice {
        ModelChoice {
            provider,
            model: model.to_owned(),
            base_url: None,
        }
    }
}

/// The model asked for, if any: the first of `--model`, the environment and
/// the config file that is set, trimmed. Empty and blank values count as
/// unset wherever they come from. The one place precedence is decided.
pub fn wanted<'a>(
    cli: Option<&'a str>,
    env_model: Option<&'a str>,
    config_model: Option<&'a str>,
) -> Option<&'a str> {
    [cli, env_model, config_model]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|name| !name.is_empty())
}

/// OpenAI's reasoning models: `o1`, `o3-mini`, `o4-mini-2025-04-16`, ...
fn is_o_series(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('o') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (rest.len() == digits || rest[digits..].starts_with('-'))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn precedence_is_cli_then_env_then_config_then_default() {
        type Case<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>, &'a str);
        let cases: [Case; 7] = [
            (Some("gpt-4o"), Some("claude-x-1"), Some("o3"), "gpt-4o"),
            (None, Some("claude-x-1"), Some("o3"), "claude-x-1"),
            (None, None, Some("o3"), "o3"),
            (None, None, None, DEFAULT_MODEL),
            // An empty value (`SUBTERMINATOR_MODEL=`) counts as unset.
            (Some(""), Some("  "), Some("gpt-4.1"), "gpt-4.1"),
            (None, Some(""), None, DEFAULT_MODEL),
            (Some(" gpt-4o "), None, None, "gpt-4o"),
        ];
        for (cli, env, config, expected) in cases {
            let choice = ModelChoice::resolve(cli, env, config).unwrap();
            assert_eq!(choice.model, expected, "{cli:?} {env:?} {config:?}");
            assert_eq!(choice.base_url, None);
        }
    }

    #[test]
    fn provider_table() {
        use ProviderKind::*;
        let cases = [
            ("claude-opus-4-6", Anthropic, "claude-opus-4-6"),
            (
                "claude-sonnet-4-20250514",
                Anthropic,
                "claude-sonnet-4-20250514",
            ),
            ("claude-future-9", Anthropic, "claude-future-9"),
            ("gpt-4o", OpenAi, "gpt-4o"),
            ("gpt-4-turbo", OpenAi, "gpt-4-turbo"),
            ("chatgpt-4o-latest", OpenAi, "chatgpt-4o-latest"),
            ("o1", OpenAi, "o1"),
            ("o3-mini", OpenAi, "o3-mini"),
            ("o4-mini-2025-04-16", OpenAi, "o4-mini-2025-04-16"),
            ("ollama:qwen2.5:7b", Ollama, "qwen2.5:7b"),
            ("Ollama:llama3.2", Ollama, "llama3.2"),
            ("llamacpp:local", LlamaCpp, "local"),
            (
                "vllm:meta-llama/Llama-3.1-8B-Instruct",
                Vllm,
                "meta-llama/Llama-3.1-8B-Instruct",
            ),
            (
                "lmstudio:qwen2.5-7b-instruct",
                LmStudio,
                "qwen2.5-7b-instruct",
            ),
            ("openai:my-finetune", OpenAi, "my-finetune"),
            ("anthropic:claude-via-proxy", Anthropic, "claude-via-proxy"),
        ];
        for (name, provider, model) in cases {
            let choice = ModelChoice::parse(name).unwrap();
            assert_eq!(
                (choice.provider, choice.model.as_str()),
                (provider, model),
                "{name}"
            );
        }
    }

    #[test]
    fn unsupported_models_name_themselves() {
        for name in [
            "llama3",
            "qwen2.5:7b",
            "ollama:",
            "claude",
            "gpt4",
            "o",
            "oX",
            "o1x",
            "gemini-2.0",
            "unknown:model",
        ] {
            let err = ModelChoice::parse(name).unwrap_err();
            let shown = err.to_string();
            assert!(
                shown.starts_with(&format!("Unsupported model: {name}. Choose ")),
                "{shown}"
            );
            assert_eq!(err.class(), crate::exit::ErrorClass::Configuration);
        }
    }

    #[test]
    fn missing_key_messages_are_the_prototypes() {
        assert_eq!(
            ProviderKind::Anthropic.missing_key_message(),
            "Missing ANTHROPIC_API_KEY. Set it via environment variable or use --model gpt-4o with OPENAI_API_KEY."
        );
        assert_eq!(
            ProviderKind::OpenAi.missing_key_message(),
            "Missing OPENAI_API_KEY. Set it via environment variable or use a Claude model with ANTHROPIC_API_KEY."
        );
    }
}
