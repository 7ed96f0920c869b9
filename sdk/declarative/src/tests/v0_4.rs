//! `api = "0.4.0"`: harmless requests and billing descriptors, each bound a
//! small edit of the README example (whose harmless request is step 0's
//! `POST www.example.com /account/survey*`).

use super::*;

const HARMLESS: &str = "harmless-requests = [{ step = 0, method = \"POST\", host = \"www.example.com\", path = \"/account/survey*\" }]";
const DESCRIPTORS: &str = "billing-descriptors = [\"EXAMPLE.COM*\", \"EXAMPLE *\"]";

/// The README example with its harmless request written as `entry`.
fn harmless(entry: &str) -> String {
    edited(HARMLESS, &format!("harmless-requests = [{entry}]"))
}

fn descriptors(list: &str) -> String {
    edited(DESCRIPTORS, &format!("billing-descriptors = {list}"))
}

#[test]
fn the_readme_example_declares_both() {
    let file = parse(&readme_example()).unwrap();
    assert_eq!(
        file.service.harmless_requests,
        [HarmlessRequest {
            step: 0,
            method: "POST".into(),
            host: "www.example.com".into(),
            path: "/account/survey*".into(),
        }]
    );
    assert_eq!(
        file.service.billing_descriptors,
        ["EXAMPLE.COM*", "EXAMPLE *"]
    );
}

/// Every way an entry could spare a question it should not, or name every
/// charge: the key the refusal names, and a word of its message.
#[test]
fn each_bound_is_refused_naming_its_key() {
    let entry = |step: &str, method: &str, host: &str, path: &str| {
        harmless(&format!(
            "{{ step = {step}, method = \"{method}\", host = \"{host}\", path = \"{path}\" }}"
        ))
    };
    let ok = "www.example.com";
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "harmless requests in a 0.3.0 file",
            edited("api = \"0.4.0\"", "api = \"0.3.0\""),
            "service.harmless-requests",
            "needs api = \"0.4.0\" or later",
        ),
        (
            "billing descriptors in a 0.3.0 file",
            edited("api = \"0.4.0\"", "api = \"0.3.0\"").replacen(HARMLESS, "", 1),
            "service.billing-descriptors",
            "needs api = \"0.4.0\" or later",
        ),
        (
            "a step the plan does not have",
            entry("7", "POST", ok, "/account/survey*"),
            "service.harmless-requests[0].step",
            "is not a step of the plan",
        ),
        (
            "the irreversible step",
            entry("1", "POST", ok, "/account/survey*"),
            "service.harmless-requests[0].step",
            "is the irreversible step",
        ),
        (
            "GET passes anyway",
            entry("0", "GET", ok, "/account/survey*"),
            "service.harmless-requests[0].method",
            "passes anyway",
        ),
        (
            "head, in lower case",
            entry("0", "head", ok, "/account/survey*"),
            "service.harmless-requests[0].method",
            "passes anyway",
        ),
        (
            "OPTIONS",
            entry("0", "OPTIONS", ok, "/account/survey*"),
            "service.harmless-requests[0].method",
            "passes anyway",
        ),
        (
            "any method",
            entry("0", "*", ok, "/account/survey*"),
            "service.harmless-requests[0].method",
            "not one HTTP method",
        ),
        (
            "two methods",
            entry("0", "POST PUT", ok, "/account/survey*"),
            "service.harmless-requests[0].method",
            "not one HTTP method",
        ),
        (
            "a wildcard host",
            entry("0", "POST", "*.example.com", "/account/survey*"),
            "service.harmless-requests[0].host",
            "wildcard",
        ),
        (
            "any host",
            entry("0", "POST", "*", "/account/survey*"),
            "service.harmless-requests[0].host",
            "wildcard",
        ),
        (
            "a host not among the origins",
            entry("0", "POST", "www.example.com.evil.test", "/account/survey*"),
            "service.harmless-requests[0].host",
            "not the host of any of service.allowed-origins (www.example.com)",
        ),
        (
            "a URL, not a host",
            entry("0", "POST", "https://www.example.com", "/account/survey*"),
            "service.harmless-requests[0].host",
            "is not a host[:port]",
        ),
        (
            "the default port, which a browser never writes",
            entry("0", "POST", "www.example.com:443", "/account/survey*"),
            "service.harmless-requests[0].host",
            "not the host of any",
        ),
        (
            "every path",
            entry("0", "POST", ok, "*"),
            "service.harmless-requests[0].path",
            "must start with '/'",
        ),
        (
            "any prefix",
            entry("0", "POST", ok, "*/survey*"),
            "service.harmless-requests[0].path",
            "must start with '/'",
        ),
        (
            "every path from the root",
            entry("0", "POST", ok, "/*"),
            "service.harmless-requests[0].path",
            "too broad",
        ),
        (
            "every path, twice",
            entry("0", "POST", ok, "/**"),
            "service.harmless-requests[0].path",
            "too broad",
        ),
        (
            "one letter, then anything",
            entry("0", "POST", ok, "/a*"),
            "service.harmless-requests[0].path",
            "too broad",
        ),
        (
            "literal text only after a wildcard",
            entry("0", "POST", ok, "/*survey*"),
            "service.harmless-requests[0].path",
            "too broad",
        ),
        (
            "literal text only in the query",
            entry("0", "POST", ok, "/*?form=survey"),
            "service.harmless-requests[0].path",
            "too broad",
        ),
        (
            "a blank path",
            entry("0", "POST", ok, " "),
            "service.harmless-requests[0].path",
            "is blank",
        ),
        (
            "a path with an escape",
            entry("0", "POST", ok, "/account/survey\\u001b[2J"),
            "service.harmless-requests[0].path",
            "control character",
        ),
        (
            "seventeen harmless requests",
            harmless(&vec!["{ step = 0, method = \"POST\", host = \"www.example.com\", path = \"/survey\" }"; 17].join(", ")),
            "service.harmless-requests",
            "17 entries is over the 16 limit",
        ),
        (
            "one letter names any charge",
            descriptors("[\"X\"]"),
            "service.billing-descriptors[0]",
            "at least 2 characters",
        ),
        (
            "wildcards name any charge",
            descriptors("[\"NETFLIX\", \"**\"]"),
            "service.billing-descriptors[1]",
            "at least 2 characters",
        ),
        (
            "a wildcard and spaces",
            descriptors("[\" * \"]"),
            "service.billing-descriptors[0]",
            "at least 2 characters",
        ),
        (
            "a descriptor over 64 characters",
            descriptors(&format!("[\"{}\"]", "N".repeat(65))),
            "service.billing-descriptors[0]",
            "65 characters is over the 64 limit",
        ),
        (
            "a control character",
            descriptors("[\"NETFLIX\\u0007\"]"),
            "service.billing-descriptors[0]",
            "control character",
        ),
        (
            "seventeen descriptors",
            descriptors(&list_of(17, "NETFLIX")),
            "service.billing-descriptors",
            "17 entries is over the 16 limit",
        ),
    ];
    for (name, text, key, says) in cases {
        let err = parse(&text).expect_err(name);
        assert_eq!(err.key.as_deref(), Some(key), "{name}: {err}");
        assert!(err.to_string().contains(says), "{name}: {err}");
        assert!(err.line.is_some(), "{name}: no line in {err}");
        assert!(!err.to_string().contains('\u{1b}'), "{name}: {err:?}");
    }
}

