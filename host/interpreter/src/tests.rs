#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

mod netflix;

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

fn call(action: &str, target: Option<Element>, shown: Option<&str>) -> ToolCall {
    ToolCall {
        action: action.into(),
        arguments_json: "{}".into(),
        facts: shown.map(|text| ElementFacts {
            visible_text: text.into(),
            tag: "button".into(),
            ..ElementFacts::default()
        }),
        target,
    }
}

fn click(role: &str, name: &str) -> ToolCall {
    call("browser_click", Some(el(role, name)), None)
}

/// A valid file with nothing but what every file needs, then `rules`.
fn service_with(rules: &str) -> Interpreted {
    let text = format!(
        r#"api = "0.2.0"

[service]
id = "t"
display-name = "T"
version = "0.1.0"
initial-url = "https://t.example/"
goal = "Cancel."
allowed-origins = ["https://t.example"]

[[plan]]
description = "Finish"
done-when = "Done"
irreversible = true
targets = [{{ action = "click", role = "button", name = ["finish"] }}]

{rules}
"#
    );
    Interpreted::from_text(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn readme_example() -> String {
    let readme = include_str!("../../../sdk/declarative/README.md");
    let start = readme.find("```toml\n").unwrap() + "```toml\n".len();
    let len = readme[start..].find("```").unwrap();
    readme[start..start + len].to_owned()
}

fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Success => "success",
        Verdict::Failure(_) => "failure",
        Verdict::Unknown => "unknown",
        Verdict::AlreadyCancelled => "already-cancelled",
    }
}

/// Each page key, held and not held, through a `[[success]]` rule.
#[test]
fn page_keys_table() {
    let cases = [
        (
            "url",
            "when = { url = [\"/DONE\"] }",
            page("https://t.example/cancel/done?x=1", "", "", vec![]),
            true,
        ),
        (
            "url not",
            "when = { url = [\"/done\"] }",
            page("https://t.example/account", "", "", vec![]),
            false,
        ),
        (
            "url-glob",
            "when = { url-glob = [\"*/cancel/*/done\"] }",
            page("https://t.example/cancel/42/done", "", "", vec![]),
            true,
        ),
        (
            "url-glob not",
            "when = { url-glob = [\"*/cancel/*/done\"] }",
            page("https://t.example/cancel/done/x", "", "", vec![]),
            false,
        ),
        (
            "title",
            "when = { title = [\"cancelled\"] }",
            page("https://t.example/", "Membership CANCELLED", "", vec![]),
            true,
        ),
        (
            "title not",
            "when = { title = [\"cancelled\"] }",
            page("https://t.example/", "Account", "cancelled", vec![]),
            false,
        ),
        (
            "title, non-ASCII",
            "when = { title = [\"kündigung\"] }",
            page("https://t.example/", "KÜNDIGUNG BESTÄTIGT", "", vec![]),
            true,
        ),
        (
            "content",
            "when = { content = [\"has been cancelled\"] }",
            page(
                "https://t.example/",
                "",
                "- paragraph: Your plan HAS BEEN cancelled",
                vec![],
            ),
            true,
        ),
        (
            "content not",
            "when = { content = [\"has been cancelled\"] }",
            page(
                "https://t.example/",
                "has been cancelled",
                "- paragraph: Welcome",
                vec![],
            ),
            false,
        ),
        (
            "element with role",
            "when = { element = [{ role = \"heading\", name = [\"cancelled\"] }] }",
            page(
                "https://t.example/",
                "",
                "",
                vec![el("heading", "Membership Cancelled")],
            ),
            true,
        ),
        (
            "element, wrong role",
            "when = { element = [{ role = \"heading\", name = [\"cancelled\"] }] }",
            page(
                "https://t.example/",
                "",
                "",
                vec![el("button", "Cancelled")],
            ),
            false,
        ),
        (
            "element, any role",
            "when = { element = [{ name = [\"restart\"] }] }",
            page(
                "https://t.example/",
                "",
                "",
                vec![el("link", "Restart membership")],
            ),
            true,
        ),
        (
            "every element entry",
            "when = { element = [{ name = [\"restart\"] }, { role = \"heading\", name = [\"cancelled\"] }] }",
            page(
                "https://t.example/",
                "",
                "",
                vec![el("link", "Restart"), el("heading", "Cancelled")],
            ),
            true,
        ),
        (
            "every element entry, one missing",
            "when = { element = [{ name = [\"restart\"] }, { role = \"heading\", name = [\"cancelled\"] }] }",
            page("https://t.example/", "", "", vec![el("link", "Restart")]),
            false,
        ),
        (
            "all keys hold",
            "when = { url = [\"/done\"], content = [\"cancelled\"] }",
            page("https://t.example/done", "", "cancelled", vec![]),
            true,
        ),
        (
            "one key fails",
            "when = { url = [\"/done\"], content = [\"cancelled\"] }",
            page("https://t.example/done", "", "welcome", vec![]),
            false,
        ),
        (
            "unless holds",
            "when = { content = [\"cancelled\"] }\nunless = { element = [{ role = \"button\", name = [\"finish\"] }] }",
            page(
                "https://t.example/",
                "",
                "cancelled",
                vec![el("button", "Finish cancellation")],
            ),
            false,
        ),
        (
            "unless does not hold",
            "when = { content = [\"cancelled\"] }\nunless = { element = [{ role = \"button\", name = [\"finish\"] }] }",
            page(
                "https://t.example/",
                "",
                "cancelled",
                vec![el("link", "Help")],
            ),
            true,
        ),
    ];
    for (name, rule, snapshot, want) in cases {
        let service = service_with(&format!("[[success]]\n{rule}"));
        let got = service.verify(&snapshot);
        assert_eq!(got == Verdict::Success, want, "{name}: {got:?}");
    }
}

