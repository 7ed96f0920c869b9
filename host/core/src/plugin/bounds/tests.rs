#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;
use crate::plugin::types::{HintAction, RequestPattern};

fn good() -> Metadata {
    Metadata {
        id: "acme".into(),
        display_name: "Acme".into(),
        version: "1.0.0".into(),
        initial_url: "https://www.acme.test/account".into(),
        goal: "Cancel the Acme plan.\nThen stop.".into(),
        system_prompt_addition: String::new(),
        allowed_origins: vec!["https://www.acme.test".into()],
        login_url_patterns: vec!["*/login*".into()],
        commit_url_patterns: Vec::new(),
        commit_requests: vec![RequestPattern {
            method: "POST".into(),
            url_pattern: "*/cancel*".into(),
        }],
        overlays: Vec::new(),
        harmless: Vec::new(),
        billing_descriptors: vec!["ACME.COM*".into(), "ACME *".into()],
    }
}

fn interruption(action: HintAction, names: &[&str]) -> TargetHint {
    TargetHint {
        role: Some("button".into()),
        name_patterns: names.iter().map(|n| (*n).to_owned()).collect(),
        action,
        value: None,
        optional: false,
    }
}

#[test]
fn metadata_bounds_name_the_field() {
    type Break = fn(&mut Metadata);
    let cases: &[(&str, Break, Option<&str>)] = &[
        ("as written", |_| {}, None),
        (
            "megabyte goal",
            |m| m.goal = "x".repeat(1 << 20),
            Some("goal: 1048576 characters"),
        ),
        (
            "escape in goal",
            |m| m.goal = "press y\u{1b}[2J".into(),
            Some("goal: contains the control character"),
        ),
        (
            "newline in display name",
            |m| m.display_name = "Acme\nalready approved".into(),
            Some("display-name: contains"),
        ),
        (
            "bidi override in display name",
            |m| m.display_name = "Acme\u{202e}".into(),
            Some("display-name: contains"),
        ),
        (
            "http origin",
            |m| m.allowed_origins = vec!["http://www.acme.test".into()],
            Some("allowed-origins[0]: \"http://www.acme.test\" is http, not https"),
        ),
        (
            "javascript initial url",
            |m| m.initial_url = "javascript:alert(1)".into(),
            Some("initial-url"),
        ),
        (
            "file origin",
            |m| m.allowed_origins = vec!["file:///etc".into()],
            Some("allowed-origins[0]"),
        ),
        (
            "loopback http is the practice sites'",
            |m| m.allowed_origins = vec!["http://127.0.0.1".into(), "http://[::1]".into()],
            None,
        ),
        (
            "no origins",
            |m| m.allowed_origins.clear(),
            Some("allowed-origins: empty"),
        ),
        (
            "thousand login patterns",
            |m| m.login_url_patterns = vec!["*/x*".into(); 1000],
            Some("login-url-patterns: 1000 entries"),
        ),
        (
            "long url pattern",
            |m| m.commit_requests[0].url_pattern = "*".repeat(5000),
            Some("commit-requests[0].url-pattern: 5000 characters"),
        ),
        ("bad id", |m| m.id = "Acme!".into(), Some("id \"Acme!\"")),
        (
            "long id",
            |m| m.id = "a".repeat(65),
            Some("must be 1-64 characters"),
        ),
        (
            "huge version",
            |m| m.version = "1".repeat(100),
            Some("version: 100 characters"),
        ),
        (
            "an interruption closed by a click",
            |m| m.overlays = vec![interruption(HintAction::Click, &["close help"])],
            None,
        ),
        (
            "an interruption filled in",
            |m| m.overlays = vec![interruption(HintAction::Fill, &["email"])],
            Some("interruptions[0].action: an interruption is dismissed by a click"),
        ),
        (
            "a blank interruption pattern names every button",
            |m| m.overlays = vec![interruption(HintAction::Click, &["close", " "])],
            Some("interruptions[0].name-patterns: needs at least one pattern"),
        ),
        (
            "an interruption with no pattern",
            |m| m.overlays = vec![interruption(HintAction::Click, &[])],
            Some("interruptions[0].name-patterns"),
        ),
        (
            "a hundred interruptions",
            |m| m.overlays = vec![interruption(HintAction::Click, &["x"]); 100],
            Some("interruptions: 100 entries"),
        ),
        (
            "a bank's own star",
            |m| m.billing_descriptors = vec!["HLU*HULU*".into(), "NYT *".into()],
            None,
        ),
        (
            "seventeen billing descriptors",
            |m| m.billing_descriptors = vec!["ACME".into(); 17],
            Some("billing-descriptors: 17 entries is over the 16 entry limit"),
        ),
        (
            "one letter names any charge",
            |m| m.billing_descriptors = vec!["A".into()],
            Some("billing-descriptors[0]: \"A\" needs at least 2 characters besides '*'"),
        ),
        (
            "wildcards name any charge",
            |m| m.billing_descriptors = vec!["ACME".into(), "**".into()],
            Some("billing-descriptors[1]: \"**\" needs at least 2 characters"),
        ),
        (
            "a wildcard and spaces",
            |m| m.billing_descriptors = vec![" * ".into()],
            Some("billing-descriptors[0]"),
        ),
        (
            "a descriptor over 64 characters",
            |m| m.billing_descriptors = vec!["A".repeat(65)],
            Some("billing-descriptors[0]: 65 characters is over the 64 character limit"),
        ),
        (
            "an escape in a descriptor",
            |m| m.billing_descriptors = vec!["ACME\u{1b}[2J".into()],
            Some("billing-descriptors[0]: contains the control character"),
        ),
        (
            "a bidi override in a descriptor",
            |m| m.billing_descriptors = vec!["ACME\u{202e}".into()],
            Some("billing-descriptors[0]: contains"),
        ),
    ];
    for (name, breaks, want) in cases {
        let mut m = good();
        breaks(&mut m);
        let got = check_metadata(&m);
        match want {
            None => assert_eq!(got, Ok(()), "{name}"),
            Some(want) => {
                let e = got.expect_err(name);
                assert!(e.contains(want), "{name}: {e}");
            }
        }
    }
}

