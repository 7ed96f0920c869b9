//! Every tool result is structured the same way: a status,
//! the data, and on an error or a failed run what to do about it. The same
//! object goes as text for clients that read only text.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use subterminator_core::agent::ClientReply;
use subterminator_core::exit::ErrorClass;
use subterminator_core::feed::TaskReason;
use subterminator_core::session::Finished;

/// How a call went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Done: the data is the answer.
    Ok,
    /// It ran, and did not reach its goal: the data says how far it got.
    Failed,
    /// It could not run: bad arguments, a missing browser, a busy profile.
    Error,
}

/// One tool result.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: Status,
    pub data: Value,
    pub error: Option<String>,
    pub remediation: Option<String>,
    /// A PNG to send beside the JSON.
    pub image: Option<Vec<u8>>,
}

impl Reply {
    pub fn ok(data: Value) -> Self {
        Self {
            status: Status::Ok,
            data,
            error: None,
            remediation: None,
            image: None,
        }
    }

    /// A call that could not run, with what to do instead.
    pub fn error(message: impl Into<String>, remediation: impl Into<String>) -> Self {
        Self {
            status: Status::Error,
            data: Value::Null,
            error: Some(message.into()),
            remediation: Some(remediation.into()),
            image: None,
        }
    }

    /// The library's error, with the fix its class calls for. Its message
    /// already names the fix where there is one; the remediation says what
    /// the client should do next.
    pub fn from_error(error: &subterminator_core::Error) -> Self {
        let remediation = match error.class() {
            ErrorClass::Configuration => {
                "Fix what the error names (run `subterminator doctor` in a terminal to check this machine), then call again."
            }
            ErrorClass::Connection => {
                "The browser server or the model could not be reached: run `subterminator doctor`, then call again."
            }
            ErrorClass::Interrupted => "The server is shutting down; call again once it is back.",
            ErrorClass::Failure => {
                "Call again; if it keeps failing, look at the run record it names."
            }
        };
        Self::error(error.to_string(), remediation)
    }

    pub fn with_image(mut self, png: Vec<u8>) -> Self {
        self.image = Some(png);
        self
    }

    /// How a run ended, for the client: the outcome, turns, tokens, cost
    /// and where its record and receipt are.
    pub fn finished(finished: &Finished, service: &str, session_id: &str) -> Self {
        let result = &finished.result;
        let outcome = if result.success && result.verified {
            "cancelled"
        } else if result.success {
            "already_cancelled"
        } else {
            "not_cancelled"
        };
        let data = json!({
            "session_id": session_id,
            "service": service,
            "outcome": outcome,
            "verified": result.verified,
            "reason": result.reason,
            "turns": result.turns,
            "tokens": {"input": result.usage.input, "output": result.usage.output},
            "cost_usd": result.cost_usd,
            "final_url": result.final_url,
            "run_record": finished.run_dir,
            "receipt": finished.receipt,
        });
        let ok = result.success || result.reason == TaskReason::DryRun;
        Self {
            status: if ok { Status::Ok } else { Status::Failed },
            data,
            error: result.error.clone(),
            remediation: (!ok).then(|| remediation(result.reason, service)),
            image: None,
        }
    }

    /// The host's answer to one call of the client's model: the compact
    /// profile's `{success, error, message?, snapshot}`, then any notes.
    pub fn turn(reply: &ClientReply, session_id: &str) -> Self {
        let content = in_client_words(&reply.content);
        let (head, notes) = match content.split_once('\n') {
            Some((head, rest)) => (head, rest),
            None => (content.as_str(), ""),
        };
        let mut data =
            serde_json::from_str::<Value>(head).unwrap_or_else(|_| json!({ "text": content }));
        if let Some(object) = data.as_object_mut() {
            object.insert("session_id".into(), session_id.into());
            if !notes.trim().is_empty() {
                object.insert("notes".into(), notes.trim().into());
            }
        }
        if !reply.is_error {
            return Self::ok(data);
        }
        let code = data
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let message = data
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("the call did not succeed")
            .to_owned();
        Self {
            status: Status::Error,
            data,
            error: Some(message),
            remediation: Some(turn_remediation(&code).to_owned()),
            image: None,
        }
    }

    /// The JSON object the client receives.
    pub fn to_json(&self) -> Value {
        let mut value = json!({ "status": self.status, "data": self.data });
        if let Some(object) = value.as_object_mut() {
            if let Some(error) = &self.error {
                object.insert("error".into(), error.clone().into());
            }
            if let Some(remediation) = &self.remediation {
                object.insert("remediation".into(), remediation.clone().into());
            }
        }
        value
    }

    pub fn into_result(self) -> CallToolResult {
        use base64::Engine as _;
        let value = self.to_json();
        let mut result = if self.status == Status::Error {
            CallToolResult::structured_error(value)
        } else {
            CallToolResult::structured(value)
        };
        if let Some(png) = &self.image {
            result.content.push(ContentBlock::image(
                base64::engine::general_purpose::STANDARD.encode(png),
                "image/png",
            ));
        }
        result
    }
}

