//! Every error a person can meet names its fix (issue 19).
//!
//! A table holds a sample of every variant of [`Error`], [`BrowserError`]
//! and [`PluginError`]; the samples' own field values name no fix, so the fix
//! the test finds is the one the variant's message adds. Where a variant's
//! text comes whole from its caller (`Configuration`, `Install`) or from an
//! inner error (the transparent wrappers, `NotLoaded`), the sample is what a
//! real caller or inner error says.

use std::io::ErrorKind;
use std::path::PathBuf;
use std::time::Duration;

use super::Error;
use crate::browser::BrowserError;
use crate::llm::LlmError;
use crate::plugin::{PluginError, PluginId};

/// The words a fix begins with: imperatives a person can carry out.
const FIX_VERBS: &[&str] = &[
    "add",
    "ask",
    "build",
    "check",
    "choose",
    "close",
    "delete",
    "drop",
    "ensure",
    "fix",
    "give",
    "install",
    "move",
    "pass",
    "point",
    "rebuild",
    "reinstall",
    "remove",
    "report",
    "run",
    "set",
    "sign",
    "take",
    "try",
    "unset",
    "update",
    "upgrade",
    "use",
    "wait",
];

/// Where a clause ends.
const CLAUSE_ENDS: &[char] = &['.', ',', ';', ':', '(', ')', '\n'];

/// Words that join a fix to what came before it: they end a clause too.
const JOINERS: &[&str] = &["and", "or", "then", "please", "so", "else"];

/// The rule: a message names a fix when one of its clauses begins with one
/// of [`FIX_VERBS`] as a whole word, in any case; or begins with
/// "available", the Python prototype's way of naming the valid choices
/// ("Unknown service 'x'. Available services: …"). Clauses end at
/// [`CLAUSE_ENDS`] and [`JOINERS`]. A fix verb inside a clause does not
/// count: "already in use" names no fix.
fn names_a_fix(message: &str) -> bool {
    let marked = message.to_lowercase().replace(CLAUSE_ENDS, " | ");
    let mut clause_starts = true;
    for word in marked.split_whitespace() {
        if word == "|" || JOINERS.contains(&word) {
            clause_starts = true;
            continue;
        }
        if clause_starts && (word == "available" || FIX_VERBS.contains(&word)) {
            return true;
        }
        clause_starts = false;
    }
    false
}

#[test]
fn the_rule_tells_a_fix_from_a_bare_report() {
    // The bare ones are messages as they were before issue 19.
    let cases = [
        ("interrupted", false),
        ("the plugin worker thread failed: task 7 panicked", false),
        ("browser_click failed: Timeout 5000ms exceeded.", false),
        (
            "plugin 'abuse' 0.1.0: verify trapped: wasm trap: unreachable",
            false,
        ),
        (
            "cannot write the result: /runs/r1/result.json: Permission denied (os error 13)",
            false,
        ),
        (
            "The browser profile /p is already in use by another browser",
            false,
        ),
        ("--max-turns must be at least 1", false),
        ("Node.js 18 or newer is needed", false),
        ("Close the browser that uses it and try again.", true),
        ("read what it may do above and pass --yes", true),
        ("task 7 panicked; this is a bug: please report it", true),
        ("The page did not load, so wait and then try again", true),
        ("Unknown service 'hulu'. Available services: netflix", true),
        (
            "Node.js v16 is too old. Upgrade it from https://nodejs.org/",
            true,
        ),
    ];
    for (message, want) in cases {
        assert_eq!(names_a_fix(message), want, "{message}");
    }
}

fn plugin_id() -> PluginId {
    PluginId {
        id: "abuse".into(),
        version: "0.1.0".into(),
    }
}

fn io_source() -> std::io::Error {
    std::io::Error::from(ErrorKind::PermissionDenied)
}

/// One number per variant. The matches have no wildcard, so a new variant
/// does not compile until it gets a number here, and
/// `every_error_names_its_fix_table` then fails until its table holds a
/// sample of it.
fn error_number(error: &Error) -> usize {
    match error {
        Error::Configuration(_) => 0,
        Error::Plugin(_) => 1,
        Error::Browser(_) => 2,
        Error::Llm(_) => 3,
        Error::Io { .. } => 4,
        Error::Interrupted => 5,
    }
}
const ERROR_VARIANTS: usize = 6;

