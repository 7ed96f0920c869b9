//! Before the server starts: Node.js present and recent, a browser found, the
//! profile free; then the exact command line.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{
    BROWSER_ENV, BrowserError, BrowserOptions, MIN_NODE_MAJOR, NAVIGATION_TIMEOUT,
    NODE_PROBE_TIMEOUT, PLAYWRIGHT_MCP_PACKAGE, PLAYWRIGHT_MCP_VERSION, SETTLE_TIME, UserData,
    VIEWPORT_PX,
};

/// The Node.js that will run the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeInfo {
    /// As `node --version` printed it, e.g. `v20.20.2`.
    pub version: String,
    pub major: u32,
    pub path: PathBuf,
}

/// Chromium switches that keep the browser off the network unless a page asks
/// (this machine has no outside network, and Chromium retries forever), and
/// skip first-run UI. Playwright already passes some; repeating is harmless.
pub const QUIET_CHROMIUM_ARGS: &[&str] = &[
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
];

/// Name of the config file written into the output directory.
pub const CONFIG_FILE_NAME: &str = "playwright-mcp.json";

/// Executable names looked up on PATH, most specific first.
const PATH_NAMES: &[&str] = &[
    "google-chrome",
    "google-chrome-stable",
    "chromium",
    "chromium-browser",
    "chrome",
];

