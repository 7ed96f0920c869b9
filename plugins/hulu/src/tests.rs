use super::*;

mod fixtures;
mod partners;

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

/// A page as Playwright's tree shows it: each line of `lines` is one
/// `(role, name)` element, and the content is the tree's text of them.
fn tree(url: &str, lines: &[(&str, &str)]) -> Snapshot {
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
    page(url, "Hulu", &content, elements)
}

const ACCOUNT: &str = "https://secure.hulu.com/account";

fn account() -> Snapshot {
    tree(
        ACCOUNT,
        &[
            ("heading", "Account"),
            ("paragraph", "Hulu (No Ads)"),
            (
                "paragraph",
                "$18.99/month. Your next bill is on December 16, 2026.",
            ),
            ("paragraph", "Visa ending in 4242"),
            ("link", "Cancel Your Subscription"),
        ],
    )
}

fn pause() -> Snapshot {
    tree(
        "https://secure.hulu.com/account/cancel",
        &[
            ("heading", "Pause your subscription instead?"),
            ("combobox", "Pause for"),
            ("button", "Pause Subscription"),
            ("button", "Continue to Cancel"),
        ],
    )
}

fn confirm() -> Snapshot {
    tree(
        "https://secure.hulu.com/account/cancel/confirm",
        &[
            ("heading", "Cancel your subscription?"),
            (
                "paragraph",
                "If you cancel now, you can keep watching Hulu until December 16, 2026.",
            ),
            ("button", "Cancel Subscription"),
            ("link", "Go Back"),
        ],
    )
}