fn browser_number(error: &BrowserError) -> usize {
    match error {
        BrowserError::NodeMissing { .. } => 0,
        BrowserError::NodeTooOld { .. } => 1,
        BrowserError::LauncherMissing { .. } => 2,
        BrowserError::NoBrowser { .. } => 3,
        BrowserError::BadBrowserPath { .. } => 4,
        BrowserError::BrowserLaunch { .. } => 5,
        BrowserError::ProfileInUse { .. } => 6,
        BrowserError::Connect { .. } => 7,
        BrowserError::MissingTools { .. } => 8,
        BrowserError::ConnectionLost { .. } => 9,
        BrowserError::Timeout { .. } => 10,
        BrowserError::Tool { .. } => 11,
        BrowserError::BadArguments { .. } => 12,
        BrowserError::SnapshotValidation { .. } => 13,
        BrowserError::Io { .. } => 14,
        BrowserError::Attach { .. } => 15,
    }
}
const BROWSER_VARIANTS: usize = 16;

fn plugin_number(error: &PluginError) -> usize {
    match error {
        PluginError::Timeout { .. } => 0,
        PluginError::OutOfMemory { .. } => 1,
        PluginError::Trap { .. } => 2,
        PluginError::Invalid { .. } => 3,
        PluginError::UnsupportedApi { .. } => 4,
        PluginError::Instantiate { .. } => 5,
        PluginError::BadMetadata { .. } => 6,
        PluginError::Io { .. } => 7,
        PluginError::ServiceNotFound { .. } => 8,
        PluginError::NotLoaded { .. } => 9,
        PluginError::Worker(_) => 10,
        PluginError::Manifest { .. } => 11,
        PluginError::Tampered { .. } => 12,
        PluginError::Unlisted { .. } => 13,
        PluginError::ServiceFile { .. } => 14,
        PluginError::HashMismatch { .. } => 15,
        PluginError::Install(_) => 16,
        PluginError::Address(_) => 17,
    }
}
const PLUGIN_VARIANTS: usize = 18;

fn error_samples() -> Vec<Error> {
    vec![
        // A real caller's text (paths.rs).
        Error::Configuration(
            "Cannot find a home directory for subterminator's files. Set SUBTERMINATOR_HOME to a folder."
                .into(),
        ),
        Error::Plugin(PluginError::Worker("task 7 panicked".into())),
        Error::Browser(BrowserError::Timeout {
            tool: "browser_click".into(),
            after: Duration::from_secs(45),
        }),
        // The Python prototype's text; the model layer's messages are its own.
        Error::Llm(LlmError::Configuration(
            "Missing ANTHROPIC_API_KEY. Set it via environment variable or use --model gpt-4o with OPENAI_API_KEY."
                .into(),
        )),
        Error::io(
            "cannot write the result",
            "/runs/r1/result.json",
            io_source(),
        ),
        Error::Interrupted,
    ]
}

fn browser_samples() -> Vec<BrowserError> {
    let lost = |reconnected| BrowserError::ConnectionLost {
        tool: "browser_click".into(),
        detail: "transport closed".into(),
        reconnected,
    };
    vec![
        BrowserError::NodeMissing {
            command: "node --version".into(),
            detail: "cannot find binary path".into(),
        },
        BrowserError::NodeTooOld {
            found: "v16.14.0".into(),
        },
        BrowserError::LauncherMissing {
            command: "npx".into(),
        },
        BrowserError::NoBrowser {
            searched: vec![PathBuf::from("/usr/bin/chromium")],
        },
        BrowserError::BadBrowserPath {
            path: "/opt/chrome".into(),
            origin: "--browser",
            problem: "does not exist".into(),
        },
        BrowserError::BrowserLaunch {
            path: Some("/usr/bin/chromium".into()),
            detail: "Chromium sandboxing failed!".into(),
        },
        BrowserError::ProfileInUse {
            path: "/data/browser-profile".into(),
        },
        BrowserError::Connect {
            command: "npx -y @playwright/mcp@0.0.83".into(),
            detail: "no answer".into(),
        },
        BrowserError::MissingTools {
            command: "node cli.js".into(),
            missing: vec!["browser_click".into()],
        },
        lost(false),
        lost(true),
        BrowserError::Timeout {
            tool: "browser_click".into(),
            after: Duration::from_secs(45),
        },
        BrowserError::Tool {
            tool: "browser_navigate".into(),
            message: "net::ERR_NAME_NOT_RESOLVED at https://www.netflix.com/".into(),
        },
        BrowserError::BadArguments {
            tool: "browser_click".into(),
            got: "[1]".into(),
        },
        BrowserError::SnapshotValidation {
            missing: vec!["Page URL"],
            present: vec!["Result".into()],
        },
        BrowserError::Io {
            context: "cannot read the screenshot",
            path: "/runs/r1/browser/page.png".into(),
            source: io_source(),
        },
        BrowserError::Attach {
            endpoint: "http://127.0.0.1:9222/".into(),
            detail: "browserType.connectOverCDP: connect ECONNREFUSED 127.0.0.1:9222".into(),
        },
    ]
}