/// The usual install locations on Linux and macOS.
const KNOWN_LOCATIONS: &[&str] = &[
    "/opt/google/chrome/chrome",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

/// Checks that Node.js is on PATH and at least [`MIN_NODE_MAJOR`].
pub fn preflight_node() -> Result<NodeInfo, BrowserError> {
    let path = which::which("node").map_err(|e| BrowserError::NodeMissing {
        command: "node --version".to_owned(),
        detail: e.to_string(),
    })?;
    let output = run_with_timeout(&path, &["--version"], NODE_PROBE_TIMEOUT).map_err(|detail| {
        BrowserError::NodeMissing {
            command: format!("{} --version", path.display()),
            detail,
        }
    })?;
    let version = output.trim().to_owned();
    let major = parse_node_major(&version).ok_or_else(|| BrowserError::NodeMissing {
        command: format!("{} --version", path.display()),
        detail: format!("unexpected answer {version:?}"),
    })?;
    if major < MIN_NODE_MAJOR {
        return Err(BrowserError::NodeTooOld { found: version });
    }
    Ok(NodeInfo {
        version,
        major,
        path,
    })
}

/// `v20.20.2` → 20.
pub fn parse_node_major(version: &str) -> Option<u32> {
    version
        .trim()
        .strip_prefix('v')
        .unwrap_or(version.trim())
        .split('.')
        .next()?
        .parse()
        .ok()
}

fn run_with_timeout(program: &Path, args: &[&str], limit: Duration) -> Result<String, String> {
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(status)) => return Err(format!("exited with {status}")),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer within {} s", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        use std::io::Read;
        stdout.read_to_string(&mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Finds the browser: `explicit`, then `$SUBTERMINATOR_BROWSER`, then Chrome
/// or Chromium on PATH, then the usual install locations. A path given
/// explicitly or by the variable must work; it is never silently replaced.
pub fn detect_executable(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    let from_env = std::env::var_os(BROWSER_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    detect_executable_from(explicit, from_env.as_deref(), &|name| {
        which::which(name).ok()
    })
}

/// [`detect_executable`] with its inputs passed in, for tests.
pub fn detect_executable_from(
    explicit: Option<&Path>,
    from_env: Option<&Path>,
    on_path: &dyn Fn(&str) -> Option<PathBuf>,
) -> Result<PathBuf, BrowserError> {
    if let Some(path) = explicit {
        return check_executable(path, "the browser setting");
    }
    if let Some(path) = from_env {
        return check_executable(path, BROWSER_ENV);
    }
    let mut searched = Vec::new();
    for name in PATH_NAMES {
        if let Some(found) = on_path(name) {
            return Ok(found);
        }
        searched.push(PathBuf::from(format!("{name} on PATH")));
    }
    for location in KNOWN_LOCATIONS {
        let path = Path::new(location);
        if is_executable_file(path) {
            return Ok(path.to_path_buf());
        }
        searched.push(path.to_path_buf());
    }
    Err(BrowserError::NoBrowser { searched })
}

fn check_executable(path: &Path, origin: &'static str) -> Result<PathBuf, BrowserError> {
    let problem = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist".to_owned()),
        Err(e) => Some(format!("cannot be read ({e})")),
        Ok(m) if m.is_dir() => Some("is a directory".to_owned()),
        Ok(_) if !is_executable_file(path) => Some("is not executable".to_owned()),
        Ok(_) => None,
    };
    match problem {
        Some(problem) => Err(BrowserError::BadBrowserPath {
            path: path.to_path_buf(),
            origin,
            problem,
        }),
        None => Ok(path.to_path_buf()),
    }
}

#[cfg(unix)]
fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable_file(path: &Path) -> bool {
    path.is_file()
}

/// Fails when another live browser holds the profile. Chromium marks a
/// profile with a `SingletonLock` symlink to `<host>-<pid>`; asking now gives
/// a clear error at once instead of the server's after ~5 s.
pub fn check_profile_free(profile: &Path) -> Result<(), BrowserError> {
    let Ok(target) = std::fs::read_link(profile.join("SingletonLock")) else {
        return Ok(());
    };
    let target = target.to_string_lossy();
    let Some(pid) = target
        .rsplit('-')
        .next()
        .and_then(|p| p.parse::<i32>().ok())
    else {
        return Ok(());
    };
    if super::procfs::is_alive(pid) {
        return Err(BrowserError::ProfileInUse {
            path: profile.to_path_buf(),
        });
    }
    Ok(())
}

/// The server's command line and where it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPlan {
    pub program: String,
    pub args: Vec<String>,
    /// The server's working directory: relative paths in its results resolve
    /// against it.
    pub cwd: PathBuf,
    /// The browser launched; `None` when attaching to one that runs.
    pub executable: Option<PathBuf>,
    /// Set in the server's environment (after every `PLAYWRIGHT_MCP_*` of
    /// ours is removed, so that none of the person's own changes what we
    /// start): the attach endpoint and its header, kept off the command line.
    pub env: Vec<(String, String)>,
    /// For error messages: the whole command as one string, without secrets.
    pub display: String,
}

impl LaunchPlan {
    /// No command: a session of the served server at `served`. Its file
    /// links resolve against `own`, the run's own folder, into which the
    /// client moves each file a result names (`Browser::claim_files`).
    pub fn served(served: &super::Served, own: &Path) -> LaunchPlan {
        LaunchPlan {
            program: String::new(),
            args: Vec::new(),
            cwd: own.to_path_buf(),
            executable: None,
            env: Vec::new(),
            display: format!("Playwright MCP served at {}", served.url),
        }
    }
}

/// Playwright MCP reads these as `--cdp-endpoint` and `--cdp-header`.
pub const CDP_ENDPOINT_ENV: &str = "PLAYWRIGHT_MCP_CDP_ENDPOINT";
pub const CDP_HEADERS_ENV: &str = "PLAYWRIGHT_MCP_CDP_HEADERS";

/// The prefix of every variable Playwright MCP reads its options from.
pub const SERVER_ENV_PREFIX: &str = "PLAYWRIGHT_MCP_";

/// The default launcher: `npx -y @playwright/mcp@<pin>`.
pub fn default_command() -> Vec<String> {
    vec![
        "npx".to_owned(),
        "-y".to_owned(),
        format!("{PLAYWRIGHT_MCP_PACKAGE}@{PLAYWRIGHT_MCP_VERSION}"),
    ]
}

/// The launcher when the config names none: node on the pinned package
/// npx already fetched (`super::package`), else [`default_command`].
pub fn default_launcher() -> Vec<String> {
    match super::package::cached_cli() {
        Some(cli) => vec!["node".to_owned(), cli.display().to_string()],
        None => default_command(),
    }
}

/// Builds the command line. `as_root` adds `--no-sandbox` (Chromium refuses to
/// sandbox as root); `config` is the file carrying [`QUIET_CHROMIUM_ARGS`].
/// `executable` is the browser to launch, `None` when `opts` attaches.
pub fn plan(
    opts: &BrowserOptions,
    executable: Option<&Path>,
    config: &Path,
    as_root: bool,
) -> Result<LaunchPlan, BrowserError> {
    let mut argv = opts.command.clone().unwrap_or_else(default_command);
    if argv.is_empty() {
        return Err(BrowserError::LauncherMissing {
            command: "(empty command)".to_owned(),
        });
    }
    let program = argv.remove(0);
    let mut args = argv;
    let mut env = Vec::new();
    let mut attached_to = None;
    match (&opts.attach, executable) {
        (Some(attach), _) => {
            // A context of our own in that browser: see `Attach`. Launch
            // switches mean nothing to a browser that already runs.
            args.push("--isolated".to_owned());
            env.push((CDP_ENDPOINT_ENV.to_owned(), attach.endpoint.clone()));
            if let Some((name, value)) = &attach.header {
                env.push((CDP_HEADERS_ENV.to_owned(), format!("{name}: {value}")));
            }
            attached_to = Some(attach.shown());
        }
        (None, Some(executable)) => {
            if opts.headless {
                args.push("--headless".to_owned());
            }
            args.push("--executable-path".to_owned());
            args.push(executable.display().to_string());
            if as_root {
                args.push("--no-sandbox".to_owned());
            }
            match &opts.user_data {
                UserData::Persistent(dir) => {
                    args.push("--user-data-dir".to_owned());
                    args.push(dir.display().to_string());
                }
                UserData::Isolated => args.push("--isolated".to_owned()),
            }
        }
        (None, None) => {
            return Err(BrowserError::NoBrowser {
                searched: Vec::new(),
            });
        }
    }
    args.push("--output-dir".to_owned());
    args.push(opts.output_dir.display().to_string());
    args.push("--config".to_owned());
    args.push(config.display().to_string());
    // The host saves screenshots from the file; base64 copies over the pipe
    // would only cost time.
    // Receipts are printed to PDF by the same browser; the model never
    // sees the tool (no profile offers it).
    args.push("--caps".to_owned());
    args.push("pdf".to_owned());
    args.push("--image-responses".to_owned());
    args.push("omit".to_owned());
    // Requests a service worker makes itself pass no route: a site's worker
    // could otherwise send the commit past the network guard.
    args.push("--block-service-workers".to_owned());
    args.push("--timeout-navigation".to_owned());
    args.push(NAVIGATION_TIMEOUT.as_millis().to_string());
    args.push("--timeout-settle".to_owned());
    args.push(SETTLE_TIME.as_millis().to_string());
    args.push("--viewport-size".to_owned());
    args.push(format!("{}x{}", VIEWPORT_PX.0, VIEWPORT_PX.1));
    let mut display = std::iter::once(program.as_str())
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(endpoint) = attached_to {
        display.push_str(&format!(" (attached to {endpoint})"));
    }
    Ok(LaunchPlan {
        program,
        args,
        cwd: opts.output_dir.clone(),
        executable: executable.map(Path::to_path_buf),
        env,
        display,
    })
}

/// The JSON config passed with `--config`. Only what has no command-line
/// flag goes here; the server merges both.
pub fn config_json() -> serde_json::Value {
    serde_json::json!({
        "browser": {
            "launchOptions": { "args": QUIET_CHROMIUM_ARGS }
        }
    })
}

/// Everything [`super::Browser::start`] checks before spawning: Node.js (when
/// the command is npx/node), the browser, the profile, the output directory.
/// Returns the plan ready to spawn.
pub fn prepare(opts: &BrowserOptions) -> Result<LaunchPlan, BrowserError> {
    let launcher = opts.command.clone().unwrap_or_else(default_launcher);
    let opts = &BrowserOptions {
        command: Some(launcher),
        ..opts.clone()
    };
    let program = opts
        .command
        .as_ref()
        .and_then(|c| c.first().cloned())
        .unwrap_or_else(|| "npx".to_owned());
    let program_name = Path::new(&program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if program_name == "npx" || program_name == "node" {
        let node = preflight_node()?;
        tracing::debug!(version = %node.version, path = %node.path.display(), "Node.js found");
    }
    if which::which(&program).is_err() {
        return Err(BrowserError::LauncherMissing { command: program });
    }
    // An attached browser needs no local one, and its profile is not ours.
    let executable = match &opts.attach {
        Some(_) => None,
        None => Some(detect_executable(opts.executable_path.as_deref())?),
    };
    if let (None, UserData::Persistent(dir)) = (&opts.attach, &opts.user_data) {
        std::fs::create_dir_all(dir)
            .map_err(|e| BrowserError::io("cannot create the browser profile", dir, e))?;
        check_profile_free(dir)?;
    }
    std::fs::create_dir_all(&opts.output_dir).map_err(|e| {
        BrowserError::io(
            "cannot create the browser output folder",
            &opts.output_dir,
            e,
        )
    })?;
    let config = opts.output_dir.join(CONFIG_FILE_NAME);
    let text = serde_json::to_string_pretty(&config_json()).unwrap_or_default();
    std::fs::write(&config, text)
        .map_err(|e| BrowserError::io("cannot write the Playwright MCP config", &config, e))?;
    let mut plan = plan(opts, executable.as_deref(), &config, running_as_root())?;
    if program_name == "npx" || program_name == "node" {
        plan.env.extend(node_compile_cache());
    }
    Ok(plan)
}

/// Node.js reads this (22.1 and later; older ones ignore it): the folder
/// where it keeps the V8 code of the modules it compiled, so the next start
/// of the server skips compiling Playwright again (BENCHMARKS.md, "Start
/// sooner").
pub const NODE_COMPILE_CACHE_ENV: &str = "NODE_COMPILE_CACHE";

/// [`NODE_COMPILE_CACHE_ENV`] at the cache folder of this user's
/// subterminator, never a shared one: the folder holds code node runs
/// without checking who wrote it. Nothing when there is no such folder;
/// the server then starts as it would without.
fn node_compile_cache() -> Option<(String, String)> {
    let dir = crate::paths::Dirs::from_env().ok()?.node_compile_cache();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::debug!(dir = %dir.display(), "no Node.js compile cache: {e}");
        return None;
    }
    Some((NODE_COMPILE_CACHE_ENV.to_owned(), dir.display().to_string()))
}

#[cfg(unix)]
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[cfg(not(unix))]
pub fn running_as_root() -> bool {
    false
}

#[cfg(test)]
mod tests;
