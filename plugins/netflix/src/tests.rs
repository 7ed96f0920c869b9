use super::*;

fn el(role: &str, name: &str) -> Element {
    Element::new(role, name)
}

fn page(url: &str, title: &str, content: &str, elements: Vec<Element>) -> Snapshot {
    Snapshot {
        url: url.into(),
        title: title.into(),
        content: content.into(),
        screenshot_path: None,
        elements,
    }
}

fn account() -> Snapshot {
    page(
        "https://www.netflix.com/account",
        "Account",
        "- heading \"Membership\"\n- button \"Cancel Membership\"",
        vec![
            el("heading", "Membership"),
            el("button", "Cancel Membership"),
        ],
    )
}

fn retention() -> Snapshot {
    page(
        "https://www.netflix.com/cancel/offer",
        "Before you cancel",
        "- heading \"Wait! 50% off for 3 months if you don't cancel\"\n\
         - paragraph: Your membership ends 12 June if you cancel.\n\
         - button \"Accept offer\"\n- button \"Continue to Cancel\"",
        vec![
            el("heading", "Wait! 50% off for 3 months if you don't cancel"),
            el("button", "Accept offer"),
            el("button", "Continue to Cancel"),
        ],
    )
}

fn final_page() -> Snapshot {
    page(
        "https://www.netflix.com/cancel/final",
        "Finish Cancellation",
        "- heading \"Finish your cancellation\"\n- button \"Finish Cancellation\"\n- button \"Go back\"",
        vec![
            el("heading", "Finish your cancellation"),
            el("button", "Finish Cancellation"),
            el("button", "Go back"),
        ],
    )
}

fn cancelled() -> Snapshot {
    page(
        "https://www.netflix.com/account",
        "Account",
        "- paragraph: Your membership ends on 12 June 2027.\n- button \"Restart Membership\"",
        vec![el("button", "Restart Membership")],
    )
}