#[test]
fn within_bounds_is_accepted() {
    let with_origin = |origin: &str, entry: &str| {
        harmless(entry).replacen(
            "allowed-origins = [\"https://www.example.com\"]",
            &format!("allowed-origins = [\"https://www.example.com\", \"{origin}\"]"),
            1,
        )
    };
    let cases = [
        (
            "a method in lower case",
            harmless(
                "{ step = 0, method = \"put\", host = \"www.example.com\", path = \"/account/survey\" }",
            ),
        ),
        (
            "a host in capitals",
            harmless(
                "{ step = 0, method = \"POST\", host = \"WWW.Example.com\", path = \"/account/survey\" }",
            ),
        ),
        (
            "a locale prefix before the literal segments",
            harmless(
                "{ step = 0, method = \"POST\", host = \"www.example.com\", path = \"/*/account/survey*\" }",
            ),
        ),
        (
            "a loopback origin with its port",
            with_origin(
                "http://127.0.0.1:8080",
                "{ step = 0, method = \"POST\", host = \"127.0.0.1:8080\", path = \"/survey\" }",
            ),
        ),
        (
            "an origin written with its default port and a slash",
            with_origin(
                "https://api.example.com:443/",
                "{ step = 0, method = \"POST\", host = \"api.example.com\", path = \"/v1/survey\" }",
            ),
        ),
        ("no descriptors", descriptors("[]")),
        (
            "a bank's own star",
            descriptors("[\"HLU*HULU*\", \"NYT *\"]"),
        ),
        ("an older file, as it was", {
            edited("api = \"0.4.0\"", "api = \"0.3.0\"")
                .replacen(HARMLESS, "", 1)
                .replacen(DESCRIPTORS, "", 1)
        }),
    ];
    for (name, text) in cases {
        if let Err(e) = parse(&text) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn unknown_keys_in_a_harmless_request_name_the_key() {
    let text = harmless(
        "{ step = 0, method = \"POST\", host = \"www.example.com\", path = \"/survey\", body = \"x\" }",
    );
    let err = parse(&text).unwrap_err();
    assert_eq!(err.kind, ErrorKind::UnknownKey, "{err}");
    assert_eq!(err.key.as_deref(), Some("body"), "{err}");
}

#[test]
fn a_step_must_be_a_whole_number() {
    for (name, step) in [
        ("negative", "-1"),
        ("a word", "\"first\""),
        ("a fraction", "0.5"),
    ] {
        let text = harmless(&format!(
            "{{ step = {step}, method = \"POST\", host = \"www.example.com\", path = \"/survey\" }}"
        ));
        assert!(parse(&text).is_err(), "{name}");
    }
}
