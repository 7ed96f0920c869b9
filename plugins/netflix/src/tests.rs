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
        facts: None,
    }
}

/// A page as Playwright's tree shows it: each line of `lines` is one
/// `(role, name)` element, and the content is the tree's text of them.
fn tree(url: &str, title: &str, lines: &[(&str, &str)]) -> Snapshot {
    let content = lines
        .iter()
        .map(|(role, name)| match *role {
            "paragraph" => format!("- paragraph: {name}"),
            _ => format!("- {role} \"{name}\""),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let elements = lines
        .iter()
        .filter(|(role, _)| *role != "paragraph")
        .map(|(role, name)| el(role, name))
        .collect();
    page(url, title, &content, elements)
}

/// Confirmation pages in the wordings Netflix has used or may use.
fn success_wordings() -> Vec<(&'static str, Snapshot)> {
    vec![
        (
            "plan canceled (US), will end on",
            tree(
                "https://www.netflix.com/account",
                "Netflix",
                &[
                    ("heading", "Your plan has been canceled"),
                    ("paragraph", "Your plan will end on June 12, 2027."),
                ],
            ),
        ),
        (
            "request processed, subscription expires, resume link",
            tree(
                "https://www.netflix.com/account",
                "Netflix",
                &[
                    ("heading", "We've processed your request"),
                    ("paragraph", "Your subscription expires on 12 June 2027."),
                    ("link", "Resume subscription"),
                ],
            ),
        ),
        (
            "curly apostrophe, processed, rejoin button",
            tree(
                "https://www.netflix.com/account",
                "Account",
                &[
                    ("paragraph", "We\u{2019}ve processed your request."),
                    ("button", "Rejoin Netflix"),
                ],
            ),
        ),
        (
            "you've cancelled your membership",
            tree(
                "https://www.netflix.com/account",
                "Account",
                &[("alert", "You've cancelled your Netflix membership.")],
            ),
        ),
        (
            "cancellation is complete, membership ends on",
            tree(
                "https://www.netflix.com/cancelplan/done",
                "Netflix",
                &[
                    ("heading", "Your cancellation is complete"),
                    ("paragraph", "Your membership ends on 12 June 2027."),
                    ("button", "Restart Membership"),
                ],
            ),
        ),
        (
            "membership will end on, restart link",
            tree(
                "https://www.netflix.com/account",
                "Account",
                &[
                    ("paragraph", "Your membership will end on 12 June 2027."),
                    ("link", "Restart your membership"),
                ],
            ),
        ),
    ]
}

/// Pages that say something like success but must never be read as it.
fn false_successes() -> Vec<(&'static str, Snapshot)> {
    vec![
        (
            "success wording while a final cancel button is still offered",
            tree(
                "https://www.netflix.com/cancelplan",
                "Netflix",
                &[
                    ("heading", "Your membership has been cancelled"),
                    ("button", "Finish Cancellation"),
                ],
            ),
        ),
        (
            "negated: was not cancelled",
            tree(
                "https://www.netflix.com/account",
                "Membership cancelled?",
                &[
                    ("heading", "Your membership was not cancelled"),
                    ("paragraph", "Your membership ends on 12 June 2027."),
                    ("button", "Restart Membership"),
                ],
            ),
        ),
        (
            "negated: could not / unable to",
            tree(
                "https://www.netflix.com/account",
                "Membership Cancelled",
                &[
                    ("paragraph", "We were unable to cancel your plan."),
                    ("paragraph", "Your plan ends on 12 June 2027."),
                    ("link", "Restart Membership"),
                ],
            ),
        ),
        (
            "offer page: membership ends on, next to a finish button",
            tree(
                "https://www.netflix.com/cancelplan",
                "Netflix",
                &[
                    ("heading", "Before you go"),
                    ("paragraph", "Your membership ends on 12 June 2027."),
                    ("button", "Finish Cancellation"),
                    ("button", "Keep my membership"),
                ],
            ),
        ),
        (
            "end date alone",
            tree(
                "https://www.netflix.com/account",
                "Account",
                &[("paragraph", "Your membership ends on 12 June 2027.")],
            ),
        ),
        (
            "request processed alone (a plan change says it too)",
            tree(
                "https://www.netflix.com/account",
                "Account",
                &[("heading", "We've processed your request")],
            ),
        ),
        (
            "negated: hasn't been canceled yet",
            tree(
                "https://www.netflix.com/account",
                "Netflix",
                &[
                    ("heading", "Your plan hasn't been canceled yet"),
                    ("link", "Resume"),
                    ("paragraph", "Your plan will end on June 12, 2027."),
                ],
            ),
        ),
    ]
}

#[test]
fn success_wordings_verify() {
    for (name, snap) in success_wordings() {
        let got = Netflix.verify(&snap);
        assert_eq!(got, Verdict::Success, "{name}");
    }
}

#[test]
fn false_successes_never_verify() {
    for (name, snap) in false_successes() {
        let got = Netflix.verify(&snap);
        assert_ne!(got, Verdict::Success, "{name}");
    }
}

#[test]
fn negated_pages_are_failures_with_the_words() {
    let cases = [
        ("negated: was not cancelled", "was not cancelled"),
        ("negated: could not / unable to", "unable to"),
        ("negated: hasn't been canceled yet", "hasn't been canceled"),
    ];
    let mut checked = 0;
    for (name, snap) in false_successes() {
        let Some((_, words)) = cases.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let got = Netflix.verify(&snap);
        assert!(
            matches!(&got, Verdict::Failure(why) if why.to_lowercase().contains(words)),
            "{name}: {got:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, cases.len(), "a case names no fixture");
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
            "another button on the final page is the host's commit-page rule, not ours",
            click(Some(el("button", "Go back")), "x"),
            final_page(),
            false,
        ),
        (
            "a survey answer on a /cancelplan page does not ask",
            click(Some(el("radio", "Too expensive")), "x"),
            page(
                "https://www.netflix.com/cancelplan",
                "Netflix",
                "Why are you leaving?",
                vec![],
            ),
            false,
        ),
        (
            "what a person sees counts, not only the accessible name",
            ToolCall {
                facts: Some(ElementFacts {
                    visible_text: "Finish Cancellation".into(),
                    tag: "button".into(),
                    ..ElementFacts::default()
                }),
                ..click(Some(el("button", "Go back")), "x")
            },
            account(),
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
fn two_factor_message_is_the_prototypes() {
    let snap = page("https://www.netflix.com/x", "", "two-factor", vec![]);
    let event = Netflix.detect_auth(&snap);
    assert_eq!(
        event.map(|e| e.message),
        Some("2FA required. Complete authentication.".to_owned())
    );
}

#[test]
fn metadata_is_the_prototypes() {
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

#[test]
fn only_the_final_step_is_irreversible() {
    let marks: Vec<bool> = Netflix.plan().iter().map(|s| s.irreversible).collect();
    assert_eq!(marks, [false, false, false, true]);
}
