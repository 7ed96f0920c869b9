//! Limits, keys and base URLs: everything a provider needs besides the model
//! name, and the rule for where its requests go.

use std::net::IpAddr;
use std::time::Duration;

use url::Url;

use super::{LlmError, ModelChoice, WireFormat};

/// Per-attempt limit for one model call, body included; past it, a timeout.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// A server that does not accept the connection within this is treated as
/// unreachable (and retried), long before [`REQUEST_TIMEOUT`].
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts per call, the first one included.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// Times a reply that was cut off or not in the provider's format is asked
/// for again, within [`DEFAULT_MAX_ATTEMPTS`]. A reply cut off by a proxy or
/// a restarting server usually comes whole the second time; one that is
/// broken twice is most likely broken by design (a wrong base URL, a server
/// that speaks another format), and more attempts would only bill more.
pub const UNREADABLE_REPLY_RETRIES: u32 = 1;
/// Wait after the first failed attempt; doubled after each further one.
pub const BACKOFF_BASE: Duration = Duration::from_secs(1);
/// Ceiling for the doubling (1 s, 2 s, 4 s, 4 s, ...), before jitter.
pub const MAX_BACKOFF: Duration = Duration::from_secs(4);
/// The longest `retry-after` we honour; a server asking for more gets an
/// error now rather than a run that silently hangs.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Both providers cap tool names at 64 characters of `[A-Za-z0-9_-]`.
pub const MAX_TOOL_NAME_CHARS: usize = 64;
/// The Messages API version this crate's shapes follow.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// A root, as the Anthropic SDK expects: `/v1/messages` is appended.
pub const DEFAULT_ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// Includes `/v1`, as the OpenAI SDK expects: `/chat/completions` is appended.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmSettings {
    pub timeout: Duration,
    pub max_attempts: u32,
    pub backoff_base: Duration,
    pub max_backoff: Duration,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            timeout: REQUEST_TIMEOUT,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            backoff_base: BACKOFF_BASE,
            max_backoff: MAX_BACKOFF,
        }
    }
}

/// An API key. Prints as `***` and has no `Serialize`, so it cannot reach a
/// log line or a run record by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// Keys and base URLs as the environment gives them. Empty values count as
/// unset, as they do for the providers' SDKs.
#[derive(Debug, Clone, Default)]
pub struct ProviderEnv {
    pub anthropic_api_key: Option<ApiKey>,
    pub openai_api_key: Option<ApiKey>,
    pub anthropic_base_url: Option<String>,
    pub openai_base_url: Option<String>,
}

impl ProviderEnv {
    pub fn from_env() -> ProviderEnv {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> ProviderEnv {
        let read = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        ProviderEnv {
            anthropic_api_key: read("ANTHROPIC_API_KEY").map(|key| ApiKey::new(key.trim())),
            openai_api_key: read("OPENAI_API_KEY").map(|key| ApiKey::new(key.trim())),
            anthropic_base_url: read("ANTHROPIC_BASE_URL"),
            openai_base_url: read("OPENAI_BASE_URL"),
        }
    }

    fn key(&self, format: WireFormat) -> Option<&ApiKey> {
        match format {
            WireFormat::Anthropic => self.anthropic_api_key.as_ref(),
            WireFormat::OpenAi => self.openai_api_key.as_ref(),
        }
    }

    fn base_url(&self, format: WireFormat) -> Option<&str> {
        match format {
            WireFormat::Anthropic => self.anthropic_base_url.as_deref(),
            WireFormat::OpenAi => self.openai_base_url.as_deref(),
        }
    }
}

/// Where one provider's requests go and with which key.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub url: Url,
    /// The URL with any user:password removed, for error messages.
    pub display: String,
    pub key: Option<ApiKey>,
}

impl Endpoint {
    /// Base URL: the choice's (CLI/config) > the environment's > the
    /// provider's default. A key is required unless that URL is local.
    pub fn resolve(choice: &ModelChoice, env: &ProviderEnv) -> Result<Endpoint, LlmError> {
        let format = choice.provider.wire_format();
        let (base, source) = match (
            choice.base_url.as_deref().filter(|b| !b.trim().is_empty()),
            env.base_url(format),
        ) {
            (Some(base), _) => (base, "base URL setting"),
            (None, Some(base)) => (base, choice.provider.base_url_env()),
            (None, None) => (choice.provider.default_base_url(), "default base URL"),
        };
        let url = endpoint_url(base.trim(), format).map_err(|reason| LlmError::InvalidBaseUrl {
            provider: choice.provider,
            setting: source,
            url: without_credentials_str(base),
            reason,
        })?;
        let key = env.key(format).cloned();
        let local = is_local(&url);
        if key.is_none() && !local {
            return Err(LlmError::Configuration(
                choice.provider.missing_key_message(),
            ));
        }
        if key.is_some() && !local && url.scheme() == "http" {
            tracing::warn!(
                provider = %choice.provider,
                "sending the API key over plain http to a non-local server"
            );
        }
        Ok(Endpoint {
            display: without_credentials(&url),
            url,
            key,
        })
    }
}

fn endpoint_url(base: &str, format: WireFormat) -> Result<Url, String> {
    let parsed = Url::parse(base).map_err(|e| e.to_string())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("scheme '{}' is not http or https", parsed.scheme()));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("no host".to_owned());
    }
    let root = base.trim_end_matches('/');
    let path = match format {
        WireFormat::Anthropic => "/v1/messages",
        WireFormat::OpenAi => "/chat/completions",
    };
    Url::parse(&format!("{root}{path}")).map_err(|e| e.to_string())
}