/// The agent's words with its tools called by the names the client knows.
fn in_client_words(content: &str) -> String {
    content
        .replace(
            subterminator_core::agent::COMPLETE_TASK,
            super::tools::FINISH,
        )
        .replace(
            subterminator_core::agent::toolset::compact::tools::GET_SNAPSHOT,
            super::tools::SNAPSHOT,
        )
}

/// What to do after a run that did not cancel anything.
pub fn remediation(reason: TaskReason, service: &str) -> String {
    if reason == TaskReason::AuthRequired {
        return format!(
            "The service wants the person to sign in: ask them to run `subterminator login {service}` in a terminal once, then call again."
        );
    }
    let what = match reason {
        TaskReason::Completed | TaskReason::AlreadyCancelled | TaskReason::DryRun => {
            "Nothing to do."
        }
        TaskReason::HumanRejected => {
            "The person did not approve it, so nothing irreversible was done. Ask them before trying again."
        }
        TaskReason::CannotCancelHere => {
            "It cannot be cancelled on this site: the error says where to cancel instead. Tell the person."
        }
        TaskReason::AuthRequired => "Sign in first.",
        TaskReason::MaxTurnsExceeded | TaskReason::LlmNoAction => {
            "It ran out of turns: call again, or drive it step by step with browser_snapshot."
        }
        TaskReason::VerificationFailed => {
            "The page never proved the cancellation: ask the person to check the service's account page, and look at the run record."
        }
        TaskReason::UnverifiedChange => {
            "The page says it is cancelled, but nothing this run sent with the person's yes can have done it: ask them to check the service's account page themselves."
        }
        TaskReason::LlmError => {
            "The model could not be reached: check its API key in the server's environment, or start the server with --model offline."
        }
        TaskReason::McpError => {
            "The browser failed: run `subterminator doctor` in a terminal, then call again."
        }
        TaskReason::Interrupted | TaskReason::Closed => {
            "The session ended before the run did: call again to start a new one."
        }
    };
    what.to_owned()
}

/// What to do after a refused or failed browser call, by its error code.
fn turn_remediation(code: &str) -> &'static str {
    match code {
        "ref_invalid" => "Use a ref from the snapshot in this result, then call again.",
        "element_disabled" => "Pick an enabled element, or do what the page asks first.",
        "element_obscured" => {
            "Close the dialog or overlay that covers it (its close button is in the snapshot), then try again."
        }
        "element_not_visible" => "Scroll it into view with browser_scroll, then try again.",
        "timeout" => "Call browser_snapshot to see the page now, then try again.",
        "human_rejected" => {
            "The person said no to this; read their words in the message and do not repeat it."
        }
        "invalid_params" => "Fix the arguments as the message says, then call again.",
        _ => "Read the message and the snapshot in this result, then choose another step.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_keeps_the_snapshot_and_names_what_to_do_on_error() {
        let cases = [
            (
                "{\"success\":true,\"error\":null,\"snapshot\":{\"page\":{}}}",
                false,
                Status::Ok,
                None,
            ),
            (
                "{\"success\":false,\"error\":\"ref_invalid\",\"message\":\"@e9 is not in the latest snapshot\",\"snapshot\":{}}\nNote: go back.",
                true,
                Status::Error,
                Some("Use a ref from the snapshot"),
            ),
            ("not json", true, Status::Error, Some("Read the message")),
        ];
        for (content, is_error, status, remedy) in cases {
            let reply = Reply::turn(
                &ClientReply {
                    content: content.into(),
                    is_error,
                },
                "a",
            );
            assert_eq!(reply.status, status, "{content}");
            let json = reply.to_json();
            assert_eq!(json["data"]["session_id"], "a", "{json}");
            match remedy {
                Some(r) => assert!(
                    json["remediation"]
                        .as_str()
                        .is_some_and(|t| t.starts_with(r)),
                    "{json}"
                ),
                None => assert!(json.get("remediation").is_none(), "{json}"),
            }
        }
        let noted = Reply::turn(
            &ClientReply {
                content: "{\"success\":true}\nNote: this page is outside".into(),
                is_error: false,
            },
            "a",
        );
        assert_eq!(noted.data["notes"], "Note: this page is outside");
        let renamed = Reply::turn(
            &ClientReply {
                content:
                    "{\"message\":\"or call complete_task(status='failed'); get_snapshot first\"}"
                        .into(),
                is_error: true,
            },
            "a",
        );
        assert_eq!(
            renamed.data["message"],
            "or call finish_cancellation(status='failed'); browser_snapshot first"
        );
    }

    #[test]
    fn every_failed_outcome_has_a_remediation() {
        use TaskReason::*;
        for reason in [
            HumanRejected,
            CannotCancelHere,
            AuthRequired,
            MaxTurnsExceeded,
            LlmNoAction,
            VerificationFailed,
            LlmError,
            McpError,
            Interrupted,
            Closed,
        ] {
            assert!(remediation(reason, "netflix").len() > 20, "{reason}");
        }
    }
}
