#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

mod v0_4;

/// The example in the README, which is the specification: if the two part,
/// this test says so.
fn readme_example() -> String {
    let readme = include_str!("../README.md");
    let start = readme.find("```toml\n").unwrap() + "```toml\n".len();
    let len = readme[start..].find("```").unwrap();
    readme[start..start + len].to_owned()
}

/// The README example with `from` replaced by `to` (which must be there).
fn edited(from: &str, to: &str) -> String {
    let base = readme_example();
    assert!(base.contains(from), "the example has no {from:?}");
    base.replacen(from, to, 1)
}

/// 1-based line of the first `marker` in `text`.
fn line_of_marker(text: &str, marker: &str) -> usize {
    let at = text.find(marker).unwrap_or_else(|| panic!("no {marker:?}"));
    text[..at].matches('\n').count() + 1
}

fn list_of(n: usize, item: &str) -> String {
    let items: Vec<String> = (0..n).map(|i| format!("\"{item}{i}\"")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn readme_example_parses() {
    let file = parse(&readme_example()).unwrap();
    assert_eq!(file.api, API_VERSION);
    assert_eq!(file.service.id, "example");
    assert_eq!(file.service.commit_requests[0].method, "POST");
    assert_eq!(file.plan.len(), 2);
    assert!(file.plan[1].irreversible && !file.plan[0].irreversible);
    assert_eq!(file.plan[0].targets[0].action, TargetAction::Click);
    assert_eq!(
        file.checkpoint[0].when.target_name.as_deref().unwrap(),
        ["finish", "confirm"]
    );
    assert!(file.success[0].unless.is_some());
    assert_eq!(file.auth[0].kind, AuthKind::LoginRequired);
    assert_eq!(file.already_cancelled.len(), 1);
}

#[test]
fn netflix_example_parses() {
    let file = parse(include_str!("../examples/netflix.toml")).unwrap();
    assert_eq!(file.service.id, "netflix-declarative");
    assert!(
        file.plan
            .iter()
            .any(|s| s.irreversible && !s.targets.is_empty())
    );
}

/// One case per bound, each a small edit of the README example: what it
/// breaks, the key the refusal must name, and a text on the line it must
/// name (`None`: no line is expected).
#[test]
fn each_bound_is_refused_naming_its_key() {
    let cases: Vec<(&str, String, &str, Option<&str>)> = vec![
        (
            "wrong api",
            edited("api = \"0.4.0\"", "api = \"0.9.0\""),
            "api",
            Some("api ="),
        ),
        (
            "api a number",
            edited("api = \"0.4.0\"", "api = 2"),
            "api",
            Some("api ="),
        ),
        ("no api", edited("api = \"0.4.0\"", ""), "api", None),
        (
            "no api, [service] first",
            readme_example()
                .replacen("api = \"0.4.0\"", "", 1)
                .trim_start()
                .to_owned(),
            "api",
            None,
        ),
        (
            "interruptions in a 0.2.0 file",
            edited("api = \"0.4.0\"", "api = \"0.2.0\""),
            "service.interruptions",
            Some("interruptions ="),
        ),
        (
            "an interruption filled in",
            edited(
                "interruptions = [{ action = \"click\"",
                "interruptions = [{ action = \"fill\"",
            ),
            "service.interruptions[0].action",
            Some("interruptions ="),
        ),
        (
            "a blank interruption name",
            edited(
                "name = [\"continue in browser\"]",
                "name = [\"continue in browser\", \" \"]",
            ),
            "service.interruptions[0].name",
            Some("interruptions ="),
        ),
        (
            "no goal",
            edited("goal = \"Cancel the Example subscription. …\"", ""),
            "service.goal",
            Some("[service]"),
        ),
        (
            "no reason",
            edited("reason = \"the site reported an error\"", ""),
            "failure[0].reason",
            Some("[[failure]]"),
        ),
        (
            "no name in a target",
            edited(", name = [\"cancel subscription\"] }", " }"),
            "plan[0].targets[0].name",
            Some("targets = [{ action = \"click\", role = \"button\" }]"),
        ),
        (
            "goal over its limit",
            edited("goal = \"Cancel", &format!("goal = \"{}", "g".repeat(2400))),
            "service.goal",
            Some("goal ="),
        ),
        (
            "system prompt over its limit",
            edited(
                "system-prompt-addition = \"\"",
                &format!("system-prompt-addition = \"{}\"", "s".repeat(4001)),
            ),
            "service.system-prompt-addition",
            Some("system-prompt-addition"),
        ),
        (
            "display name over its limit",
            edited(
                "display-name = \"Example\"",
                &format!("display-name = \"{}\"", "d".repeat(81)),
            ),
            "service.display-name",
            Some("display-name"),
        ),
        (
            "display name blank",
            edited("display-name = \"Example\"", "display-name = \"  \""),
            "service.display-name",
            Some("display-name"),
        ),
        (
            "display name with a line break",
            edited(
                "display-name = \"Example\"",
                "display-name = \"Ex\\nample\"",
            ),
            "service.display-name",
            Some("display-name"),
        ),
        (
            "id with capitals",
            edited("id = \"example\"", "id = \"Example\""),
            "service.id",
            Some("id ="),
        ),
        (
            "id empty",
            edited("id = \"example\"", "id = \"\""),
            "service.id",
            Some("id ="),
        ),
        (
            "id too long",
            edited("id = \"example\"", &format!("id = \"{}\"", "a".repeat(65))),
            "service.id",
            Some("id ="),
        ),
        (
            "id with a path",
            edited("id = \"example\"", "id = \"../x\""),
            "service.id",
            Some("id ="),
        ),
        (
            "version not semver",
            edited("version = \"0.1.0\"", "version = \"0.1\""),
            "service.version",
            Some("version ="),
        ),
        (
            "version too long",
            edited(
                "version = \"0.1.0\"",
                &format!("version = \"0.1.0-{}\"", "a".repeat(40)),
            ),
            "service.version",
            Some("version ="),
        ),
        (
            "origin on plain http",
            edited(
                "allowed-origins = [\"https://www.example.com\"]",
                "allowed-origins = [\"https://www.example.com\", \"http://www.example.com\"]",
            ),
            "service.allowed-origins[1]",
            Some("allowed-origins"),
        ),
        (
            "loopback name hiding another host",
            edited(
                "allowed-origins = [\"https://www.example.com\"]",
                "allowed-origins = [\"http://127.0.0.1@evil.example\"]",
            ),
            "service.allowed-origins[0]",
            Some("allowed-origins"),
        ),
        (
            "loopback as a subdomain",
            edited(
                "allowed-origins = [\"https://www.example.com\"]",
                "allowed-origins = [\"http://localhost.evil.example\"]",
            ),
            "service.allowed-origins[0]",
            Some("allowed-origins"),
        ),
        (
            "origin with a path",
            edited(
                "allowed-origins = [\"https://www.example.com\"]",
                "allowed-origins = [\"https://www.example.com/account\"]",
            ),
            "service.allowed-origins[0]",
            Some("allowed-origins"),
        ),
        (
            "no origins",
            edited(
                "allowed-origins = [\"https://www.example.com\"]",
                "allowed-origins = []",
            ),
            "service.allowed-origins",
            Some("allowed-origins"),
        ),
        (
            "too many origins",
            edited(
                "allowed-origins = [\"https://www.example.com\"]",
                &format!(
                    "allowed-origins = {}",
                    list_of(65, "https://o.example/").replace("/\"", "\"")
                ),
            ),
            "service.allowed-origins",
            Some("allowed-origins"),
        ),
        (
            "javascript initial URL",
            edited(
                "initial-url = \"https://www.example.com/account\"",
                "initial-url = \"javascript:alert(1)\"",
            ),
            "service.initial-url",
            Some("initial-url"),
        ),
        (
            "file initial URL",
            edited(
                "initial-url = \"https://www.example.com/account\"",
                "initial-url = \"file:///etc/passwd\"",
            ),
            "service.initial-url",
            Some("initial-url"),
        ),
        (
            "backslash in initial URL",
            edited(
                "initial-url = \"https://www.example.com/account\"",
                "initial-url = \"https://evil.example\\\\@www.example.com/\"",
            ),
            "service.initial-url",
            Some("initial-url"),
        ),
        (
            "initial URL over its limit",
            edited(
                "initial-url = \"https://www.example.com/account\"",
                &format!(
                    "initial-url = \"https://www.example.com/{}\"",
                    "u".repeat(2048)
                ),
            ),
            "service.initial-url",
            Some("initial-url"),
        ),
        (
            "reason full of escape sequences",
            edited(
                "reason = \"This click finishes the cancellation\"",
                "reason = \"\\u001b[2J\\u001b[HApprove? \\u001b]0;owned\\u0007\"",
            ),
            "checkpoint[0].reason",
            Some("\\u001b[2J"),
        ),
        (
            "failure reason with a bidirectional override",
            edited(
                "reason = \"the site reported an error\"",
                "reason = \"fine \\u202Erorre\"",
            ),
            "failure[0].reason",
            Some("\\u202E"),
        ),
        (
            "auth message over its limit",
            edited(
                "message = \"Example needs you to sign in.\"",
                &format!("message = \"{}\"", "m".repeat(301)),
            ),
            "auth[0].message",
            Some("message ="),
        ),
        (
            "pattern of ten thousand characters",
            edited(
                "when = { url = [\"/error\"] }",
                &format!("when = {{ url = [\"{}\"] }}", "p".repeat(10_000)),
            ),
            "failure[0].when.url[0]",
            Some("when = { url = [\"ppp"),
        ),
        (
            "empty pattern",
            edited(
                "when = { content = [\"already cancelled\"] }",
                "when = { content = [\"\"] }",
            ),
            "already-cancelled[0].when.content[0]",
            Some("content = [\"\"]"),
        ),
        (
            "empty pattern list",
            edited("when = { url = [\"/error\"] }", "when = { url = [] }"),
            "failure[0].when.url",
            Some("url = []"),
        ),
        (
            "thousand rules",
            readme_example() + &"\n[[success]]\nwhen = { url = [\"/done\"] }\n".repeat(1000),
            "success",
            Some("[[success]]"),
        ),
        (
            "list of a hundred patterns",
            edited(
                "when = { content = [\"already cancelled\"] }",
                &format!("when = {{ content = {} }}", list_of(100, "c")),
            ),
            "already-cancelled[0].when.content",
            Some("content = [\"c0"),
        ),
        (
            "empty when",
            edited("when = { url = [\"/error\"] }", "when = {}"),
            "failure[0].when",
            Some("when = {}"),
        ),
        (
            "empty unless",
            edited(
                "unless = { element = [{ role = \"button\", name = [\"finish cancellation\"] }] }",
                "unless = {}",
            ),
            "success[0].unless",
            Some("unless = {}"),
        ),
        (
            "target-name in a success rule",
            edited(
                "when = { element = [{ role = \"heading\"",
                "when = { target-name = [\"finish\"], element = [{ role = \"heading\"",
            ),
            "success[0].when.target-name",
            Some("target-name = [\"finish\"], element"),
        ),
        (
            "action in an auth rule",
            edited(
                "when = { url-glob = [\"*/login*\"] }",
                "when = { url-glob = [\"*/login*\"] }\nunless = { action = [\"browser_click\"] }",
            ),
            "auth[0].unless.action",
            Some("unless = { action"),
        ),
        (
            "element with no names",
            edited("name = [\"has been cancelled\"]", "name = []"),
            "success[0].when.element[0].name",
            Some("name = []"),
        ),
        (
            "no irreversible step",
            edited("irreversible = true", "irreversible = false"),
            "plan",
            Some("[[plan]]"),
        ),
        (
            "irreversible step without targets",
            edited(
                "targets = [{ action = \"click\", role = \"button\", name = [\"finish cancellation\"] }]",
                "targets = []",
            ),
            "plan",
            Some("[[plan]]"),
        ),
        (
            "target with no names",
            edited("name = [\"cancel subscription\"]", "name = []"),
            "plan[0].targets[0].name",
            Some("name = []"),
        ),
        (
            "done-when blank",
            edited(
                "done-when = \"The confirmation page is shown\"",
                "done-when = \" \"",
            ),
            "plan[0].done-when",
            Some("done-when = \" \""),
        ),
        (
            "thirty-three plan steps",
            readme_example()
                + &"\n[[plan]]\ndescription = \"More\"\ndone-when = \"Done\"\n".repeat(31),
            "plan",
            Some("[[plan]]"),
        ),
        (
            "role over its limit",
            edited(
                "role = \"heading\"",
                &format!("role = \"{}\"", "r".repeat(41)),
            ),
            "success[0].when.element[0].role",
            Some("role = \"rrr"),
        ),
        (
            "target value over its limit",
            edited(
                "name = [\"cancel subscription\"] }",
                &format!(
                    "name = [\"cancel subscription\"], value = \"{}\" }}",
                    "v".repeat(201)
                ),
            ),
            "plan[0].targets[0].value",
            Some("value ="),
        ),
        (
            "commit method with a space",
            edited("method = \"POST\"", "method = \"PO ST\""),
            "service.commit-requests[0].method",
            Some("commit-requests"),
        ),
        (
            "unknown auth kind",
            edited("kind = \"login-required\"", "kind = \"sms\""),
            "auth[0].kind",
            Some("kind ="),
        ),
        (
            "optional not a bool",
            edited(
                "name = [\"cancel subscription\"] }",
                "name = [\"cancel subscription\"], optional = \"yes\" }",
            ),
            "plan[0].targets[0].optional",
            Some("optional ="),
        ),
    ];
    for (name, text, key, line_marker) in cases {
        let err = parse(&text).expect_err(name);
        assert_eq!(err.key.as_deref(), Some(key), "{name}: {err}");
        let want_line = line_marker.map(|m| line_of_marker(&text, m));
        if want_line.is_some() {
            assert_eq!(err.line, want_line, "{name}: {err}");
        }
        assert!(!err.to_string().contains('\u{1b}'), "{name}: {err:?}");
    }
}

/// Text that the bounds must let through.
#[test]
fn within_bounds_is_accepted() {
    let cases = [
        (
            // The example's own origin stays: its harmless request names it.
            "loopback origin with a port",
            "allowed-origins = [\"https://www.example.com\"]",
            "allowed-origins = [\"http://localhost:8080\", \"http://[::1]\", \"http://127.0.0.1\", \"https://www.example.com\"]",
        ),
        (
            "origin with a trailing slash",
            "allowed-origins = [\"https://www.example.com\"]",
            "allowed-origins = [\"https://www.example.com/\"]",
        ),
        (
            "loopback initial URL",
            "initial-url = \"https://www.example.com/account\"",
            "initial-url = \"http://127.0.0.1:3000/account?x=1\"",
        ),
        (
            "upper-case scheme",
            "initial-url = \"https://www.example.com/account\"",
            "initial-url = \"HTTPS://www.example.com/\"",
        ),
        (
            "multi-line goal",
            "goal = \"Cancel the Example subscription. …\"",
            "goal = \"\"\"\nCancel the Example subscription.\n\tDecline offers.\n\"\"\"",
        ),
        (
            "goal at its limit",
            "goal = \"Cancel the Example subscription. …\"",
            &format!("goal = \"{}\"", "g".repeat(limits::MAX_GOAL_CHARS)),
        ),
        (
            "pre-release version",
            "version = \"0.1.0\"",
            "version = \"1.2.3-beta.1+build.5\"",
        ),
        ("any method", "method = \"POST\"", "method = \"*\""),
        (
            "checkpoint on the call alone",
            "when = { target-name = [\"finish\", \"confirm\"] }",
            "when = { action = [\"browser_navigate\"], target-role = \"link\" }",
        ),
        (
            "non-ASCII patterns",
            "content = [\"already cancelled\"]",
            "content = [\"bereits gekündigt\"]",
        ),
    ];
    for (name, from, to) in cases {
        if let Err(e) = parse(&edited(from, to)) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn oversized_files_are_refused_before_parsing() {
    let cases = [
        (
            "goal of megabytes",
            edited(
                "goal = \"Cancel",
                &format!("goal = \"{}", "g".repeat(3 * 1024 * 1024)),
            ),
        ),
        (
            "one byte over",
            format!("{}#{}", readme_example(), "x".repeat(MAX_FILE_BYTES)),
        ),
    ];
    for (name, text) in cases {
        let err = parse(&text).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooLarge, "{name}");
        assert_eq!((err.line, err.key.as_deref()), (None, None), "{name}");
    }
}

#[test]
fn deep_nesting_is_a_syntax_error_not_a_crash() {
    let depth = 20_000;
    let text = format!("a = {}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(text.len() <= MAX_FILE_BYTES);
    let err = parse(&text).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Syntax, "{err}");
}

/// An unknown key at each depth: the key as written, and its line.
#[test]
fn unknown_keys_name_the_key_and_its_line() {
    let cases = [
        (
            "top level",
            edited("api = \"0.4.0\"", "api = \"0.4.0\"\ncolour = \"red\""),
            "colour",
            "colour =",
        ),
        (
            "misspelt section",
            readme_example() + "\n[[sucess]]\nwhen = { url = [\"x\"] }\n",
            "sucess",
            "[[sucess]]",
        ),
        (
            "in [service]",
            edited(
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\nhomepage = \"x\"",
            ),
            "homepage",
            "homepage =",
        ),
        (
            "in a plan step",
            edited(
                "irreversible = true",
                "irreversible = true\nirreversable = true",
            ),
            "irreversable",
            "irreversable =",
        ),
        (
            "in a target",
            edited(
                "role = \"button\", name = [\"cancel subscription\"]",
                "role = \"button\", label = [\"x\"], name = [\"cancel subscription\"]",
            ),
            "label",
            "label =",
        ),
        (
            "in a commit request",
            edited("method = \"POST\"", "method = \"POST\", body = \"x\""),
            "body",
            "body =",
        ),
        (
            "in a when",
            edited(
                "when = { url = [\"/error\"] }",
                "when = { url = [\"/error\"], colour = [\"red\"] }",
            ),
            "colour",
            "colour =",
        ),
        (
            "in an element entry",
            edited(
                "role = \"heading\", name",
                "role = \"heading\", level = 1, name",
            ),
            "level",
            "level =",
        ),
        (
            "in an auth rule",
            edited(
                "kind = \"login-required\"",
                "kind = \"login-required\"\nreason = \"x\"",
            ),
            "reason",
            "reason = \"x\"",
        ),
        (
            "dotted key",
            edited(
                "[[checkpoint]]",
                "[[checkpoint]]\nunless.colour = [\"red\"]",
            ),
            "colour",
            "unless.colour",
        ),
    ];
    for (name, text, key, marker) in cases {
        let err = parse(&text).unwrap_err();
        assert_eq!(err.kind, ErrorKind::UnknownKey, "{name}: {err}");
        assert_eq!(err.key.as_deref(), Some(key), "{name}: {err}");
        assert_eq!(
            err.line,
            Some(line_of_marker(&text, marker)),
            "{name}: {err}"
        );
    }
}

#[test]
fn display_reads_line_then_key() {
    let text = readme_example().replacen("api = \"0.4.0\"", "api = \"0.4.0\"\n\ncolour = 1", 1);
    let err = parse(&text).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("line 3: unknown key `colour`: expected one of `api`, `service`"),
        "{err}"
    );

    let text = edited("goal = \"Cancel", &format!("goal = \"{}", "g".repeat(2400)));
    let err = parse(&text).unwrap_err();
    let line = line_of_marker(&text, "goal =");
    let goal_chars = 2400 + " the Example subscription. …".chars().count();
    assert_eq!(
        err.to_string(),
        format!("line {line}: service.goal: {goal_chars} characters is over the 2000 limit")
    );
}

#[test]
fn text_from_the_file_is_quoted_safely() {
    let key = format!("\\u001b]0;{}", "k".repeat(500));
    let text = format!("\"{key}\" = 1\n{}", readme_example());
    let err = parse(&text).unwrap_err();
    let shown = err.to_string();
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    assert!(shown.chars().count() < 400, "{shown:?}");
    assert_eq!(err.line, Some(1));

    let long_value = format!("optional = \"{}\"", "word \\u001b ".repeat(2000));
    let text = edited(
        "name = [\"cancel subscription\"] }",
        &format!("name = [\"cancel subscription\"], {long_value} }}"),
    );
    let err = parse(&text).unwrap_err();
    assert_eq!(err.key.as_deref(), Some("plan[0].targets[0].optional"));
    assert!(!err.to_string().contains('\u{1b}'), "{err:?}");
    assert!(err.to_string().chars().count() < 700, "{err}");

    let text = edited("id = \"example\"", "id = \"\\u001b[31mred\"");
    let err = parse(&text).unwrap_err();
    assert!(!err.to_string().contains('\u{1b}'), "{err:?}");
}

#[test]
fn syntax_errors_carry_their_line() {
    let text = edited("[[success]]", "[[success]]]");
    let err = parse(&text).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Syntax);
    assert_eq!(err.line, Some(line_of_marker(&text, "[[success]]]")));
}
