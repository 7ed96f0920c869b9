#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;
use crate::plugin::types::{HintAction, RequestPattern, TargetHint};

fn step(description: &str, irreversible: bool) -> PlanStep {
    PlanStep {
        description: description.into(),
        done_when: "done".into(),
        targets: vec![TargetHint {
            role: Some("button".into()),
            name_patterns: vec![description.to_lowercase()],
            action: HintAction::Click,
            value: None,
            optional: false,
        }],
        irreversible,
    }
}

/// Open the account, answer the survey, finish: step 1 posts the survey.
fn plan() -> Vec<PlanStep> {
    vec![
        step("Open account", false),
        step("Answer survey", false),
        step("Finish cancellation", true),
    ]
}

fn entry(step: u32, method: &str, host: &str, path: &str) -> HarmlessRequest {
    HarmlessRequest {
        step,
        method: method.into(),
        host: host.into(),
        path: path.into(),
    }
}

fn metadata(harmless: Vec<HarmlessRequest>) -> Metadata {
    Metadata {
        id: "acme".into(),
        allowed_origins: vec![
            "https://www.acme.test".into(),
            "https://api.acme.test:8443".into(),
            "http://127.0.0.1:8080".into(),
        ],
        commit_url_patterns: vec!["*/confirm?token=*".into()],
        commit_requests: vec![
            RequestPattern {
                method: "POST".into(),
                url_pattern: "*/api/membership/end*".into(),
            },
            RequestPattern {
                method: "*".into(),
                url_pattern: "https://www.acme.test/account/leave".into(),
            },
        ],
        harmless,
        ..Metadata::default()
    }
}

/// What an honest plugin declares is let through.
#[test]
fn honest_entries_pass() {
    let cases = [
        entry(1, "POST", "www.acme.test", "/account/survey*"),
        entry(1, "PUT", "WWW.ACME.TEST", "/account/survey"),
        entry(0, "POST", "api.acme.test:8443", "/v1/events?page=account"),
        entry(1, "POST", "127.0.0.1:8080", "/survey"),
        // A locale in front of the literal segments.
        entry(1, "POST", "www.acme.test", "/*/account/survey*"),
        // The commit request for DELETE is not this POST's.
        entry(1, "PATCH", "www.acme.test", "/account/reasons"),
    ];
    for case in cases {
        let m = metadata(vec![case.clone()]);
        assert_eq!(check(&m, &plan()), Ok(()), "{case:?}");
    }
    assert_eq!(check(&metadata(Vec::new()), &plan()), Ok(()), "none");
}