/// Each call key, and the effect-free tools, through `[[checkpoint]]`.
#[test]
fn checkpoint_table() {
    let finish = "reason = \"finishes\"\nwhen = { target-name = [\"finish\"] }";
    let finish_unless_later = "reason = \"finishes\"\nwhen = { target-name = [\"finish\"] }\nunless = { target-name = [\"finish later\"] }";
    let blank = page("https://t.example/", "", "", vec![]);
    let cases = [
        (
            "target-name",
            finish,
            click("button", "Finish Cancellation"),
            true,
        ),
        (
            "target-name not",
            finish,
            click("button", "Continue"),
            false,
        ),
        (
            "effect-free tool never asks",
            finish,
            call("browser_snapshot", Some(el("button", "Finish")), None),
            false,
        ),
        (
            "every effect-free tool",
            "reason = \"any\"\nwhen = { url = [\"t.example\"] }",
            call("browser_wait_for", None, None),
            false,
        ),
        (
            "no target",
            finish,
            call("browser_press_key", None, None),
            false,
        ),
        (
            "label hides the shown text",
            finish,
            call(
                "browser_click",
                Some(el("button", "Go back")),
                Some("Finish Cancellation"),
            ),
            true,
        ),
        (
            "unless by name and shown text",
            finish_unless_later,
            call(
                "browser_click",
                Some(el("button", "Finish later")),
                Some("Finish later"),
            ),
            false,
        ),
        (
            "unless by name when nothing was read",
            finish_unless_later,
            click("button", "Finish later"),
            false,
        ),
        (
            "unless by label alone does not hold",
            finish_unless_later,
            call(
                "browser_click",
                Some(el("button", "Finish later")),
                Some("Finish cancellation"),
            ),
            true,
        ),
        (
            "action",
            "reason = \"leaves\"\nwhen = { action = [\"browser_navigate\"] }",
            call("browser_navigate", None, None),
            true,
        ),
        (
            "action not",
            "reason = \"leaves\"\nwhen = { action = [\"browser_navigate\"] }",
            click("link", "Home"),
            false,
        ),
        (
            "target-role",
            "reason = \"link\"\nwhen = { target-role = \"link\", target-name = [\"cancel\"] }",
            click("link", "Cancel plan"),
            true,
        ),
        (
            "target-role not",
            "reason = \"link\"\nwhen = { target-role = \"link\", target-name = [\"cancel\"] }",
            click("button", "Cancel plan"),
            false,
        ),
        (
            "page key in a checkpoint",
            "reason = \"on the final page\"\nwhen = { url = [\"t.example\"], action = [\"browser_click\"] }",
            click("button", "Anything"),
            true,
        ),
    ];
    for (name, rule, tool_call, want) in cases {
        let service = service_with(&format!("[[checkpoint]]\n{rule}"));
        let got = service.checkpoint(&tool_call, &blank);
        assert_eq!(got.is_some(), want, "{name}: {got:?}");
    }
}

