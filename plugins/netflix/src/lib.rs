//! Netflix: cancel the membership, decline the retention offers, and prove
//! from the page itself that the membership is cancelled.
//!
//! The predicates are the seeds' tables (000 §2.5.3, §2.6.2, §2.7; 002
//! §1.6.2, §1.7.2), plus guards where a table alone would let a retention
//! page pass as success.

use subterminator_sdk::prelude::*;

pub struct Netflix;

const INITIAL_URL: &str = "https://www.netflix.com/account";

/// Words on a button or link that commit the cancellation.
const FINAL_CLICK_WORDS: &[&str] = &["finish", "confirm", "complete"];
/// Pages whose URL means "the last step".
const CONFIRM_URL_PARTS: &[&str] = &["/confirm", "/cancelplan"];
/// A page that still offers these has not cancelled anything yet.
const PENDING_CANCEL_NAMES: &[&str] = &[
    "finish cancellation",
    "cancel membership",
    "continue cancellation",
    "continue to cancel",
];

const SUCCESS_TITLE_WORDS: &[&str] = &["cancelled", "canceled"];
const SUCCESS_CONTENT_WORDS: &[&str] = &[
    "membership ends",
    "cancellation confirmed",
    "your cancellation is complete",
];
const SUCCESS_URL_PARTS: &[&str] = &["/cancelsuccess"];
const RESTART_NAMES: &[&str] = &["restart membership", "restart your membership"];

const FAILURE_CONTENT_WORDS: &[&str] = &["something went wrong", "unable to process"];
const FAILURE_ELEMENT_WORDS: &[&str] = &["could not", "unable to"];

const TWO_FACTOR_WORDS: &[&str] = &["two-factor", "verification code", "2fa", "authenticator"];
const CAPTCHA_WORDS: &[&str] = &["captcha", "robot", "verify you're human", "security check"];
const EXPIRED_WORDS: &[&str] = &["session has expired", "session expired", "signed out"];
const LOGIN_PATTERNS: &[&str] = &["*/login*", "*/signin*"];

/// Tools that only look at the page; they never need a human's yes.
const READ_ONLY_ACTIONS: &[&str] = &[
    "browser_snapshot",
    "get_snapshot",
    "browser_take_screenshot",
    "browser_wait_for",
    "browser_console_messages",
    "browser_network_requests",
    "browser_find",
    "browser_scroll",
];

impl Service for Netflix {
    fn new() -> Self {
        Netflix
    }

