//! The Netflix file (sdk/declarative/examples/netflix.toml) on the Rust Netflix
//! plugin's own fixture pages, with that plugin's expected answers
//! (plugins/netflix/src/tests.rs): the latency benchmark compares the two on
//! the same pages, so they must agree on them.

use super::*;

fn netflix() -> Interpreted {
    Interpreted::from_text(include_str!(
        "../../../../sdk/declarative/examples/netflix.toml"
    ))
    .unwrap()
}

/// A page as Playwright's tree shows it: each `(role, name)` is one element,
/// and the content is the tree's text of them.
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

fn at(url: &str, title: &str, content: &str, elements: Vec<Element>) -> Snapshot {
    page(url, title, content, elements)
}

#[test]
fn verify_agrees_with_the_rust_plugin() {
    let n = "https://www.netflix.com";
    let cases: Vec<(&str, Snapshot, &str)> = vec![
        // The Rust plugin's verify_table.
        ("account page", account(), "unknown"),
        ("retention offer", retention(), "unknown"),
        ("final page before the click", final_page(), "unknown"),
        ("end date and Restart Membership", cancelled(), "success"),
        (
            "title says cancelled",
            at(&format!("{n}/x"), "Membership Cancelled", "", vec![]),
            "success",
        ),
        (
            "US spelling in a heading",
            at(
                &format!("{n}/x"),
                "Netflix",
                "",
                vec![el("heading", "Your membership is canceled")],
            ),
            "success",
        ),
        (
            "cancellation confirmed in content",
            at(
                &format!("{n}/x"),
                "Netflix",
                "Cancellation confirmed.",
                vec![],
            ),
            "success",
        ),
        (
            "cancelsuccess URL",
            at(&format!("{n}/CancelSuccess"), "Netflix", "", vec![]),
            "success",
        ),
        (
            "error URL wins over a success word",
            at(&format!("{n}/error?x=1"), "Cancelled", "", vec![]),
            "failure",
        ),
        (
            "something went wrong",
            at(
                &format!("{n}/x"),
                "Cancelled",
                "Something went wrong.",
                vec![],
            ),
            "failure",
        ),
        (
            "unable to process",
            at(
                &format!("{n}/x"),
                "Netflix",
                "Membership ends soon. We were unable to process",
                vec![],
            ),
            "failure",
        ),
        (
            "logged out",
            at(&format!("{n}/login"), "Cancelled", "", vec![]),
            "failure",
        ),
        (
            "element says could not",
            at(
                &format!("{n}/x"),
                "Cancelled",
                "",
                vec![el("alert", "We could not cancel")],
            ),
            "failure",
        ),
        // Its success_wordings.
        (
            "plan canceled (US), will end on",
            tree(
                &format!("{n}/account"),
                "Netflix",
                &[
                    ("heading", "Your plan has been canceled"),
                    ("paragraph", "Your plan will end on June 12, 2027."),
                ],
            ),
            "success",
        ),
        (
            "request processed, expires, resume link",
            tree(
                &format!("{n}/account"),
                "Netflix",
                &[
                    ("heading", "We've processed your request"),
                    ("paragraph", "Your subscription expires on 12 June 2027."),
                    ("link", "Resume subscription"),
                ],
            ),
            "success",
        ),
        (
            "curly apostrophe, processed, rejoin",
            tree(
                &format!("{n}/account"),
                "Account",
                &[
                    ("paragraph", "We\u{2019}ve processed your request."),
                    ("button", "Rejoin Netflix"),
                ],
            ),
            "success",
        ),
        (
            "you've cancelled your membership",
            tree(
                &format!("{n}/account"),
                "Account",
                &[("alert", "You've cancelled your Netflix membership.")],
            ),
            "success",
        ),
        (
            "cancellation is complete",
            tree(
                &format!("{n}/cancelplan/done"),
                "Netflix",
                &[
                    ("heading", "Your cancellation is complete"),
                    ("paragraph", "Your membership ends on 12 June 2027."),
                    ("button", "Restart Membership"),
                ],
            ),
            "success",
        ),
        (
            "membership will end on, restart link",
            tree(
                &format!("{n}/account"),
                "Account",
                &[
                    ("paragraph", "Your membership will end on 12 June 2027."),
                    ("link", "Restart your membership"),
                ],
            ),
            "success",
        ),
        // Its false_successes: never success.
        (
            "success wording beside a finish button",
            tree(
                &format!("{n}/cancelplan"),
                "Netflix",
                &[
                    ("heading", "Your membership has been cancelled"),
                    ("button", "Finish Cancellation"),
                ],
            ),
            "unknown",
        ),
        (
            "was not cancelled",
            tree(
                &format!("{n}/account"),
                "Membership cancelled?",
                &[
                    ("heading", "Your membership was not cancelled"),
                    ("paragraph", "Your membership ends on 12 June 2027."),
                    ("button", "Restart Membership"),
                ],
            ),
            "failure",
        ),
        (
            "unable to cancel",
            tree(
                &format!("{n}/account"),
                "Membership Cancelled",
                &[
                    ("paragraph", "We were unable to cancel your plan."),
                    ("paragraph", "Your plan ends on 12 June 2027."),
                    ("link", "Restart Membership"),
                ],
            ),
            "failure",
        ),
        (
            "offer page: ends on beside a finish button",
            tree(
                &format!("{n}/cancelplan"),
                "Netflix",
                &[
                    ("heading", "Before you go"),
                    ("paragraph", "Your membership ends on 12 June 2027."),
                    ("button", "Finish Cancellation"),
                    ("button", "Keep my membership"),
                ],
            ),
            "unknown",
        ),
        (
            "end date alone",
            tree(
                &format!("{n}/account"),
                "Account",
                &[("paragraph", "Your membership ends on 12 June 2027.")],
            ),
            "unknown",
        ),
        (
            "request processed alone",
            tree(
                &format!("{n}/account"),
                "Account",
                &[("heading", "We've processed your request")],
            ),
            "unknown",
        ),
        (
            "hasn't been canceled yet",
            tree(
                &format!("{n}/account"),
                "Netflix",
                &[
                    ("heading", "Your plan hasn't been canceled yet"),
                    ("link", "Resume"),
                    ("paragraph", "Your plan will end on June 12, 2027."),
                ],
            ),
            "failure",
        ),
    ];
    let service = netflix();
    for (name, snapshot, want) in cases {
        let got = service.verify(&snapshot);
        assert_eq!(verdict_name(&got), want, "{name}: {got:?}");
    }
}

