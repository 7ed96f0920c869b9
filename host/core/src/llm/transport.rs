//! One JSON POST with the retry policy around it, shared by both providers,
//! up to the provider's reading of the reply: a reply that cannot be read is
//! a failed attempt like a 5xx, however far it got. Everything a server says
//! is redacted (the key replaced by `***`) before it can become part of an
//! error.

use std::time::{Duration, SystemTime};

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;

use super::settings::{CONNECT_TIMEOUT, Endpoint, MAX_RETRY_AFTER, is_local};
use super::{ApiKey, LlmError, LlmSettings, ProviderKind, retry};

/// How much of a server's error text ends up in our error message.
const MAX_ERROR_MESSAGE_CHARS: usize = 600;

const USER_AGENT: &str = concat!("subterminator/", env!("CARGO_PKG_VERSION"));

pub(crate) struct Transport {
    client: reqwest::Client,
    provider: ProviderKind,
    endpoint: Endpoint,
    settings: LlmSettings,
}

/// Why one attempt failed, and whether another one may succeed.
enum AttemptError {
    Retry {
        failure: Transient,
        message: String,
        retry_after: Option<Duration>,
    },
    Final(LlmError),
}

/// A failure another attempt may not meet.
#[derive(Debug, Clone, Copy)]
enum Transient {
    /// No HTTP answer came back at all.
    NoAnswer,
    /// 408, 429 or 5xx.
    Status(u16),
    /// A 2xx whose body broke off, was not JSON, or was not the provider's
    /// shape; retried only [`super::UNREADABLE_REPLY_RETRIES`] times.
    UnreadableReply,
}

impl Transport {
    pub fn new(
        provider: ProviderKind,
        endpoint: Endpoint,
        settings: LlmSettings,
    ) -> Result<Transport, LlmError> {
        // Redirects are refused because reqwest would forward `x-api-key` to
        // whatever host a redirect names; no model API redirects a POST.
        crate::tls::ready();
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(CONNECT_TIMEOUT.min(settings.timeout))
            .redirect(reqwest::redirect::Policy::none());
        if is_local(&endpoint.url) {
            // A system proxy cannot reach the user's own Ollama or test server.
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| LlmError::HttpSetup {
            action: "set up the HTTP client".to_owned(),
            message: error_chain(&e),
        })?;
        Ok(Transport {
            client,
            provider,
            endpoint,
            settings,
        })
    }

    pub fn key(&self) -> Option<&ApiKey> {
        self.endpoint.key.as_ref()
    }

    /// A header value holding the key, marked sensitive so that reqwest and
    /// hyper never print it.
    pub fn secret_header(&self, value: &str) -> Result<HeaderValue, LlmError> {
        let mut header = HeaderValue::from_str(value).map_err(|_| LlmError::InvalidKey {
            provider: self.provider,
        })?;
        header.set_sensitive(true);
        Ok(header)
    }

    /// POSTs `body` with the retry policy and returns what `read` makes of
    /// the JSON of a 2xx. `read` runs inside the retry loop, so a reply in
    /// the wrong shape is retried like one cut off mid-JSON.
    pub async fn post<T>(
        &self,
        headers: &HeaderMap,
        body: &Value,
        read: fn(&Value) -> Result<T, String>,
    ) -> Result<T, LlmError> {
        let bytes = serde_json::to_vec(body).map_err(|e| LlmError::HttpSetup {
            action: format!("encode the {} request", self.provider),
            message: e.to_string(),
        })?;
        let attempts = self.settings.max_attempts.max(1);
        let mut failed = 0;
        let mut unreadable = 0;
        loop {
            tracing::debug!(
                provider = %self.provider,
                url = %self.endpoint.display,
                attempt = failed + 1,
                bytes = bytes.len(),
                "model request"
            );
            let attempt =
                tokio::time::timeout(self.settings.timeout, self.attempt(headers, &bytes, read));
            let (failure, message, retry_after) = match attempt.await {
                Ok(Ok(reply)) => return Ok(reply),
                Ok(Err(AttemptError::Final(error))) => return Err(error),
                Ok(Err(AttemptError::Retry {
                    failure,
                    message,
                    retry_after,
                })) => (failure, message, retry_after),
                Err(_elapsed) => {
                    return Err(LlmError::Timeout {
                        provider: self.provider,
                        timeout: self.settings.timeout,
                    });
                }
            };
            failed += 1;
            if matches!(failure, Transient::UnreadableReply) {
                unreadable += 1;
            }
            let too_long = retry_after.filter(|asked| *asked > MAX_RETRY_AFTER);
            if !retry::may_retry(attempts, failed, unreadable) || too_long.is_some() {
                let message = match too_long {
                    Some(asked) => format!(
                        "{message} (the server asked to retry after {}s)",
                        asked.as_secs()
                    ),
                    None => message,
                };
                return Err(self.exhausted(failure, failed, message));
            }
            let wait = retry::delay(&self.settings, failed, retry_after);
            tracing::warn!(
                provider = %self.provider,
                failure = ?failure,
                attempt = failed,
                wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                error = %message,
                "model call failed; retrying"
            );
            tokio::time::sleep(wait).await;
        }
    }