#[test]
fn first_checkpoint_rule_gives_the_reason() {
    let service = service_with(
        "[[checkpoint]]\nreason = \"first\"\nwhen = { target-name = [\"finish\"] }\n\n\
         [[checkpoint]]\nreason = \"second\"\nwhen = { target-name = [\"cancellation\"] }",
    );
    let blank = page("https://t.example/", "", "", vec![]);
    let cases = [
        ("Finish cancellation", Some("first")),
        ("Confirm cancellation", Some("second")),
        ("Continue", None),
    ];
    for (name, want) in cases {
        let got = service.checkpoint(&click("button", name), &blank);
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

/// Failure before already-cancelled before success.
#[test]
fn verdict_order_table() {
    let service = service_with(
        "[[success]]\nwhen = { content = [\"cancelled\"] }\n\n\
         [[already-cancelled]]\nwhen = { content = [\"already cancelled\"] }\n\n\
         [[failure]]\nreason = \"the site failed\"\nwhen = { content = [\"went wrong\"] }\n\n\
         [[failure]]\nreason = \"an error page\"\nwhen = { url = [\"/error\"] }",
    );
    let at = |url: &str, content: &str| page(url, "", content, vec![]);
    let cases = [
        (
            "success",
            at("https://t.example/", "Your plan was cancelled"),
            Verdict::Success,
        ),
        (
            "already",
            at("https://t.example/", "Your plan was already cancelled"),
            Verdict::AlreadyCancelled,
        ),
        (
            "failure beats success",
            at("https://t.example/", "cancelled, but something went wrong"),
            Verdict::Failure("the site failed".into()),
        ),
        (
            "failure beats already",
            at("https://t.example/error", "already cancelled"),
            Verdict::Failure("an error page".into()),
        ),
        (
            "nothing",
            at("https://t.example/", "Welcome"),
            Verdict::Unknown,
        ),
    ];
    for (name, snapshot, want) in cases {
        assert_eq!(service.verify(&snapshot), want, "{name}");
    }
}

#[test]
fn auth_table() {
    let service = service_with(
        "[[auth]]\nkind = \"two-factor\"\nmessage = \"Enter the code.\"\nwhen = { content = [\"verification code\"] }\n\n\
         [[auth]]\nkind = \"captcha\"\nmessage = \"Solve it.\"\nwhen = { title = [\"are you human\"] }\n\n\
         [[auth]]\nkind = \"session-expired\"\nmessage = \"Sign in again.\"\nwhen = { content = [\"session expired\"] }\nunless = { url = [\"/help\"] }\n\n\
         [[auth]]\nkind = \"login-required\"\nmessage = \"Sign in.\"\nwhen = { url-glob = [\"*/login*\"] }",
    );
    let cases = [
        (
            "two-factor first",
            page(
                "https://t.example/login",
                "",
                "Enter the verification code",
                vec![],
            ),
            Some((AuthKind::TwoFactor, "Enter the code.")),
        ),
        (
            "captcha",
            page("https://t.example/", "Are you human?", "", vec![]),
            Some((AuthKind::Captcha, "Solve it.")),
        ),
        (
            "session expired",
            page("https://t.example/", "", "Your session expired", vec![]),
            Some((AuthKind::SessionExpired, "Sign in again.")),
        ),
        (
            "session expired, unless",
            page(
                "https://t.example/help",
                "",
                "What if my session expired?",
                vec![],
            ),
            None,
        ),
        (
            "login",
            page("https://t.example/login?next=/", "", "", vec![]),
            Some((AuthKind::LoginRequired, "Sign in.")),
        ),
        (
            "none",
            page("https://t.example/account", "Account", "Welcome", vec![]),
            None,
        ),
    ];
    for (name, snapshot, want) in cases {
        let got = service.detect_auth(&snapshot);
        let got = got.as_ref().map(|e| (e.kind, e.message.as_str()));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn metadata_and_plan_convert_to_the_sdk() {
    let service = Interpreted::from_text(&readme_example()).unwrap();
    let meta = service.metadata();
    assert_eq!(meta.id, "example");
    assert_eq!(meta.login_url_patterns, ["*/login*"]);
    assert_eq!(
        meta.commit_requests,
        [RequestPattern::new("POST", "*/cancel/finish*")]
    );
    assert_eq!(
        meta.interruptions,
        [TargetHint::click("button", &["continue in browser"])]
    );
    assert_eq!(
        meta.harmless_requests,
        [HarmlessRequest::new(
            0,
            "POST",
            "www.example.com",
            "/account/survey*"
        )]
    );
    assert_eq!(meta.billing_descriptors, ["EXAMPLE.COM*", "EXAMPLE *"]);
    let plan = service.plan();
    assert_eq!(plan.len(), 2);
    assert!(!plan[0].irreversible && plan[1].irreversible);
    assert_eq!(
        plan[1].targets,
        [TargetHint::click("button", &["finish cancellation"])]
    );

    let select = service_with(
        "[[plan]]\ndescription = \"Survey\"\ndone-when = \"Answered\"\n\
         targets = [{ action = \"select\", role = \"combobox\", name = [\"reason\"], value = \"Other\", optional = true }, \
         { action = \"fill\", name = [\"comment\"], value = \"none\" }]",
    );
    let plan = select.plan();
    assert_eq!(
        plan[1].targets[0],
        TargetHint::select(&["reason"], "Other").optional()
    );
    assert_eq!(plan[1].targets[1].action, HintAction::Fill);
    assert_eq!(plan[1].targets[1].role, None);
}

/// The README's example, end to end.
#[test]
fn readme_example_end_to_end() {
    let service = Interpreted::from_text(&readme_example()).unwrap();
    let final_page = page(
        "https://www.example.com/cancel/final",
        "Finish cancellation",
        "- heading \"Are you sure?\"\n- button \"Finish cancellation\"",
        vec![
            el("heading", "Are you sure?"),
            el("button", "Finish cancellation"),
        ],
    );
    let cancelled = page(
        "https://www.example.com/cancel/done",
        "Cancelled",
        "- heading \"Your subscription has been cancelled\"",
        vec![el("heading", "Your subscription has been cancelled")],
    );
    let finish = click("button", "Finish cancellation");

    assert_eq!(
        service.checkpoint(&finish, &final_page).as_deref(),
        Some("This click finishes the cancellation")
    );
    let look = call(
        "browser_snapshot",
        Some(el("button", "Finish cancellation")),
        None,
    );
    assert_eq!(service.checkpoint(&look, &final_page), None);
    assert_eq!(
        service.checkpoint(&click("button", "Go back"), &final_page),
        None
    );

    assert_eq!(service.verify(&cancelled), Verdict::Success);
    // The heading alone is not enough while the way to commit is still there.
    let mut pending = cancelled.clone();
    pending.elements.push(el("button", "Finish cancellation"));
    assert_eq!(service.verify(&pending), Verdict::Unknown);
    assert_eq!(service.verify(&final_page), Verdict::Unknown);
    let error = page("https://www.example.com/error", "Oops", "", vec![]);
    assert_eq!(
        service.verify(&error),
        Verdict::Failure("the site reported an error".into())
    );
    let already = page(
        "https://www.example.com/account",
        "",
        "Your plan was already cancelled",
        vec![],
    );
    assert_eq!(service.verify(&already), Verdict::AlreadyCancelled);

    let login = page(
        "https://www.example.com/login?next=/account",
        "Sign in",
        "",
        vec![],
    );
    let event = service.detect_auth(&login).unwrap();
    assert_eq!(event.kind, AuthKind::LoginRequired);
    assert_eq!(event.message, "Example needs you to sign in.");
    assert_eq!(service.detect_auth(&cancelled), None);
}

/// A refused file: the host sees an empty id (which it refuses) and the
/// error as the display name; nothing else answers.
#[test]
fn refused_file_answers_with_its_error() {
    let plugin =
        Interpreter::from_text(&readme_example().replace("api = \"0.4.0\"", "api = \"9.9.9\""));
    let meta = plugin.metadata();
    assert_eq!(meta.id, "");
    assert!(
        meta.display_name.starts_with("service.toml: line 1: api:"),
        "{}",
        meta.display_name
    );
    assert!(plugin.plan().is_empty());
    let snapshot = page(
        "https://www.example.com/login",
        "",
        "has been cancelled",
        vec![],
    );
    assert_eq!(plugin.verify(&snapshot), Verdict::Unknown);
    assert_eq!(plugin.detect_auth(&snapshot), None);
    assert_eq!(
        plugin.checkpoint(&click("button", "Finish"), &snapshot),
        None
    );

    let good = Interpreter::from_text(&readme_example());
    assert_eq!(good.metadata().id, "example");
    assert_eq!(good.plan().len(), 2);
}