    fn metadata(&self) -> Metadata {
        Metadata {
            id: "netflix".into(),
            display_name: "Netflix".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            initial_url: INITIAL_URL.into(),
            goal: "Cancel the Netflix subscription. Navigate to cancellation, complete the flow. \
                   Decline any retention offers. Call complete_task when you see confirmation \
                   that membership is cancelled."
                .into(),
            system_prompt_addition: "Netflix may show retention offers with discounts. Always \
                                     decline these and proceed with cancellation."
                .into(),
            allowed_origins: vec![
                "https://www.netflix.com".into(),
                "https://netflix.com".into(),
                "https://help.netflix.com".into(),
            ],
            login_url_patterns: LOGIN_PATTERNS.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    fn plan(&self) -> Vec<PlanStep> {
        vec![
            PlanStep {
                description: "Open the cancellation flow from the account page".into(),
                done_when: "A page about cancelling (an offer, a survey or a final confirmation) \
                            is shown"
                    .into(),
                targets: vec![TargetHint::click("button", &["cancel membership"])],
            },
            PlanStep {
                description: "Decline any retention offer".into(),
                done_when: "No offer is shown; the flow continues towards cancelling".into(),
                targets: vec![TargetHint::click(
                    "button",
                    &[
                        "continue to cancel",
                        "continue cancellation",
                        "no thanks",
                        "decline",
                    ],
                )],
            },
            PlanStep {
                description: "Answer the reasons survey, if there is one".into(),
                done_when: "The final confirmation page is shown".into(),
                targets: vec![
                    TargetHint::select(&["reason"], "Other").optional(),
                    TargetHint::click("button", &["continue", "next", "skip"]),
                ],
            },
            PlanStep {
                description: "Confirm the cancellation (a human approves this click)".into(),
                done_when: "The page says the membership is cancelled and shows when it ends"
                    .into(),
                targets: vec![TargetHint::click("button", &["finish cancellation"])],
            },
        ]
    }

    fn checkpoint(&self, call: &ToolCall, snapshot: &Snapshot) -> Option<String> {
        if READ_ONLY_ACTIONS.contains(&call.action.as_str()) {
            return None;
        }
        if call.action == "browser_click"
            && let Some(target) = &call.target
            && contains_any(&target.name, FINAL_CLICK_WORDS)
        {
            return Some(format!(
                "Clicking {} \"{}\" may complete the cancellation",
                target.role, target.name
            ));
        }
        let page = FoldedPage::of(snapshot);
        if page.url_has_any(CONFIRM_URL_PARTS) {
            return Some("This is Netflix's confirmation page".into());
        }
        if page.title_has_any(&["finish cancellation"])
            || page
                .element_named(&["button"], &["finish cancel"])
                .is_some()
        {
            return Some("This page can finish the cancellation".into());
        }
        if page.content_has_any(&["finish"]) && page.content_has_any(&["cancel"]) {
            return Some("This page mentions finishing the cancellation".into());
        }
        None
    }

    fn verify(&self, snapshot: &Snapshot) -> Verdict {
        // Folded once: verify runs on every success claim and each check
        // below would otherwise fold the page again.
        let page = FoldedPage::of(snapshot);
        if let Some(reason) = failure_indicator(snapshot, &page) {
            return Verdict::Failure(reason);
        }
        let succeeded = page.title_has_any(SUCCESS_TITLE_WORDS)
            || page.content_has_any(SUCCESS_CONTENT_WORDS)
            || page.url_has_any(SUCCESS_URL_PARTS)
            || page
                .element_named(&["heading"], SUCCESS_TITLE_WORDS)
                .is_some()
            || page
                .element_named(&["button", "link"], RESTART_NAMES)
                .is_some();
        let still_cancelling = page
            .element_named(&["button", "link"], PENDING_CANCEL_NAMES)
            .is_some();
        if succeeded && !still_cancelling {
            Verdict::Success
        } else {
            Verdict::Unknown
        }
    }

    fn detect_auth(&self, snapshot: &Snapshot) -> Option<AuthEvent> {
        let event = |kind, message: &str| {
            Some(AuthEvent {
                kind,
                message: message.to_owned(),
            })
        };
        if content_contains_any(snapshot, TWO_FACTOR_WORDS) {
            return event(
                AuthKind::TwoFactor,
                "2FA required. Complete authentication.",
            );
        }
        if content_contains_any(snapshot, CAPTCHA_WORDS) {
            return event(AuthKind::Captcha, "CAPTCHA detected. Please solve.");
        }
        if content_contains_any(snapshot, EXPIRED_WORDS) {
            return event(AuthKind::SessionExpired, "Session expired. Please log in.");
        }
        if LOGIN_PATTERNS.iter().any(|p| url_matches(&snapshot.url, p)) {
            return event(
                AuthKind::LoginRequired,
                "Netflix needs you to sign in. Please log in.",
            );
        }
        None
    }
}

fn failure_indicator(snapshot: &Snapshot, page: &FoldedPage) -> Option<String> {
    if page.url_has_any(&["error"]) {
        return Some(format!("the page is an error page ({})", snapshot.url));
    }
    if let Some(word) = FAILURE_CONTENT_WORDS
        .iter()
        .find(|w| page.content_has_any(&[w]))
    {
        return Some(format!("the page says \"{word}\""));
    }
    if page.url_has_any(&["/login"]) && page.url_has_any(&["netflix.com"]) {
        return Some("Netflix signed the session out".into());
    }
    if let Some(name) = page.element_named(&[], FAILURE_ELEMENT_WORDS) {
        return Some(format!("the page says \"{name}\""));
    }
    None
}

register_service!(Netflix);

#[cfg(test)]
mod tests;
