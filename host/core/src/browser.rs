//! The browser layer: Microsoft's Playwright MCP server (npm `@playwright/mcp`)
//! started as a child process and spoken to over stdio with rmcp, and its
//! output turned into [`page::Snapshot`]s.
//!
//! - [`launch`]: preflight (Node.js, browser executable, profile lock) and the
//!   server's argv;
//! - [`process`]: the server's process group and everything it started, so
//!   that no node or chromium survives us;
//! - [`client`]: [`Browser`], the rmcp session (one call at a time, timeouts,
//!   one reconnect, orderly shutdown);
//! - [`result`]: the `### Section` text of tool results, ANSI stripping;
//! - [`tree`]: the YAML accessibility tree into [`page::Element`]s.
//!
//! Typical use, one run:
//!
//! ```no_run
//! # async fn run(dirs: &subterminator_core::paths::Dirs, run_dir: &std::path::Path)
//! #     -> Result<(), subterminator_core::browser::BrowserError> {
//! use subterminator_core::browser::{Browser, BrowserOptions, UserData};
//! let opts = BrowserOptions::new(UserData::Persistent(dirs.signed_in_profile("netflix")), run_dir.join("browser"));
//! let browser = Browser::start(opts).await?;
//! browser.navigate("https://www.netflix.com/account").await?;
//! let page = browser.snapshot().await?;
//! if let Some(r) = page.elements.iter().find(|e| e.name == "Cancel Membership").and_then(|e| e.reference.as_deref()) {
//!     let after = browser.call("browser_click", serde_json::json!({ "target": r })).await?;
//!     let _page_after = after.snapshot; // Some(…) when the result carried the page
//! }
//! browser.shutdown().await
//! # }
//! ```

use std::path::PathBuf;
use std::time::Duration;

use crate::exit::ErrorClass;
use crate::page;

pub mod attach;
pub mod client;
pub mod facts;
pub mod guard;
pub mod launch;
pub mod package;
pub mod process;
pub mod procfs;
pub mod result;
pub mod served;
pub mod shared;
pub mod sight;
pub mod thrown;
pub mod tools;
pub mod tree;

pub use attach::Attach;
pub use client::{Browser, ProcessInfo};
pub use launch::{NodeInfo, detect_executable, preflight_node};
pub use result::{parse_result, parse_snapshot, strip_ansi};
pub use served::{Served, ServedChromium, ServedPlaywright};
pub use shared::SharedChromium;
pub use tree::parse_tree;

/// The Playwright MCP release we speak to. Argument names change between
/// releases (0.0.83 takes `target`, older ones took `ref`), so never `@latest`.
pub const PLAYWRIGHT_MCP_VERSION: &str = "0.0.83";

/// The npm package, without version.
pub const PLAYWRIGHT_MCP_PACKAGE: &str = "@playwright/mcp";

/// Spawn → `initialize` → `tools/list` must finish within this, or the
/// connection has failed.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Default limit for one tool call. Longer than [`NAVIGATION_TIMEOUT`] so that
/// a slow page surfaces as the server's own error rather than as our timeout,
/// and long enough for the first call, which also launches the browser.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(45);

/// Passed to the server as `--timeout-navigation`.
pub const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(30);

/// Passed to the server as `--timeout-settle`: after every action Playwright
/// MCP waits this long for the work the action started (a form's post, a
/// script's fetch or navigation), then for those requests to finish, then
/// this long again if there were any. Its default, 500 ms, is most of a
/// click on a local page. A click's own requests start within a few
/// milliseconds, and the guard holds a commit whenever it comes; a step a
/// page draws later still, with nothing sent before it, is waited for by
/// the host when the page looks unchanged (`agent/look.rs`,
/// `LATE_STEP_WAIT`). So a shorter wait loses nothing but time: 500 ms
/// until issue 17, 200 ms until issue 43, whose bench took 191 s at 200 ms
/// and 166 s at 50 ms with the same verdicts (BENCHMARKS.md).
pub const SETTLE_TIME: Duration = Duration::from_millis(50);

/// The page's size in CSS pixels, width by height, passed to the server as
/// `--viewport-size`: set, it is known without asking the page, which
/// spares the first look a script call and the server's settle time after
/// it. Playwright's own default, and a common laptop's.
pub const VIEWPORT_PX: (u32, u32) = (1280, 720);

/// From the start of [`Browser::shutdown`] until no process is left.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// The part of [`SHUTDOWN_TIMEOUT`] given to `browser_close`, which flushes the
/// profile to disk.
pub const CLOSE_CALL_TIMEOUT: Duration = Duration::from_millis(2500);

