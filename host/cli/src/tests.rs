//! Every command's `--help` ends with examples, and they show each flag a
//! person is likely to use (issue 19).

use clap::CommandFactory;

use super::Cli;

/// Per command (its words after `subterminator`): the flags its examples must
/// show, and the ones they leave out on purpose. Between them the two lists
/// name every flag the command takes, `--json` and `--verbose` included
/// (they are global), so a new flag fails the test until it is sorted into
/// one of them.
const FLAGS: &[(&str, &[&str], &[&str])] = &[
    // The subcommands show the global flags where they mean something.
    ("", &[], &["json", "verbose"]),
    (
        "cancel",
        &[
            "model",
            "base-url",
            "max-turns",
            "dry-run",
            "headless",
            "no-checkpoint",
            "tools",
            "vision",
            "browser",
            "start-url",
            "isolated",
            "replay",
            "cdp-endpoint",
            "jobs",
            "json",
            "verbose",
            "url",
        ],
        // Plan-first is the default; handing every step to the model is
        // for measuring, as `bench --model-drives` shows. A served server
        // is the end-to-end tests' (hidden).
        &["model-drives", "served-playwright"],
    ),
    (
        "demo",
        &[
            "model",
            "base-url",
            "max-turns",
            "dry-run",
            "headless",
            "tools",
            "vision",
            "browser",
            "sign-in",
            "json",
            "verbose",
            "variant",
            "list",
            "serve",
            "replay",
            "cdp-endpoint",
            "generic",
        ],
        // The demo is there to show the checkpoints.
        &["no-checkpoint", "model-drives", "served-playwright"],
    ),
    (
        "scan",
        &[
            "columns",
            "date-format",
            "currency",
            "as-of",
            "cancel",
            "yes",
            "isolated",
            "jobs",
            "start-url",
            "model",
            "headless",
            "max-turns",
            "json",
            "verbose",
            "max-bytes",
            "html",
            "since-cancel",
        ],
        // The run flags `scan --cancel` passes on as they are; `cancel
        // --help` shows each with an example.
        &[
            "model-drives",
            "base-url",
            "dry-run",
            "no-checkpoint",
            "tools",
            "vision",
            "browser",
            "replay",
            "cdp-endpoint",
            "served-playwright",
        ],
    ),
    ("login", &["browser"], &["json", "verbose"]),
    (
        "mcp",
        &[
            "http",
            "token-file",
            "model",
            "headless",
            "isolated",
            "idle-timeout",
            "max-sessions",
            "cdp-endpoint",
        ],
        // Remote listening is not to be copied from an example; the others
        // are as `cancel` shows them.
        &[
            "lease",
            "allow-remote",
            "base-url",
            "browser",
            "max-turns",
            "json",
            "verbose",
        ],
    ),
    ("doctor", &["json", "cdp-endpoint"], &["verbose"]),
    ("completions", &[], &["json", "verbose"]),
    ("services", &["json"], &["verbose"]),
    ("services show", &["json"], &["verbose"]),
    ("runs", &["json"], &["verbose"]),
    ("runs show", &["json"], &["verbose"]),
    ("runs open", &[], &["json", "verbose"]),
    ("runs verify", &["json", "key"], &["verbose"]),
    (
        "runs dispute",
        &["to", "jurisdiction", "lang", "name", "charge", "out"],
        &["json", "verbose", "no-pdf"],
    ),
    ("key", &["json", "rotate", "name"], &["verbose"]),
    ("runs prune", &["older-than", "force", "json"], &["verbose"]),
    ("plugin", &[], &["json", "verbose"]),
    ("memory", &[], &["json", "verbose"]),
    ("memory show", &["json"], &["verbose"]),
    ("memory forget", &[], &["json", "verbose"]),
    (
        "plugin new",
        &[
            "dir",
            "declarative",
            "sdk",
            "from-run",
            "descriptor",
            "force",
        ],
        &["json", "verbose"],
    ),
    (
        "plugin record",
        &["start-url", "out", "headless", "walk"],
        &["json", "verbose"],
    ),
    ("plugin test", &["json"], &["verbose"]),
    (
        "plugin install",
        &["sha256", "replace", "yes", "json"],
        &["verbose"],
    ),
    ("plugin list", &["json"], &["verbose"]),
    ("plugin info", &["json"], &["verbose"]),
    ("plugin remove", &[], &["json", "verbose"]),
    (
        "bench",
        &[
            "model",
            "jobs",
            "language",
            "trick",
            "split",
            "json",
            "list",
            "shard",
            "bench-url",
        ],
        &[
            "base-url",
            "replay",
            "model-drives",
            "tools",
            "flow",
            "shape",
            "service",
            "yes-pass-only",
            "html",
            "yes",
            "max-cost",
            "agent",
            "cdp-endpoint",
            "verbose",
        ],
    ),
    (
        "bench serve",
        &["addr", "scorer", "out"],
        &["no-scorer", "scorer-token-file", "json", "verbose"],
    ),
    ("bench merge", &["out"], &["json", "verbose"]),
];

