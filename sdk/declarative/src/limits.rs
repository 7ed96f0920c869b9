//! Every bound a `service.toml` must keep, in one place, with units. The file
//! is written by people who are not the host's authors, and it is read again
//! inside the sandbox on every run: each bound keeps one of its parts from
//! costing the host or misleading the human.

/// The newest plugin API the format speaks, what a new file says.
pub const API_VERSION: &str = "0.4.0";

/// Every `api` a file may say, newest first. An older file is read as it
/// always was: 0.3.0 added `service.interruptions`, 0.4.0
/// `service.harmless-requests` and `service.billing-descriptors`.
pub const API_VERSIONS: &[&str] = &[API_VERSION, "0.3.0", "0.2.0"];

/// The first `api` with `service.interruptions`.
pub const INTERRUPTIONS_SINCE: &str = "0.3.0";

/// The first `api` with `service.harmless-requests` and
/// `service.billing-descriptors`.
pub const HARMLESS_REQUESTS_SINCE: &str = "0.4.0";

/// Largest file read at all: a description of one service is a few KiB, and
/// the sandbox copies the text into every instance.
pub const MAX_FILE_BYTES: usize = 64 * 1024;

/// `service.id`: it names the plugin on the command line and in paths.
pub const MAX_ID_CHARS: usize = 64;

/// `service.display-name`: one line on a terminal.
pub const MAX_DISPLAY_NAME_CHARS: usize = 80;

/// `service.version`: semver, with room for a pre-release tag.
pub const MAX_VERSION_CHARS: usize = 32;

/// `service.initial-url` and each allowed origin: browsers' practical limit.
pub const MAX_URL_CHARS: usize = 2048;

/// `service.goal`: part of every prompt, so every token is paid on every step.
pub const MAX_GOAL_CHARS: usize = 2000;

/// `service.system-prompt-addition`: the same cost, with room for a site's
/// quirks.
pub const MAX_SYSTEM_PROMPT_ADDITION_CHARS: usize = 4000;

/// Reasons, messages, step descriptions and done-when texts: a person reads
/// them at a prompt, so they stay a sentence or two.
pub const MAX_TEXT_CHARS: usize = 300;

/// Each match pattern, glob, tool name and a target's fill or select value:
/// page words, not paragraphs; a long pattern is scanned against the whole
/// page on every call.
pub const MAX_PATTERN_CHARS: usize = 200;

/// Each ARIA role (`button`, `menuitemcheckbox`): the longest real one is
/// 16 characters; the host refuses a plan's role over this.
pub const MAX_ROLE_CHARS: usize = 40;

/// Entries in any one list: rules run on every call inside a 250 ms budget.
pub const MAX_LIST_ENTRIES: usize = 64;

/// Rules in one section (`[[checkpoint]]`, `[[success]]`, …), for the same
/// budget.
pub const MAX_RULES_PER_SECTION: usize = 64;

/// Steps in `[[plan]]`: a cancellation flow is a handful of intents.
pub const MAX_PLAN_STEPS: usize = 32;

/// Hosts where plain http is allowed: a page there never crossed a network.
pub const LOOPBACK_HOSTS: &[&str] = &["127.0.0.1", "localhost", "[::1]"];

/// Longest HTTP method in `commit-requests` (`PROPPATCH` and friends fit).
pub const MAX_METHOD_CHARS: usize = 16;

/// Characters of file text (a key, a value) quoted back in an error: enough
/// to recognise it, never a page of it.
pub const MAX_QUOTED_CHARS: usize = 80;

/// Characters of a TOML parser message quoted in an error: room for the list
/// of keys a table accepts.
pub const MAX_MESSAGE_CHARS: usize = 600;

/// Entries in `service.harmless-requests`: each is a request one step of the
/// plan sends; a flow has a handful, and each one is a question spared.
pub const MAX_HARMLESS_REQUESTS: usize = 16;

/// Shortest literal path segment a harmless request's `path` must hold: a
/// pattern of wildcards and one-letter segments (`/*`, `/a*`) would cover
/// every path of the host.
pub const MIN_HARMLESS_SEGMENT_CHARS: usize = 2;

/// Entries in `service.billing-descriptors`: a service bills under a few
/// names, and the scanner tries each on every statement line.
pub const MAX_BILLING_DESCRIPTORS: usize = 16;

/// Shortest and longest billing descriptor, in characters: banks print at
/// most a few dozen, and a one-letter pattern would name any charge.
pub const MIN_BILLING_DESCRIPTOR_CHARS: usize = 2;
pub const MAX_BILLING_DESCRIPTOR_CHARS: usize = 64;