/// After SIGTERM, how long the server's processes get before SIGKILL.
pub const TERMINATE_GRACE: Duration = Duration::from_millis(1500);

/// `node --version` must answer within this.
pub const NODE_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Oldest Node.js major version Playwright MCP runs on.
pub const MIN_NODE_MAJOR: u32 = 18;

/// Environment variable naming the browser executable when no explicit
/// setting does.
pub const BROWSER_ENV: &str = "SUBTERMINATOR_BROWSER";

/// Tools the host relies on; their absence means the server is not the
/// release we pinned.
pub const REQUIRED_TOOLS: &[&str] = &[
    tools::SNAPSHOT,
    tools::CLICK,
    tools::NAVIGATE,
    tools::TYPE,
    tools::SELECT_OPTION,
    tools::TAKE_SCREENSHOT,
];

/// Which browser profile the session uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserData {
    /// A user-data directory kept between runs: where the user's sign-ins live.
    Persistent(PathBuf),
    /// A profile in memory, gone when the session ends (`--isolated`).
    Isolated,
}

/// How to start the server.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    /// `--headless`; headed is the default for interactive use.
    pub headless: bool,
    /// Explicit browser executable; when `None`, [`detect_executable`] looks
    /// at `SUBTERMINATOR_BROWSER`, then PATH and the usual install locations.
    pub executable_path: Option<PathBuf>,
    pub user_data: UserData,
    /// A folder inside the current run's folder. The server runs with it as
    /// its working directory and `--output-dir`, so the relative links in its
    /// results (`out/page-….yml`) resolve against it.
    pub output_dir: PathBuf,
    /// Replaces `npx -y @playwright/mcp@<pin>`; our flags are appended.
    pub command: Option<Vec<String>>,
    /// Limit for one tool call.
    pub call_timeout: Duration,
    /// Attach to a browser that already runs instead of launching one.
    pub attach: Option<Attach>,
    /// A session of a served server that already runs (and is attached to
    /// `attach`) instead of a server of its own: CancelBench's runs.
    pub served: Option<Served>,
}

impl BrowserOptions {
    /// Headed, persistent profile, default command and timeouts.
    pub fn new(user_data: UserData, output_dir: impl Into<PathBuf>) -> Self {
        Self {
            headless: false,
            executable_path: None,
            user_data,
            output_dir: output_dir.into(),
            command: None,
            call_timeout: CALL_TIMEOUT,
            attach: None,
            served: None,
        }
    }

    /// Headless with an in-memory profile: what tests and benchmarks use.
    pub fn headless_isolated(output_dir: impl Into<PathBuf>) -> Self {
        Self {
            headless: true,
            ..Self::new(UserData::Isolated, output_dir)
        }
    }
}

/// A tool as the server describes it, cached for the session.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

/// What a successful tool call returned.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// The whole text of the result, ANSI codes removed.
    pub text: String,
    /// `- Page URL:` under `### Page`.
    pub page_url: Option<String>,
    /// `- Page Title:` under `### Page`.
    pub page_title: Option<String>,
    /// The `### Result` section (e.g. what `browser_evaluate` returned).
    pub result: Option<String>,
    /// Files the result links to (`- [Screenshot of viewport](out/page-….png)`),
    /// resolved against the server's working directory.
    pub files: Vec<PathBuf>,
    /// The page after the action, when the result carries a complete one
    /// (URL, title and tree, inline or through the linked file).
    pub snapshot: Option<page::Snapshot>,
    /// Dialogs the page has open (`### Modal state`): while one is, every
    /// tool but `browser_handle_dialog` fails.
    pub dialogs: Vec<page::Dialog>,
}