fn click(target: &str) -> ToolCall {
    let (role, name) = target.split_once(' ').unwrap_or(("button", target));
    ToolCall {
        action: "browser_click".into(),
        arguments_json: "{}".into(),
        target: Some(el(role, name)),
        facts: None,
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Want {
    Success,
    Failure(&'static str),
    Unknown,
    Already,
}

fn judged(verdict: &Verdict, want: &Want) -> bool {
    match (verdict, want) {
        (Verdict::Success, Want::Success)
        | (Verdict::Unknown, Want::Unknown)
        | (Verdict::AlreadyCancelled, Want::Already) => true,
        (Verdict::Failure(why), Want::Failure(words)) => why.contains(words),
        _ => false,
    }
}

#[test]
fn verify_table() {
    let cases: Vec<(&str, Snapshot, Want)> = vec![
        ("account page", account(), Want::Unknown),
        ("offer to pause", pause(), Want::Unknown),
        ("final page quotes the end date", confirm(), Want::Unknown),
        (
            "canceled page",
            tree(
                "https://secure.hulu.com/account/cancel/done",
                &[
                    ("heading", "Your subscription has been canceled"),
                    (
                        "paragraph",
                        "You can keep watching Hulu until December 16, 2026.",
                    ),
                    ("link", "Back to Account"),
                ],
            ),
            Want::Success,
        ),
        (
            "British spelling, curly apostrophe",
            tree(
                ACCOUNT,
                &[("paragraph", "You\u{2019}ve cancelled your subscription.")],
            ),
            Want::Success,
        ),
        (
            "success words while the final button is still there",
            tree(
                "https://secure.hulu.com/account/cancel/confirm",
                &[
                    ("heading", "Your subscription has been canceled"),
                    ("button", "Cancel Subscription"),
                ],
            ),
            Want::Unknown,
        ),
        (
            "a restart link does not undo success",
            tree(
                "https://secure.hulu.com/account/cancel/done",
                &[
                    ("heading", "Your subscription has been canceled"),
                    ("link", "Restart Subscription"),
                ],
            ),
            Want::Success,
        ),
        (
            "account page of a subscription canceled earlier",
            tree(
                ACCOUNT,
                &[
                    ("heading", "Account"),
                    (
                        "paragraph",
                        "Your subscription is canceled. You can keep watching until December 16, 2026.",
                    ),
                    ("link", "Restart Subscription"),
                ],
            ),
            Want::Already,
        ),
        (
            "billed through Roku",
            tree(ACCOUNT, &[("paragraph", "You're billed through Roku.")]),
            Want::Failure("billed through Roku: cancel it in your Roku account"),
        ),
        (
            "Disney bundle",
            tree(
                ACCOUNT,
                &[(
                    "paragraph",
                    "Your subscription is billed through Disney+ as part of the Disney Bundle.",
                )],
            ),
            Want::Failure("billed through Disney+: cancel it in your Disney+ account"),
        ),
        (
            "billed by a partner wins over a cancel link",
            tree(
                ACCOUNT,
                &[
                    ("paragraph", "Your subscription is billed by Verizon."),
                    ("link", "Cancel Your Subscription"),
                ],
            ),
            Want::Failure("billed through Verizon: cancel it in your account with Verizon"),
        ),
        (
            "billed by Hulu itself is no partner",
            tree(
                ACCOUNT,
                &[
                    ("paragraph", "You're billed by Hulu. Visa ending in 4242."),
                    ("link", "Cancel Your Subscription"),
                ],
            ),
            Want::Unknown,
        ),
        (
            "help pages describe partners without meaning this account",
            tree(
                "https://help.hulu.com/article/hulu-cancel-billed-by-partner",
                &[(
                    "paragraph",
                    "Your subscription is billed through Roku? Cancel it with Roku.",
                )],
            ),
            Want::Unknown,
        ),
        (
            "a conditional sentence on the account page",
            tree(
                ACCOUNT,
                &[
                    (
                        "paragraph",
                        "If you're billed through a partner, you'll cancel with them.",
                    ),
                    ("link", "Cancel Your Subscription"),
                ],
            ),
            Want::Unknown,
        ),
        (
            "error page",
            tree(
                "https://secure.hulu.com/account/cancel/submit",
                &[(
                    "heading",
                    "Uh oh! Something went wrong. Please try again later.",
                )],
            ),
            Want::Failure("error page"),
        ),
        (
            "not canceled",
            tree(
                ACCOUNT,
                &[
                    ("heading", "Your subscription was not canceled"),
                    ("paragraph", "Your subscription is canceled"),
                ],
            ),
            Want::Failure("was not canceled"),
        ),
        (
            "could not, alone, is not a failure",
            tree(
                ACCOUNT,
                &[
                    (
                        "paragraph",
                        "Could not find what you're looking for? Search Hulu.",
                    ),
                    ("link", "Cancel Your Subscription"),
                ],
            ),
            Want::Unknown,
        ),
        (
            "paused is not canceled",
            tree(
                "https://secure.hulu.com/account/paused",
                &[("heading", "Your subscription is paused")],
            ),
            Want::Unknown,
        ),
    ];
    for (name, snapshot, want) in cases {
        let got = Hulu.verify(&snapshot);
        assert!(judged(&got, &want), "{name}: got {got:?}, want {want:?}");
    }
}

#[test]
fn checkpoint_table() {
    let cases: Vec<(&str, ToolCall, Snapshot, bool)> = vec![
        (
            "the final button",
            click("button Cancel Subscription"),
            confirm(),
            true,
        ),
        (
            "pausing changes billing",
            click("button Pause Subscription"),
            pause(),
            true,
        ),
        (
            "accepting the discount",
            click("button Accept Offer"),
            pause(),
            true,
        ),
        (
            "switching to the cheaper plan",
            click("button Switch to Hulu (With Ads)"),
            pause(),
            true,
        ),
        (
            "subscribing again",
            click("link Restart Subscription"),
            account(),
            true,
        ),
        (
            "opening the flow",
            click("link Cancel Your Subscription"),
            account(),
            false,
        ),
        (
            "declining the pause",
            click("button Continue to Cancel"),
            pause(),
            false,
        ),
        (
            "declining the discount",
            click("button No Thanks, Continue to Cancel"),
            pause(),
            false,
        ),
        ("going back", click("link Go Back"), confirm(), false),
        (
            "a cookie banner is no offer",
            click("button Accept All Cookies"),
            account(),
            false,
        ),
        (
            "choosing a pause length presses nothing",
            ToolCall {
                action: "browser_select".into(),
                ..click("combobox Pause for")
            },
            pause(),
            false,
        ),
        (
            "a survey answer",
            ToolCall {
                action: "browser_select_option".into(),
                ..click("combobox Reason for leaving")
            },
            pause(),
            false,
        ),
        (
            "what a person sees counts, not only the accessible name",
            ToolCall {
                facts: Some(ElementFacts {
                    visible_text: "Cancel Subscription".into(),
                    tag: "button".into(),
                    ..ElementFacts::default()
                }),
                ..click("button Go Back")
            },
            confirm(),
            true,
        ),
        (
            "read-only actions never ask",
            ToolCall {
                action: "browser_snapshot".into(),
                ..ToolCall::default()
            },
            confirm(),
            false,
        ),
    ];
    for (name, call, snapshot, want) in cases {
        let got = Hulu.checkpoint(&call, &snapshot);
        assert_eq!(got.is_some(), want, "{name}: {got:?}");
    }
}

#[test]
fn detect_auth_table() {
    let cases: Vec<(&str, Snapshot, Option<AuthKind>)> = vec![
        ("account page", account(), None),
        ("final page", confirm(), None),
        (
            "log in",
            page(
                "https://auth.hulu.com/web/login?next=https%3A%2F%2Fsecure.hulu.com%2Faccount",
                "Log In | Hulu",
                "- heading \"Log In\"\n- textbox \"Email\"",
                vec![el("heading", "Log In")],
            ),
            Some(AuthKind::LoginRequired),
        ),
        (
            "one-time code",
            page(
                "https://auth.hulu.com/web/login/enter-passcode",
                "Log In | Hulu",
                "- paragraph: We sent a 6-digit code to a***@example.com.",
                vec![],
            ),
            Some(AuthKind::TwoFactor),
        ),
        (
            "captcha",
            page(
                ACCOUNT,
                "Hulu",
                "- paragraph: Please verify you're human",
                vec![],
            ),
            Some(AuthKind::Captcha),
        ),
        (
            "session expired",
            page(
                ACCOUNT,
                "Hulu",
                "- paragraph: Your session has expired.",
                vec![],
            ),
            Some(AuthKind::SessionExpired),
        ),
    ];
    for (name, snapshot, want) in cases {
        let got = Hulu.detect_auth(&snapshot).map(|e| e.kind);
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn metadata_names_hulus_own_origins() {
    let m = Hulu.metadata();
    assert_eq!(m.id, "hulu");
    assert_eq!(m.display_name, "Hulu");
    assert_eq!(m.initial_url, "https://secure.hulu.com/account");
    assert_eq!(
        m.allowed_origins,
        [
            "https://secure.hulu.com",
            "https://www.hulu.com",
            "https://help.hulu.com",
            "https://auth.hulu.com"
        ]
    );
    assert!(
        m.commit_requests
            .iter()
            .any(|r| r.matches("POST", "https://secure.hulu.com/account/cancel/submit"))
    );
    assert!(
        !m.commit_requests
            .iter()
            .any(|r| r.matches("POST", "https://secure.hulu.com/account/pause"))
    );
}

#[test]
fn plan_follows_the_flow_and_only_the_last_step_commits() {
    let plan = Hulu.plan();
    let marks: Vec<bool> = plan.iter().map(|s| s.irreversible).collect();
    assert_eq!(marks, [false, false, false, false, true]);
    let names =
        |step: &PlanStep, element: &Element| step.targets.iter().any(|h| h.matches(element));
    let last = &plan[4];
    assert!(names(last, &el("button", "Cancel Subscription")));
    // The steps before must not be taken for the final one, nor it for them.
    for element in [
        el("link", "Cancel Your Subscription"),
        el("button", "Continue to Cancel"),
        el("button", "No Thanks, Continue to Cancel"),
        el("combobox", "Reason for leaving"),
    ] {
        assert!(!names(last, &element), "{element:?}");
        assert!(plan[..4].iter().any(|s| names(s, &element)), "{element:?}");
    }
    for offer in [
        "Pause Subscription",
        "Accept Offer",
        "Switch to Hulu (With Ads)",
    ] {
        let offer = el("button", offer);
        assert!(!plan.iter().any(|s| names(s, &offer)), "{offer:?}");
    }
}