/// The widest example line: clap wraps help at 100 columns at most, and a
/// wrapped example no longer reads as one command.
const MAX_EXAMPLE_COLUMNS: usize = 99;

/// Flags clap adds to every command, which need no example.
const CLAP_FLAGS: &[&str] = &["help", "version"];

/// Every command under `command`, with its words after the binary's name;
/// clap's own `help` subcommand left out.
fn commands(command: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
    out.push((path.to_owned(), command.clone()));
    // Hidden commands (`manpage`, for packaging) are not offered to people.
    for sub in command
        .get_subcommands()
        .filter(|s| s.get_name() != "help" && !s.is_hide_set())
    {
        let sub_path = format!("{path} {}", sub.get_name()).trim().to_owned();
        commands(sub, &sub_path, out);
    }
}

/// Whether `text` shows `flag` as a word of its own: `--json`, not `--json-x`.
fn shows(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + flag.len()..].chars().next();
        before.is_none_or(char::is_whitespace)
            && after.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '-')
    })
}

#[test]
fn shows_matches_whole_flags_only() {
    let cases = [
        ("  subterminator cancel netflix --json", "--json", true),
        ("  subterminator cancel netflix --json\n", "--json", true),
        ("  subterminator cancel netflix --dry-run", "--dry", false),
        ("  subterminator cancel netflix --model=x", "--model", true),
        ("  subterminator cancel netflix x--json", "--json", false),
        ("  subterminator demo -v", "-v", true),
        ("  subterminator demo -vv", "-v", false),
    ];
    for (text, flag, want) in cases {
        assert_eq!(shows(text, flag), want, "{flag} in {text:?}");
    }
}

#[test]
fn every_command_has_examples_of_its_likely_flags() {
    let mut root = Cli::command();
    // Building propagates the global flags to every subcommand.
    root.build();
    let mut all = Vec::new();
    commands(&root, "", &mut all);
    let mut problems = Vec::new();
    for (path, command) in &all {
        let name = format!("subterminator {path}");
        let help = command
            .get_after_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        let Some((_, examples)) = help.split_once("Examples:") else {
            problems.push(format!("{name}: its after_help has no \"Examples:\""));
            continue;
        };
        for line in examples.lines().filter(|l| l.contains("subterminator ")) {
            if line.chars().count() > MAX_EXAMPLE_COLUMNS {
                problems.push(format!(
                    "{name}: an example is wider than {MAX_EXAMPLE_COLUMNS} columns: {line}"
                ));
            }
        }
        let Some((_, shown, not_shown)) = FLAGS.iter().find(|(p, _, _)| p == path) else {
            problems.push(format!("{name}: not in FLAGS"));
            continue;
        };
        let flags: Vec<&clap::Arg> = command
            .get_arguments()
            .filter(|a| a.get_long().is_some_and(|l| !CLAP_FLAGS.contains(&l)))
            .collect();
        for arg in &flags {
            let long = arg.get_long().unwrap_or_default();
            if !shown.contains(&long) && !not_shown.contains(&long) {
                problems.push(format!("{name}: --{long} is in neither list of FLAGS"));
            }
            if !shown.contains(&long) {
                continue;
            }
            let short = arg.get_short().map(|c| format!("-{c}"));
            let example =
                shows(examples, &format!("--{long}")) || short.is_some_and(|s| shows(examples, &s));
            if !example {
                problems.push(format!("{name}: no example shows --{long}"));
            }
        }
        for listed in shown.iter().chain(not_shown.iter()) {
            if !flags.iter().any(|a| a.get_long() == Some(listed)) {
                problems.push(format!(
                    "{name}: FLAGS lists --{listed}, which it does not take"
                ));
            }
        }
    }
    for (path, _, _) in FLAGS {
        if !all.iter().any(|(p, _)| p == path) {
            problems.push(format!(
                "FLAGS lists `subterminator {path}`, which does not exist"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