fn plugin_samples() -> Vec<PluginError> {
    vec![
        PluginError::Timeout {
            plugin: plugin_id(),
            call: "verify",
            limit_ms: 1000,
        },
        PluginError::OutOfMemory {
            plugin: plugin_id(),
            call: "verify",
            limit_mib: 32,
        },
        PluginError::Trap {
            plugin: plugin_id(),
            call: "verify",
            cause: "wasm trap: unreachable".into(),
        },
        PluginError::Invalid {
            source_name: "acme.wasm".into(),
            cause: "failed to parse WebAssembly module".into(),
        },
        PluginError::UnsupportedApi {
            source_name: "future.wasm".into(),
            found: "0.9.0".into(),
        },
        PluginError::Instantiate {
            source_name: "acme.wasm".into(),
            cause: "no implementation of wasi:sockets/tcp in the linker".into(),
        },
        PluginError::BadMetadata {
            source_name: "acme.wasm".into(),
            cause: "initial_url is not an https URL".into(),
        },
        PluginError::Io {
            context: "cannot read the installed plugin",
            path: "/data/plugins/acme.wasm".into(),
            source: io_source(),
        },
        PluginError::ServiceNotFound {
            name: "hulu".into(),
            available: vec!["netflix".into()],
        },
        // The cause is another refusal's message, as the registry makes it.
        PluginError::NotLoaded {
            id: "acme".into(),
            cause: PluginError::Unlisted {
                path: "/data/plugins/acme.wasm".into(),
            }
            .to_string(),
        },
        PluginError::Worker("task 7 panicked".into()),
        PluginError::Manifest {
            path: "/data/plugins/installed.toml".into(),
            cause: "missing field `sha256`".into(),
        },
        PluginError::Tampered {
            id: "acme".into(),
            path: "/data/plugins/acme.wasm".into(),
            expected: "9f86".into(),
            found: "0bad".into(),
        },
        PluginError::Unlisted {
            path: "/data/plugins/acme.wasm".into(),
        },
        PluginError::ServiceFile {
            source_name: "acme/service.toml".into(),
            cause: "TOML parse error at line 3, column 1: expected `=`".into(),
        },
        PluginError::HashMismatch {
            what: "acme.wasm".into(),
            expected: "9f86".into(),
            found: "0bad".into(),
        },
        // A real caller's text (cli/plugin/install.rs).
        PluginError::Install(
            "installing 'acme' needs your yes, and there is no terminal to ask on; read what it \
             may do above and pass --yes"
                .into(),
        ),
        PluginError::Address(
            crate::plugin::generic::Address::parse("javascript:alert(1)")
                .err()
                .unwrap_or(crate::plugin::generic::AddressError::Empty {
                    input: String::new(),
                }),
        ),
    ]
}

/// What is wrong with a table of samples: a message that names no fix, a
/// variant without a sample, a variant numbered past the count.
fn problems<E: std::fmt::Display>(
    samples: &[E],
    number: fn(&E) -> usize,
    variants: usize,
) -> Vec<String> {
    let mut covered = vec![false; variants];
    let mut problems = Vec::new();
    for sample in samples {
        match covered.get_mut(number(sample)) {
            Some(seen) => *seen = true,
            None => problems.push(format!(
                "variant {} is past the count {variants}: raise it",
                number(sample)
            )),
        }
        if !names_a_fix(&sample.to_string()) {
            problems.push(format!("no fix named: {sample}"));
        }
    }
    for (n, _) in covered.iter().enumerate().filter(|(_, seen)| !**seen) {
        problems.push(format!("variant {n} has no sample"));
    }
    problems
}

#[test]
fn every_error_names_its_fix_table() {
    let cases = [
        (
            "Error",
            problems(&error_samples(), error_number, ERROR_VARIANTS),
        ),
        (
            "BrowserError",
            problems(&browser_samples(), browser_number, BROWSER_VARIANTS),
        ),
        (
            "PluginError",
            problems(&plugin_samples(), plugin_number, PLUGIN_VARIANTS),
        ),
    ];
    for (name, problems) in cases {
        assert!(problems.is_empty(), "{name}: {problems:#?}");
    }
}
