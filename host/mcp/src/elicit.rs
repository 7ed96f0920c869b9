//! Approvals as MCP elicitations: the client's person sees what the
//! terminal prompt shows, with the screenshot as an image. Before
//! 2026-07-28 the server sends it (`elicitation/create`); from 2026-07-28
//! the same request travels inside an `input_required` result (see
//! [`desk`](super::desk)). A client that cannot elicit gets every question
//! answered [`Answer::Unavailable`]: refused, never approved silently. A
//! declined or cancelled elicitation is a no.

use rmcp::RoleServer;
use rmcp::model::{
    ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    MetaObject, RequestMetaObject,
};
use rmcp::service::{ElicitationMode, Peer};
use serde_json::{Value, json};

use super::APPROVAL_TIMEOUT;
use subterminator_core::approval::{Answer, ApprovalRequest};

/// Where in the request's `_meta` the screenshot goes, as an MCP image
/// content block (elicitation schemas hold no images).
pub const SCREENSHOT_META_KEY: &str = "io.github.subterminator/screenshot";

/// Why nothing that needs a yes can run for a client without elicitation.
pub const NO_ELICITATION: &str = "this MCP client cannot ask you (it does not support elicitation), so no step that needs your approval can run here; use a client that supports elicitation, or run `subterminator cancel` in a terminal";

/// The largest screenshot sent inline; a bigger one is named by its path only.
const MAX_INLINE_SCREENSHOT_BYTES: u64 = 4 * 1024 * 1024;

/// Puts one approval to the client's person.
pub async fn ask(
    peer: &Peer<RoleServer>,
    request: &ApprovalRequest,
    asker: Option<&str>,
) -> Answer {
    if !peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return Answer::Unavailable(NO_ELICITATION.into());
    }
    let params = match params(request, asker).await {
        Ok(params) => params,
        Err(why) => return Answer::Unavailable(why),
    };
    match peer
        .create_elicitation_with_timeout(params, Some(APPROVAL_TIMEOUT))
        .await
    {
        Ok(result) => answer_of(&result),
        Err(e) => Answer::Unavailable(format!("the MCP client did not answer the approval ({e})")),
    }
}

/// Whether `capabilities` (a 2026-07-28 request's own) let the server put a
/// form to the person: elicitation declared, with form mode or no mode
/// named (which meant form before modes existed).
pub fn can_elicit(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The schema of the answer: a yes or no, and words for a no that lets the
/// run go on.
fn schema() -> Result<ElicitationSchema, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "approve": {
                "type": "boolean",
                "title": "Approve this step?",
                "description": "Yes runs this one action, once. No stops the cancellation."
            },
            "note": {
                "type": "string",
                "title": "Instead (optional)",
                "description": "With a no: what to do instead. The run goes on with your words."
            }
        },
        "required": ["approve"]
    });
    let Value::Object(map) = schema else {
        return Err("the approval schema is not an object".into());
    };
    ElicitationSchema::from_json_schema(map)
        .map_err(|e| format!("the approval schema was refused: {e}"))
}

/// The request: the terminal prompt's text, the answer's schema, and the
/// screenshot as an image in `_meta`.
pub async fn params(
    request: &ApprovalRequest,
    asker: Option<&str>,
) -> Result<ElicitRequestParams, String> {
    let mut message = request.render();
    if let Some(asker) = asker {
        message = format!("[{}] {message}", subterminator_core::text::sanitize(asker));
    }
    message.push_str("Approve?");
    let mut meta = serde_json::Map::new();
    if let Some(png) = screenshot(request).await {
        use base64::Engine as _;
        meta.insert(
            SCREENSHOT_META_KEY.into(),
            json!({
                "type": "image",
                "mimeType": "image/png",
                "data": base64::engine::general_purpose::STANDARD.encode(png),
            }),
        );
    }
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: (!meta.is_empty()).then_some(RequestMetaObject(MetaObject(meta))),
        message,
        requested_schema: schema()?,
    })
}

async fn screenshot(request: &ApprovalRequest) -> Option<Vec<u8>> {
    let path = request.screenshot.as_ref()?;
    let size = tokio::fs::metadata(path).await.ok()?.len();
    if size > MAX_INLINE_SCREENSHOT_BYTES {
        return None;
    }
    tokio::fs::read(path).await.ok()
}

/// The person's answer: only an accepted form with `approve: true` is a yes.
pub fn answer_of(result: &ElicitResult) -> Answer {
    match result.action {
        ElicitationAction::Accept => {
            let content = result.content.as_ref();
            let approve = content
                .and_then(|c| c.get("approve"))
                .and_then(Value::as_bool);
            let note = content
                .and_then(|c| c.get("note"))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|n| !n.is_empty());
            match (approve, note) {
                (Some(true), _) => Answer::Approved,
                (_, Some(note)) => Answer::Feedback(note.to_owned()),
                _ => Answer::Rejected,
            }
        }
        // Declined, cancelled, or an answer this host does not know: a no.
        _ => Answer::Rejected,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn result(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        let mut r = ElicitResult::new(action);
        r.content = content;
        r
    }

    #[test]
    fn only_an_accepted_yes_approves() {
        use ElicitationAction::*;
        let cases = [
            (Accept, Some(json!({"approve": true})), Answer::Approved),
            (Accept, Some(json!({"approve": false})), Answer::Rejected),
            (Accept, Some(json!({"approve": "true"})), Answer::Rejected),
            (Accept, Some(json!({})), Answer::Rejected),
            (Accept, None, Answer::Rejected),
            (
                Accept,
                Some(json!({"approve": false, "note": " keep the offer "})),
                Answer::Feedback("keep the offer".into()),
            ),
            (
                Accept,
                Some(json!({"approve": true, "note": "x"})),
                Answer::Approved,
            ),
            (Decline, Some(json!({"approve": true})), Answer::Rejected),
            (Cancel, None, Answer::Rejected),
        ];
        for (action, content, want) in cases {
            let got = answer_of(&result(action.clone(), content.clone()));
            assert_eq!(got, want, "{action:?} {content:?}");
        }
    }

    #[tokio::test]
    async fn the_request_carries_the_prompt_and_the_screenshot() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("s.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\nrest").unwrap();
        let request = ApprovalRequest {
            reason: "the final step".into(),
            action: "browser_click".into(),
            target: Some("button \"Finish Cancellation\"".into()),
            url: "https://www.netflix.com/cancelplan".into(),
            screenshot: Some(png),
            ..ApprovalRequest::default()
        };
        let params = params(&request, Some("Netflix")).await.unwrap();
        let ElicitRequestParams::FormElicitationParams {
            meta,
            message,
            requested_schema,
        } = params
        else {
            unreachable!("form params")
        };
        assert!(
            message.starts_with("[Netflix] ⚠️  Human approval required"),
            "{message}"
        );
        assert!(message.contains("Action: browser_click button \"Finish Cancellation\""));
        assert!(message.ends_with("Approve?"), "{message}");
        assert_eq!(requested_schema.required, Some(vec!["approve".to_owned()]));
        let image = &meta.unwrap().0.0[SCREENSHOT_META_KEY];
        assert_eq!(image["mimeType"], "image/png");
        assert_eq!(image["data"], "iVBORw0KGgpyZXN0");
    }
}