fn step(description: &str, patterns: Vec<String>) -> PlanStep {
    PlanStep {
        description: description.into(),
        done_when: "done".into(),
        targets: vec![TargetHint {
            role: Some("button".into()),
            name_patterns: patterns,
            action: HintAction::Click,
            value: None,
            optional: false,
        }],
        irreversible: true,
    }
}

#[test]
fn plan_bounds_name_the_step() {
    let cases: Vec<(&str, Vec<PlanStep>, Option<&str>)> = vec![
        ("fine", vec![step("Finish", vec!["finish".into()])], None),
        (
            "hundred steps",
            vec![step("s", vec!["x".into()]); 100],
            Some("plan: 100 steps"),
        ),
        (
            "long pattern",
            vec![step("s", vec!["x".repeat(10_000)])],
            Some("plan[0].targets[0].name-patterns[0]: 10000 characters"),
        ),
        (
            "escape in description",
            vec![step("\u{1b}]0;owned\u{7}", vec!["x".into()])],
            Some("plan[0].description: contains"),
        ),
    ];
    for (name, plan, want) in cases {
        let got = check_plan(&plan);
        match want {
            None => assert_eq!(got, Ok(()), "{name}"),
            Some(want) => {
                let e = got.expect_err(name);
                assert!(e.contains(want), "{name}: {e}");
            }
        }
    }
}

#[test]
fn said_text_is_cleaned_and_cut() {
    let cases = [
        ("plain", "This click cancels", "This click cancels"),
        (
            "escape sequences",
            "\u{1b}[2J\u{1b}]0;title\u{7}Already approved",
            "Already approved",
        ),
        ("lines", "one\ntwo", "one / two"),
    ];
    for (name, said, want) in cases {
        assert_eq!(clean_said(said), want, "{name}");
    }
    let long = clean_said(&"y".repeat(1 << 20));
    assert_eq!(
        long.chars().count(),
        SHORT_TEXT_MAX_CHARS + 1,
        "cut, with …"
    );
}

#[test]
fn loopback_hosts() {
    for (host, want) in [
        ("127.0.0.1", true),
        ("localhost", true),
        ("[::1]", true),
        ("127.9.9.9", true),
        ("10.0.0.1", false),
        ("localhost.evil.test", false),
    ] {
        assert_eq!(is_loopback(host), want, "{host}");
    }
}