/// Every lie a plugin could tell to spare a question on a commit: each is
/// refused at load, the message naming the entry's field.
#[test]
fn each_lie_is_refused_naming_the_field() {
    let ok_host = "www.acme.test";
    let ok_path = "/account/survey*";
    let cases: Vec<(&str, HarmlessRequest, &str)> = vec![
        // The lie the guard exists for: any POST, anywhere.
        (
            "POST *",
            entry(1, "POST", ok_host, "*"),
            "harmless-requests[0].path: \"*\" must start with '/'",
        ),
        (
            "POST /*",
            entry(1, "POST", ok_host, "/*"),
            "harmless-requests[0].path: \"/*\" is too broad",
        ),
        (
            "POST /**",
            entry(1, "POST", ok_host, "/**"),
            "harmless-requests[0].path: \"/**\" is too broad",
        ),
        (
            "one letter, then anything",
            entry(1, "POST", ok_host, "/a*"),
            "harmless-requests[0].path: \"/a*\" is too broad",
        ),
        (
            "literal text only after a wildcard",
            entry(1, "POST", ok_host, "/*survey"),
            "harmless-requests[0].path: \"/*survey\" is too broad",
        ),
        (
            "literal text only in the query",
            entry(1, "POST", ok_host, "/*?step=survey"),
            "harmless-requests[0].path: \"/*?step=survey\" is too broad",
        ),
        (
            "any prefix",
            entry(1, "POST", ok_host, "*/survey*"),
            "harmless-requests[0].path: \"*/survey*\" must start with '/'",
        ),
        (
            "a step the plan does not have",
            entry(3, "POST", ok_host, ok_path),
            "harmless-requests[0].step: 3 is not a step of the plan, which has 3",
        ),
        (
            "the largest step there is",
            entry(u32::MAX, "POST", ok_host, ok_path),
            "harmless-requests[0].step: 4294967295 is not a step",
        ),
        (
            "the irreversible step",
            entry(2, "POST", ok_host, ok_path),
            "harmless-requests[0].step: 2 is marked irreversible",
        ),
        (
            "GET passes anyway",
            entry(1, "GET", ok_host, ok_path),
            "harmless-requests[0].method: GET changes nothing",
        ),
        (
            "HEAD passes anyway",
            entry(1, "HEAD", ok_host, ok_path),
            "harmless-requests[0].method: HEAD changes nothing",
        ),
        (
            "OPTIONS passes anyway",
            entry(1, "OPTIONS", ok_host, ok_path),
            "harmless-requests[0].method: OPTIONS changes nothing",
        ),
        (
            "any method",
            entry(1, "*", ok_host, ok_path),
            "harmless-requests[0].method: \"*\" is not one HTTP method",
        ),
        (
            "two methods",
            entry(1, "POST|PUT", ok_host, ok_path),
            "harmless-requests[0].method: \"POST|PUT\" is not one HTTP method",
        ),
        (
            "no method",
            entry(1, "", ok_host, ok_path),
            "harmless-requests[0].method: \"\" is not one HTTP method",
        ),
        (
            "a wildcard host",
            entry(1, "POST", "*.acme.test", ok_path),
            "harmless-requests[0].host: \"*.acme.test\" has a wildcard",
        ),
        (
            "any host",
            entry(1, "POST", "*", ok_path),
            "harmless-requests[0].host: \"*\" has a wildcard",
        ),
        (
            "another site",
            entry(1, "POST", "billing.example", ok_path),
            "harmless-requests[0].host: \"billing.example\" is not the host of any of allowed-origins (www.acme.test, api.acme.test:8443, 127.0.0.1:8080)",
        ),
        (
            "a look-alike of an origin",
            entry(1, "POST", "www.acme.test.evil.example", ok_path),
            "harmless-requests[0].host: \"www.acme.test.evil.example\" is not the host",
        ),
        (
            "an origin's host without its port",
            entry(1, "POST", "api.acme.test", ok_path),
            "harmless-requests[0].host: \"api.acme.test\" is not the host",
        ),
        (
            "the default port, which a browser never writes",
            entry(1, "POST", "www.acme.test:443", ok_path),
            "harmless-requests[0].host: \"www.acme.test:443\" is not the host",
        ),
        (
            "an escape in the host",
            entry(1, "POST", "www.acme.test\u{1b}[2J", ok_path),
            "harmless-requests[0].host: contains the control character",
        ),
        (
            "a commit word",
            entry(1, "POST", ok_host, "/account/cancel*"),
            "harmless-requests[0].path: \"/account/cancel*\" holds \"cancel\"",
        ),
        (
            "a commit word in capitals",
            entry(1, "POST", ok_host, "/Account/CANCEL/survey"),
            "harmless-requests[0].path: \"/Account/CANCEL/survey\" holds \"CANCEL\"",
        ),
        (
            "a commit word split by a wildcard",
            entry(1, "POST", ok_host, "/account/can*cel"),
            "holds \"cancel\"",
        ),
        (
            "a commit word percent-encoded",
            entry(1, "POST", ok_host, "/account/%63ancel"),
            "holds \"cancel\"",
        ),
        (
            "a commit word encoded twice",
            entry(1, "POST", ok_host, "/account/%2563ancel"),
            "holds \"cancel\"",
        ),
        (
            "a commit word in the query",
            entry(1, "POST", ok_host, "/account/survey?then=unsubscribe"),
            "holds \"unsubscri\"",
        ),
        (
            "German",
            entry(1, "POST", ok_host, "/konto/Kündigung"),
            "holds \"Kündig\"",
        ),
        (
            "Japanese",
            entry(1, "POST", ok_host, "/account/解約"),
            "holds \"解約\"",
        ),
        (
            "pause",
            entry(1, "POST", ok_host, "/membership/pause*"),
            "holds \"pause\"",
        ),
        (
            "the plugin's own commit request, by a sample",
            entry(1, "POST", ok_host, "/api/membership/end"),
            "harmless-requests[0].path: \"/api/membership/end\" overlaps the plugin's own commit pattern POST \"*/api/membership/end*\" (commit-requests)",
        ),
        (
            "the plugin's own commit request, by its literal text",
            entry(1, "POST", ok_host, "/api/membership/*"),
            "overlaps the plugin's own commit pattern POST \"*/api/membership/end*\"",
        ),
        (
            "a commit request for any method",
            entry(1, "DELETE", ok_host, "/account/lea*"),
            "overlaps the plugin's own commit pattern * \"https://www.acme.test/account/leave\" (commit-requests)",
        ),
        (
            "the plugin's own commit URL",
            entry(1, "POST", ok_host, "/account/confirm?token=*"),
            "overlaps the plugin's own commit pattern \"*/confirm?token=*\" (commit-url-patterns)",
        ),
        (
            "seventeen entries",
            entry(1, "POST", ok_host, ok_path),
            "harmless-requests: 17 entries is over the 16 entry limit",
        ),
    ];
    for (name, bad, want) in cases {
        let entries = if name == "seventeen entries" {
            vec![bad; 17]
        } else {
            vec![entry(1, "POST", ok_host, ok_path), bad]
        };
        let want = if name == "seventeen entries" {
            want.to_owned()
        } else {
            // The honest entry first: the refusal names the second.
            want.replace("harmless-requests[0]", "harmless-requests[1]")
        };
        let got = check(&metadata(entries), &plan()).expect_err(name);
        assert!(got.contains(&want), "{name}: {got}");
    }
}

#[test]
fn a_commit_globs_literal_path() {
    let cases = [
        ("*/api/cancel*", "/api/cancel"),
        ("https://www.acme.test/account/leave", "/account/leave"),
        ("https://*.acme.test/end?x=*", "/end?x="),
        ("*cancel*", "/cancel"),
        ("https://www.acme.test", "/"),
    ];
    for (glob, want) in cases {
        assert_eq!(literal_path(glob), want, "{glob}");
    }
}