/// Everything that can go wrong in the browser layer.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "Node.js was not found ({command}: {detail}). Playwright MCP needs Node.js {MIN_NODE_MAJOR} or newer: \
         install it from https://nodejs.org/ or with your package manager \
         (Debian/Ubuntu: `apt-get install nodejs npm`; macOS: `brew install node`)."
    )]
    NodeMissing { command: String, detail: String },

    #[error(
        "Node.js {found} is too old: Playwright MCP needs Node.js {MIN_NODE_MAJOR} or newer. \
         Upgrade it from https://nodejs.org/ or with your package manager."
    )]
    NodeTooOld { found: String },

    #[error(
        "`{command}` was not found on PATH; it comes with Node.js (npm). Install Node.js \
         {MIN_NODE_MAJOR} or newer from https://nodejs.org/, or set another command in the config file's `[browser] command`."
    )]
    LauncherMissing { command: String },

    #[error(
        "No Chrome or Chromium was found (looked for: {}). Install one (Debian/Ubuntu: `apt-get install chromium`; \
         macOS: `brew install --cask chromium` or Google Chrome from https://www.google.com/chrome/), \
         or point to it with {BROWSER_ENV}=/path/to/browser or --browser /path/to/browser.",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoBrowser { searched: Vec<PathBuf> },

    #[error(
        "The browser executable {path} (from {origin}) {problem}. Point to a Chrome or Chromium executable, or unset it to detect one."
    )]
    BadBrowserPath {
        path: PathBuf,
        origin: &'static str,
        problem: String,
    },

    #[error(
        "The browser {} could not be started ({detail}). Run `subterminator doctor` to check it, \
         or pass another Chrome or Chromium with --browser.",
        path.as_ref().map_or_else(|| "(Playwright's default)".to_owned(), |p| p.display().to_string())
    )]
    BrowserLaunch {
        path: Option<PathBuf>,
        detail: String,
    },

    #[error(
        "The browser profile {path} is already in use by another browser. Close the browser \
         that uses it (or the other subterminator run) and try again."
    )]
    ProfileInUse { path: PathBuf },

    #[error(
        "Failed to connect to Playwright MCP. Ensure Node.js is installed and run: \
         npx {PLAYWRIGHT_MCP_PACKAGE}@{PLAYWRIGHT_MCP_VERSION} (command `{command}`: {detail}). \
         Run `subterminator doctor` to check each part."
    )]
    Connect { command: String, detail: String },

    #[error(
        "The server started by `{command}` lacks the tools {missing:?}; it is not Playwright MCP \
         {PLAYWRIGHT_MCP_VERSION}. Remove `[browser] command` from the config file, or point it at that release."
    )]
    MissingTools {
        command: String,
        missing: Vec<String>,
    },

    #[error(
        "The connection to Playwright MCP was lost during {tool}: {detail}; {}",
        if *reconnected {
            "it reconnected without repeating the call: take a new snapshot and try again"
        } else {
            "run `subterminator doctor` to check Node.js and the browser, then run the command again"
        }
    )]
    ConnectionLost {
        tool: String,
        detail: String,
        reconnected: bool,
    },

    #[error(
        "{tool} did not answer within {} s, so the server was stopped; try again, and run \
         `subterminator doctor` if it keeps happening",
        after.as_secs_f32()
    )]
    Timeout { tool: String, after: Duration },

    // The model reads this too (full tools), so the fix suits both readers.
    #[error("{tool} failed: {message} (check what the page shows now, then try again)")]
    Tool { tool: String, message: String },

    #[error("{tool}: arguments must be a JSON object, got {got}; pass them as one ({{}} for none)")]
    BadArguments { tool: String, got: String },

    #[error(
        "The page snapshot lacks {}; sections present: [{}]. Wait for the page to finish loading, \
         then try again; if it keeps happening, check that the server is Playwright MCP {PLAYWRIGHT_MCP_VERSION}",
        missing.join(", "),
        present.join(", ")
    )]
    SnapshotValidation {
        missing: Vec<&'static str>,
        present: Vec<String>,
    },

    #[error(
        "Could not attach to the browser at {endpoint}: {detail}. Check that it runs and listens \
         there (Chrome: --remote-debugging-port=9222; a grid: its address and token), then run \
         `subterminator doctor`."
    )]
    Attach { endpoint: String, detail: String },

    #[error("{context}: {path}: {source}; check the path, its permissions and the free disk space")]
    Io {
        context: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl BrowserError {
    pub fn class(&self) -> ErrorClass {
        match self {
            BrowserError::NodeMissing { .. }
            | BrowserError::NodeTooOld { .. }
            | BrowserError::LauncherMissing { .. }
            | BrowserError::NoBrowser { .. }
            | BrowserError::BadBrowserPath { .. }
            | BrowserError::BrowserLaunch { .. }
            | BrowserError::ProfileInUse { .. }
            | BrowserError::MissingTools { .. } => ErrorClass::Configuration,
            BrowserError::Connect { .. }
            | BrowserError::Attach { .. }
            | BrowserError::ConnectionLost { .. }
            | BrowserError::Timeout { .. } => ErrorClass::Connection,
            BrowserError::Tool { .. }
            | BrowserError::BadArguments { .. }
            | BrowserError::SnapshotValidation { .. }
            | BrowserError::Io { .. } => ErrorClass::Failure,
        }
    }

    /// Whether this is the server saying a ref is not in the current page,
    /// the cue for the agent to take a fresh snapshot.
    pub fn is_stale_ref(&self) -> bool {
        matches!(self, BrowserError::Tool { message, .. } if message.contains("not found in the current page snapshot"))
    }

    pub(crate) fn io(
        context: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        BrowserError::Io {
            context,
            path: path.into(),
            source,
        }
    }
}