#[test]
fn checkpoint_agrees_with_the_rust_plugin() {
    let relabelled = ToolCall {
        facts: Some(ElementFacts {
            visible_text: "Finish Cancellation".into(),
            tag: "button".into(),
            ..ElementFacts::default()
        }),
        ..click("button", "Go back")
    };
    let survey = at(
        "https://www.netflix.com/cancelplan",
        "Netflix",
        "Why are you leaving?",
        vec![],
    );
    let cases: Vec<(&str, ToolCall, Snapshot, bool)> = vec![
        (
            "final click",
            click("button", "Finish Cancellation"),
            account(),
            true,
        ),
        (
            "confirm button",
            click("button", "Confirm"),
            account(),
            true,
        ),
        ("complete link", click("link", "Complete"), account(), true),
        (
            "another button on the final page",
            click("button", "Go back"),
            final_page(),
            false,
        ),
        (
            "a survey answer",
            click("radio", "Too expensive"),
            survey,
            false,
        ),
        ("what a person sees counts", relabelled, account(), true),
        (
            "read-only actions never ask",
            call("browser_snapshot", None, None),
            final_page(),
            false,
        ),
        (
            "retention page decline",
            click("button", "Continue to Cancel"),
            retention(),
            false,
        ),
        (
            "opening the flow",
            click("button", "Cancel Membership"),
            account(),
            false,
        ),
    ];
    let service = netflix();
    for (name, tool_call, snapshot, want) in cases {
        let got = service.checkpoint(&tool_call, &snapshot);
        assert_eq!(got.is_some(), want, "{name}: {got:?}");
    }
}

#[test]
fn detect_auth_agrees_with_the_rust_plugin() {
    let n = "https://www.netflix.com";
    type Case<'a> = (&'a str, Snapshot, Option<(AuthKind, &'a str)>);
    let cases: Vec<Case> = vec![
        ("account page", account(), None),
        (
            "login redirect",
            at(
                &format!("{n}/login?nextpage=account"),
                "Netflix",
                "Sign In",
                vec![],
            ),
            Some((
                AuthKind::LoginRequired,
                "Netflix needs you to sign in. Please log in.",
            )),
        ),
        (
            "two-factor",
            at(
                &format!("{n}/x"),
                "Netflix",
                "Enter the verification code we sent",
                vec![],
            ),
            Some((
                AuthKind::TwoFactor,
                "2FA required. Complete authentication.",
            )),
        ),
        (
            "captcha",
            at(
                &format!("{n}/x"),
                "Netflix",
                "Please complete the CAPTCHA",
                vec![],
            ),
            Some((AuthKind::Captcha, "CAPTCHA detected. Please solve.")),
        ),
        (
            "expired",
            at(
                &format!("{n}/account"),
                "Netflix",
                "Your session has expired",
                vec![],
            ),
            Some((AuthKind::SessionExpired, "Session expired. Please log in.")),
        ),
    ];
    let service = netflix();
    for (name, snapshot, want) in cases {
        let got = service.detect_auth(&snapshot);
        assert_eq!(
            got.as_ref().map(|e| (e.kind, e.message.as_str())),
            want,
            "{name}"
        );
    }
}

#[test]
fn metadata_and_plan_mirror_the_rust_plugin() {
    let service = netflix();
    let m = service.metadata();
    assert_eq!(m.id, "netflix-declarative");
    assert_eq!(m.initial_url, "https://www.netflix.com/account");
    assert_eq!(
        m.goal,
        "Cancel the Netflix subscription. Navigate to cancellation, complete the flow. \
         Decline any retention offers. Call complete_task when you see confirmation \
         that membership is cancelled."
    );
    assert_eq!(
        m.system_prompt_addition,
        "Netflix may show retention offers with discounts. Always decline these and \
         proceed with cancellation."
    );
    assert_eq!(
        m.allowed_origins,
        [
            "https://www.netflix.com",
            "https://netflix.com",
            "https://help.netflix.com"
        ]
    );
    assert_eq!(m.login_url_patterns, ["*/login*", "*/signin*"]);

    let plan = service.plan();
    let marks: Vec<bool> = plan.iter().map(|s| s.irreversible).collect();
    assert_eq!(marks, [false, false, false, true]);
    assert!(plan[0].targets[0].matches(&el("button", "Cancel Membership")));
    assert!(plan[1].targets[0].matches(&el("button", "Continue to Cancel")));
    assert!(!plan[1].targets[0].matches(&el("button", "Accept offer")));
    assert_eq!(
        plan[2].targets[0],
        TargetHint::select(&["reason"], "Other").optional()
    );
    assert!(plan[3].targets[0].matches(&el("button", "Finish Cancellation")));
}