    async fn attempt<T>(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        read: fn(&Value) -> Result<T, String>,
    ) -> Result<T, AttemptError> {
        let response = self
            .client
            .post(self.endpoint.url.clone())
            .headers(headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_vec())
            .send()
            .await
            .map_err(|e| self.send_error(e))?;
        let status = response.status().as_u16();
        let success = (200..300).contains(&status);
        let retry_after = retry::retry_after(response.headers(), SystemTime::now());
        let text = match response.text().await {
            Ok(text) => text,
            // The server answered and the reply broke off: it is the reply
            // that cannot be read, not the server that cannot be reached.
            Err(e) if success => {
                return Err(self.unreadable(&error_chain(&e.without_url())));
            }
            Err(e) => return Err(self.send_error(e)),
        };
        tracing::debug!(provider = %self.provider, status, bytes = text.len(), "model response");
        if success {
            let json: Value = serde_json::from_str(&text)
                .map_err(|e| self.unreadable(&format!("{e}; body: {text}")))?;
            return read(&json).map_err(|message| self.unreadable(&message));
        }
        let message = self.clean(&server_message(&text));
        if retry::is_retryable_status(status) {
            Err(AttemptError::Retry {
                failure: Transient::Status(status),
                message,
                retry_after,
            })
        } else {
            Err(AttemptError::Final(LlmError::Rejected {
                provider: self.provider,
                status,
                message,
            }))
        }
    }

    fn unreadable(&self, cause: &str) -> AttemptError {
        AttemptError::Retry {
            failure: Transient::UnreadableReply,
            message: self.clean(cause),
            retry_after: None,
        }
    }

    fn send_error(&self, error: reqwest::Error) -> AttemptError {
        let builder = error.is_builder();
        let message = self.clean(&error_chain(&error.without_url()));
        if builder {
            return AttemptError::Final(LlmError::HttpSetup {
                action: format!("build the {} request", self.provider),
                message,
            });
        }
        AttemptError::Retry {
            failure: Transient::NoAnswer,
            message,
            retry_after: None,
        }
    }

    fn exhausted(&self, failure: Transient, attempts: u32, message: String) -> LlmError {
        let provider = self.provider;
        match failure {
            Transient::Status(status) => LlmError::Unavailable {
                provider,
                status,
                attempts,
                message,
            },
            Transient::NoAnswer => LlmError::Unreachable {
                provider,
                url: self.endpoint.display.clone(),
                attempts,
                message,
            },
            Transient::UnreadableReply => LlmError::UnreadableReply {
                provider,
                url: self.endpoint.display.clone(),
                attempts,
                cause: message,
            },
        }
    }

    /// Redacts the key, then shortens: in that order, so a cut can never
    /// leave a fragment of the key behind.
    fn clean(&self, text: &str) -> String {
        let redacted = match self.key().map(ApiKey::expose) {
            Some(key) if !key.is_empty() => text.replace(key, "***"),
            _ => text.to_owned(),
        };
        truncate(redacted.trim(), MAX_ERROR_MESSAGE_CHARS)
    }
}

/// The human part of an error body. Anthropic and OpenAI both use
/// `{"error": {"type", "message"}}`; Ollama sends `{"error": "..."}` and
/// vLLM `{"message": "..."}`; anything else is shown as it came.
pub(crate) fn server_message(body: &str) -> String {
    let Ok(json) = serde_json::from_str::<Value>(body) else {
        return if body.trim().is_empty() {
            "(empty response body)".to_owned()
        } else {
            body.to_owned()
        };
    };
    let error = &json["error"];
    if let Some(message) = error["message"].as_str() {
        return match error["type"].as_str().or_else(|| error["code"].as_str()) {
            Some(kind) => format!("{kind}: {message}"),
            None => message.to_owned(),
        };
    }
    [&json["error"], &json["message"], &json["detail"]]
        .into_iter()
        .find_map(Value::as_str)
        .map_or_else(|| body.to_owned(), str::to_owned)
}

fn truncate(text: &str, max_chars: usize) -> String {
    crate::text::truncate(text, max_chars, crate::text::ELLIPSIS).into_owned()
}

/// reqwest's own Display says only "error sending request"; the reason
/// (refused, reset, TLS) is in the source chain.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn server_messages_from_each_dialect() {
        let cases = [
            (
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
                "authentication_error: invalid x-api-key",
            ),
            (
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
                "invalid_request_error: Incorrect API key provided",
            ),
            (
                r#"{"error":"model 'qwen' not found"}"#,
                "model 'qwen' not found",
            ),
            (r#"{"object":"error","message":"bad","code":400}"#, "bad"),
            ("<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
            ("", "(empty response body)"),
        ];
        for (body, expected) in cases {
            assert_eq!(server_message(body), expected);
        }
    }

    #[test]
    fn truncation_respects_characters() {
        assert_eq!(truncate("ééé", 2), "éé…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