fn click(target: Option<Element>, model_says: &str) -> ToolCall {
    ToolCall {
        action: "browser_click".into(),
        arguments_json: format!(r#"{{"element":"{model_says}","target":"e9"}}"#),
        target,
    }
}

#[test]
fn verify_table() {
    let cases: Vec<(&str, Snapshot, bool)> = vec![
        ("account page", account(), false),
        (
            "retention offer that says cancel and membership ends",
            retention(),
            false,
        ),
        ("final page before the click", final_page(), false),
        ("end date and Restart Membership", cancelled(), true),
        (
            "title says cancelled",
            page(
                "https://www.netflix.com/x",
                "Membership Cancelled",
                "",
                vec![],
            ),
            true,
        ),
        (
            "US spelling in a heading",
            page(
                "https://www.netflix.com/x",
                "Netflix",
                "",
                vec![el("heading", "Your membership is canceled")],
            ),
            true,
        ),
        (
            "cancellation confirmed in content",
            page(
                "https://www.netflix.com/x",
                "Netflix",
                "Cancellation confirmed.",
                vec![],
            ),
            true,
        ),
        (
            "cancelsuccess URL",
            page(
                "https://www.netflix.com/CancelSuccess",
                "Netflix",
                "",
                vec![],
            ),
            true,
        ),
        (
            "error URL wins over a success word",
            page("https://www.netflix.com/error?x=1", "Cancelled", "", vec![]),
            false,
        ),
        (
            "something went wrong",
            page(
                "https://www.netflix.com/x",
                "Cancelled",
                "Something went wrong.",
                vec![],
            ),
            false,
        ),
        (
            "unable to process",
            page(
                "https://www.netflix.com/x",
                "Netflix",
                "Membership ends soon. We were unable to process",
                vec![],
            ),
            false,
        ),
        (
            "logged out",
            page("https://www.netflix.com/login", "Cancelled", "", vec![]),
            false,
        ),
        (
            "element says could not",
            page(
                "https://www.netflix.com/x",
                "Cancelled",
                "",
                vec![el("alert", "We could not cancel")],
            ),
            false,
        ),
    ];
    for (name, snap, want) in cases {
        let got = Netflix.verify(&snap);
        assert_eq!(got == Verdict::Success, want, "{name}: {got:?}");
    }
}

#[test]
fn failure_indicators_give_a_reason() {
    let snap = page("https://www.netflix.com/error", "Oops", "", vec![]);
    assert!(matches!(Netflix.verify(&snap), Verdict::Failure(r) if r.contains("error")));
}

#[test]
fn checkpoint_table() {
    let finish = el("button", "Finish Cancellation");
    let cases: Vec<(&str, ToolCall, Snapshot, bool)> = vec![
        (
            "final click, whatever the model called it",
            click(Some(finish.clone()), "the blue button"),
            account(),
            true,
        ),
        (
            "confirm button",
            click(Some(el("button", "Confirm")), "x"),
            account(),
            true,
        ),
        (
            "complete link",
            click(Some(el("link", "Complete")), "x"),
            account(),
            true,
        ),
        (
            "the model's words do not count",
            click(
                Some(el("button", "Cancel Membership")),
                "Finish Cancellation",
            ),
            account(),
            false,
        ),
        (
            "any action on a page that can finish the cancellation",
            click(Some(el("button", "Go back")), "x"),
            final_page(),
            true,
        ),
        (
            "confirm URL",
            click(Some(el("button", "Next")), "x"),
            page(
                "https://www.netflix.com/cancelplan/confirm",
                "Netflix",
                "",
                vec![],
            ),
            true,
        ),
        (
            "content with finish and cancel",
            click(Some(el("button", "Next")), "x"),
            page(
                "https://www.netflix.com/x",
                "Netflix",
                "Finish here to cancel",
                vec![],
            ),
            true,
        ),
        (
            "read-only actions never ask",
            ToolCall {
                action: "browser_snapshot".into(),
                ..ToolCall::default()
            },
            final_page(),
            false,
        ),
        (
            "retention page decline",
            click(Some(el("button", "Continue to Cancel")), "x"),
            retention(),
            false,
        ),
        (
            "opening the flow",
            click(Some(el("button", "Cancel Membership")), "x"),
            account(),
            false,
        ),
    ];
    for (name, call, snap, want) in cases {
        let got = Netflix.checkpoint(&call, &snap);
        assert_eq!(got.is_some(), want, "{name}: {got:?}");
    }
}

#[test]
fn detect_auth_table() {
    let cases: Vec<(&str, Snapshot, Option<AuthKind>)> = vec![
        ("account page", account(), None),
        (
            "login redirect",
            page(
                "https://www.netflix.com/login?nextpage=account",
                "Netflix",
                "Sign In",
                vec![],
            ),
            Some(AuthKind::LoginRequired),
        ),
        (
            "two-factor",
            page(
                "https://www.netflix.com/x",
                "Netflix",
                "Enter the verification code we sent",
                vec![],
            ),
            Some(AuthKind::TwoFactor),
        ),
        (
            "captcha",
            page(
                "https://www.netflix.com/x",
                "Netflix",
                "Please complete the CAPTCHA",
                vec![],
            ),
            Some(AuthKind::Captcha),
        ),
        (
            "expired",
            page(
                "https://www.netflix.com/account",
                "Netflix",
                "Your session has expired",
                vec![],
            ),
            Some(AuthKind::SessionExpired),
        ),
    ];
    for (name, snap, want) in cases {
        let got = Netflix.detect_auth(&snap).map(|e| e.kind);
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn two_factor_message_is_the_seeds() {
    let snap = page("https://www.netflix.com/x", "", "two-factor", vec![]);
    let event = Netflix.detect_auth(&snap);
    assert_eq!(
        event.map(|e| e.message),
        Some("2FA required. Complete authentication.".to_owned())
    );
}

#[test]
fn metadata_is_the_seeds() {
    let m = Netflix.metadata();
    assert_eq!(m.id, "netflix");
    assert_eq!(m.initial_url, "https://www.netflix.com/account");
    assert!(m.goal.starts_with("Cancel the Netflix subscription."));
    assert!(m.system_prompt_addition.contains("retention offers"));
    assert!(
        m.allowed_origins
            .iter()
            .any(|o| o == "https://www.netflix.com")
    );
}

#[test]
fn plan_targets_match_the_flow() {
    let plan = Netflix.plan();
    assert_eq!(plan.len(), 4);
    assert!(plan[0].targets[0].matches(&el("button", "Cancel Membership")));
    assert!(plan[1].targets[0].matches(&el("button", "Continue to Cancel")));
    assert!(!plan[1].targets[0].matches(&el("button", "Accept offer")));
    assert!(plan[3].targets[0].matches(&el("button", "Finish Cancellation")));
}