fn without_credentials(url: &Url) -> String {
    let mut url = url.clone();
    // Both setters fail only for URLs that cannot have credentials at all.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

fn without_credentials_str(base: &str) -> String {
    match Url::parse(base) {
        Ok(url) => without_credentials(&url),
        Err(_) if base.contains('@') => "<unparseable URL>".to_owned(),
        Err(_) => base.to_owned(),
    }
}

/// Loopback, private-network and `.localhost`/`.local` hosts: the places an
/// Ollama, llama.cpp, vLLM or LM Studio server listens without a key.
pub(crate) fn is_local(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => {
            let domain = domain.trim_end_matches('.').to_ascii_lowercase();
            domain == "localhost" || domain.ends_with(".localhost") || domain.ends_with(".local")
        }
        Some(url::Host::Ipv4(ip)) => is_local_ip(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => is_local_ip(IpAddr::V6(ip)),
        None => false,
    }
}

fn is_local_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
        }
        IpAddr::V6(ip) => {
            if let Some(v4) = ip.to_ipv4_mapped() {
                return is_local_ip(IpAddr::V4(v4));
            }
            ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_unique_local()
                || ip.is_unicast_link_local()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::exit::ErrorClass;

    fn env(pairs: &[(&str, &str)]) -> ProviderEnv {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        ProviderEnv::from_lookup(move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    fn resolve(model: &str, base: Option<&str>, env: &ProviderEnv) -> Result<Endpoint, LlmError> {
        let mut choice = ModelChoice::parse(model).unwrap();
        choice.base_url = base.map(str::to_owned);
        Endpoint::resolve(&choice, env)
    }

    #[test]
    fn base_url_follows_each_sdk_convention() {
        let keys = env(&[("ANTHROPIC_API_KEY", "ak"), ("OPENAI_API_KEY", "ok")]);
        let url = |model, base| resolve(model, base, &keys).unwrap().url.to_string();
        assert_eq!(
            url("claude-opus-4-6", None),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            url("gpt-4o", None),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            url("ollama:qwen2.5:7b", None),
            "http://localhost:11434/v1/chat/completions"
        );
        assert_eq!(
            url("lmstudio:x", None),
            "http://localhost:1234/v1/chat/completions"
        );
        assert_eq!(
            url("gpt-4o", Some("http://127.0.0.1:9/v1/")),
            "http://127.0.0.1:9/v1/chat/completions"
        );
        assert_eq!(
            url("claude-opus-4-6", Some("https://proxy.example/anthropic")),
            "https://proxy.example/anthropic/v1/messages"
        );
    }

    #[test]
    fn setting_beats_environment_beats_default() {
        let e = env(&[
            ("OPENAI_API_KEY", "ok"),
            ("OPENAI_BASE_URL", "http://10.0.0.5:8000/v1"),
        ]);
        let from_env = resolve("gpt-4o", None, &e).unwrap();
        assert_eq!(
            from_env.url.as_str(),
            "http://10.0.0.5:8000/v1/chat/completions"
        );
        let from_setting = resolve("gpt-4o", Some("http://127.0.0.1:1/v1"), &e).unwrap();
        assert_eq!(
            from_setting.url.as_str(),
            "http://127.0.0.1:1/v1/chat/completions"
        );
        let ollama = resolve("ollama:qwen2.5:7b", None, &e).unwrap();
        assert_eq!(
            ollama.url.as_str(),
            "http://10.0.0.5:8000/v1/chat/completions"
        );
    }

    #[test]
    fn missing_key_is_an_error_only_for_remote_servers() {
        let none = ProviderEnv::default();
        let err = resolve("claude-opus-4-6", None, &none).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Missing ANTHROPIC_API_KEY. Set it via environment variable or use --model gpt-4o with OPENAI_API_KEY."
        );
        assert_eq!(err.class(), ErrorClass::Configuration);
        let err = resolve("gpt-4o", None, &none).unwrap_err();
        assert!(err.to_string().starts_with("Missing OPENAI_API_KEY."));
        for local in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080/v1",
            "http://[::1]:8000/v1",
            "http://192.168.1.20:1234/v1",
            "http://gpu-box.local:8000/v1",
        ] {
            let endpoint = resolve("openai:qwen", Some(local), &none).unwrap();
            assert!(endpoint.key.is_none(), "{local}");
        }
        assert!(resolve("ollama:qwen2.5:7b", None, &none).is_ok());
        assert!(resolve("gpt-4o", Some("https://example.com/v1"), &none).is_err());
    }

    #[test]
    fn bad_base_urls_are_configuration_errors_without_credentials() {
        let keys = env(&[("OPENAI_API_KEY", "ok")]);
        for bad in ["localhost:11434", "ftp://host/v1", "not a url", "http://"] {
            let err = resolve("gpt-4o", Some(bad), &keys).unwrap_err();
            assert_eq!(err.class(), ErrorClass::Configuration, "{bad}");
        }
        let err = resolve("gpt-4o", Some("ftp://user:hunter2@host/v1"), &keys).unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
        let ok = resolve("gpt-4o", Some("https://user:hunter2@host/v1"), &keys).unwrap();
        assert!(!ok.display.contains("hunter2"));
    }

    #[test]
    fn keys_never_print() {
        let e = env(&[
            ("ANTHROPIC_API_KEY", "sk-ant-secret"),
            ("OPENAI_API_KEY", "sk-secret"),
        ]);
        let shown = format!("{e:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert_eq!(format!("{}", ApiKey::new("sk-x")), "***");
    }

    #[test]
    fn empty_environment_values_count_as_unset() {
        let e = env(&[("ANTHROPIC_API_KEY", "  "), ("OPENAI_BASE_URL", "")]);
        assert!(e.anthropic_api_key.is_none());
        assert!(e.openai_base_url.is_none());
    }
}
