//! `subterminator doctor`: checks what a run needs, one ✓/✗ line each with
//! the fix. Exits 0 only when every required check passes.

use std::time::Duration;

use subterminator_core::browser::{
    self, Browser, BrowserOptions, PLAYWRIGHT_MCP_PACKAGE, PLAYWRIGHT_MCP_VERSION,
};
use subterminator_core::config::Config;
use subterminator_core::error::Result;
use subterminator_core::paths::Dirs;

/// `subterminator mcp` must start, initialize and list its tools within this.
const MCP_CHECK_TIMEOUT: Duration = Duration::from_secs(20);

/// The first `npx` of the pinned package may download it.
const PACKAGE_CHECK_TIMEOUT: Duration = Duration::from_secs(180);

#[derive(Debug, serde::Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub required: bool,
    pub detail: String,
    pub fix: Option<String>,
}

fn pass(name: &'static str, detail: impl Into<String>) -> Check {
    Check {
        name,
        ok: true,
        required: true,
        detail: detail.into(),
        fix: None,
    }
}

fn fail(name: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
    Check {
        name,
        ok: false,
        required: true,
        detail: detail.into(),
        fix: Some(fix.into()),
    }
}

pub async fn run(dirs: &Dirs, cdp_endpoint: Option<String>, json: bool) -> Result<u8> {
    let config = Config::load(&dirs.config_file()).ok().unwrap_or_default();
    let mut checks = vec![node()];
    checks.push(package(&config).await);
    let attaching = cdp_endpoint.is_some() || config.browser.cdp_endpoint.is_some();
    let mut local = browser_launches(dirs, &config).await;
    // Runs that attach need no browser here.
    local.required = !attaching;
    checks.push(local);
    if attaching {
        checks.push(attached(dirs, &config, cdp_endpoint.as_deref()).await);
    }
    checks.push(profile_dir(dirs));
    checks.push(signing_key(dirs));
    checks.push(plugins(dirs).await);
    checks.push(mcp_server().await);
    checks.extend(keys());
    let healthy = checks.iter().all(|c| c.ok || !c.required);
    if json {
        anstream::println!("{}", serde_json::json!({ "ok": healthy, "checks": checks }));
    } else {
        let green = anstyle::AnsiColor::Green.on_default().bold();
        let red = anstyle::AnsiColor::Red.on_default().bold();
        for c in &checks {
            let mark = match (c.ok, c.required) {
                (true, _) => format!("{green}✓{green:#}"),
                (false, true) => format!("{red}✗{red:#}"),
                (false, false) => "-".to_owned(),
            };
            anstream::println!("{mark} {}: {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                anstream::println!("    fix: {fix}");
            }
        }
    }
    Ok(if healthy { 0 } else { 1 })
}

fn node() -> Check {
    match browser::preflight_node() {
        Ok(info) => pass(
            "Node.js",
            format!("{} at {}", info.version, info.path.display()),
        ),
        Err(e) => fail(
            "Node.js",
            e.to_string(),
            "install Node.js 18 or newer (https://nodejs.org/)",
        ),
    }
}

async fn package(config: &Config) -> Check {
    let name = "Playwright MCP";
    let mut argv = config
        .browser
        .command
        .clone()
        .unwrap_or_else(browser::launch::default_launcher);
    let direct = argv.first().is_some_and(|p| p == "node");
    argv.push("--version".into());
    let Some((program, rest)) = argv.split_first() else {
        return fail(
            name,
            "the configured command is empty",
            "remove [browser].command from the config",
        );
    };
    let output = tokio::time::timeout(
        PACKAGE_CHECK_TIMEOUT,
        tokio::process::Command::new(program)
            .args(rest)
            .kill_on_drop(true)
            .output(),
    )
    .await;
    let pin = format!("{PLAYWRIGHT_MCP_PACKAGE}@{PLAYWRIGHT_MCP_VERSION}");
    match output {
        Ok(Ok(out)) if out.status.success() => {
            let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            let how = if direct {
                "run by node from npm's cache"
            } else {
                "through npx"
            };
            pass(name, format!("{pin} answers (version {version}), {how}"))
        }
        Ok(Ok(out)) => fail(
            name,
            format!(
                "`{}` failed: {}",
                argv.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            format!("run `npx -y {pin} --version` once with network access"),
        ),
        Ok(Err(e)) => fail(
            name,
            format!("cannot run `{program}`: {e}"),
            "install Node.js with npm (npx comes with it)",
        ),
        Err(_) => fail(
            name,
            format!(
                "`{}` did not answer within {} s",
                argv.join(" "),
                PACKAGE_CHECK_TIMEOUT.as_secs()
            ),
            format!("run `npx -y {pin} --version` by hand to see what it waits for"),
        ),
    }
}

async fn browser_launches(dirs: &Dirs, config: &Config) -> Check {
    let name = "Browser";
    let path = match browser::detect_executable(config.browser.executable.as_deref()) {
        Ok(path) => path,
        Err(e) => {
            return fail(
                name,
                e.to_string(),
                "install Chromium (`apt-get install chromium`) or set SUBTERMINATOR_BROWSER=/path/to/chrome",
            );
        }
    };
    let scratch = dirs.cache.join("doctor");
    let mut options = BrowserOptions::headless_isolated(&scratch);
    options.executable_path = Some(path.clone());
    options.command = config.browser.command.clone();
    let launched = match Browser::start(options).await {
        Ok(browser) => {
            let opened = browser.navigate("about:blank").await;
            let _ = browser.shutdown().await;
            opened.map(|_| ())
        }
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    match launched {
        Ok(()) => pass(name, format!("{} launches headless", path.display())),
        Err(e) => fail(
            name,
            format!("{} found but does not launch: {e}", path.display()),
            "check the browser runs (`chromium --headless --version`), or point SUBTERMINATOR_BROWSER at another",
        ),
    }
}

/// Attaches as a run would (a context of its own), opens a blank page and
/// detaches; the browser must still answer afterwards.
async fn attached(dirs: &Dirs, config: &Config, flag: Option<&str>) -> Check {
    let name = "Attached browser";
    let attach = match subterminator_core::session::attach(flag, &config.browser) {
        Ok(Some(attach)) => attach,
        Ok(None) => return fail(name, "no endpoint", "pass --cdp-endpoint URL"),
        Err(e) => {
            return fail(
                name,
                e.to_string(),
                "fix --cdp-endpoint or the config's [browser] cdp-endpoint and cdp-headers-env",
            );
        }
    };
    let shown = attach.shown();
    let scratch = dirs.cache.join("doctor-attach");
    let mut options = BrowserOptions::headless_isolated(&scratch);
    options.command = config.browser.command.clone();
    options.attach = Some(attach);
    let started = std::time::Instant::now();
    let outcome = match Browser::start(options).await {
        Ok(browser) => {
            let opened = browser.navigate("about:blank").await;
            let _ = browser.shutdown().await;
            opened.map(|_| ())
        }
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    match outcome {
        Ok(()) => pass(
            name,
            format!(
                "{shown} answers: a context opened and closed in {} ms",
                started.elapsed().as_millis()
            ),
        ),
        Err(e) => fail(
            name,
            e.to_string(),
            "start the browser with --remote-debugging-port=9222 (or check the grid's address and token), then run doctor again",
        ),
    }
}

/// The key receipts are signed with: private, readable, or made on the
/// first run. Doctor only looks; it makes no key.
fn signing_key(dirs: &Dirs) -> Check {
    use subterminator_core::signing::Keyring;
    let name = "Signing key";
    match Keyring::open_existing(&dirs.config) {
        Ok(Some(keys)) => pass(
            name,
            format!(
                "{} ({}), readable by you only",
                keys.current.public(),
                keys.current.name
            ),
        ),
        Ok(None) => pass(
            name,
            "none yet: the first run makes one (or `subterminator key`)",
        ),
        Err(e) => fail(
            name,
            e.to_string(),
            "receipts cannot be signed until this is fixed; `subterminator key` says more",
        ),
    }
}

fn profile_dir(dirs: &Dirs) -> Check {
    let name = "Browser profiles";
    let dir = dirs.profiles();
    let writable =
        std::fs::create_dir_all(&dir).and_then(|()| tempfile::tempfile_in(&dir).map(|_| ()));
    if let Err(e) = writable {
        return fail(
            name,
            format!("{} is not writable: {e}", dir.display()),
            "fix the folder's permissions or set SUBTERMINATOR_HOME",
        );
    }
    let mut services: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    services.sort();
    for service in &services {
        if let Err(e) = browser::launch::check_profile_free(&dir.join(service)) {
            return fail(name, e.to_string(), "close the browser or run that uses it");
        }
    }
    let signed_in = if services.is_empty() {
        "no service signed in yet".to_owned()
    } else {
        format!("one each for {}", services.join(", "))
    };
    pass(
        name,
        format!(
            "{} is writable, every profile free ({signed_in})",
            dir.display()
        ),
    )
}

async fn plugins(dirs: &Dirs) -> Check {
    let name = "Plugins";
    match subterminator_core::plugin::load_registry(dirs).await {
        Ok(registry) if registry.broken().is_empty() => pass(
            name,
            format!(
                "{} load in the sandbox ({}); cache at {}",
                registry.services().len(),
                registry.ids().join(", "),
                dirs.plugin_cache().display()
            ),
        ),
        Ok(registry) => {
            let broken: Vec<String> = registry
                .broken()
                .iter()
                .map(|(n, e)| format!("{n}: {e}"))
                .collect();
            fail(
                name,
                broken.join("; "),
                "remove or update the broken plugin files",
            )
        }
        Err(e) => fail(
            name,
            e.to_string(),
            format!("delete {} and try again", dirs.plugin_cache().display()),
        ),
    }
}

/// Keys are reported as set or not, never shown; none is required, since
/// the demo and local models run without one.
fn keys() -> Vec<Check> {
    ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]
        .into_iter()
        .map(|var| {
            let set = std::env::var(var).is_ok_and(|v| !v.trim().is_empty());
            Check {
                name: var,
                ok: set,
                required: false,
                detail: if set {
                    "set".into()
                } else {
                    "not set (only needed for that provider's models)".into()
                },
                fix: None,
            }
        })
        .collect()
}

/// Starts `subterminator mcp` as a client would (this binary, stdio), and
/// asks it for its tools. No browser starts: the server starts them lazily.
async fn mcp_server() -> Check {
    use rmcp::ServiceExt;
    let name = "MCP server";
    let fix = "run `subterminator mcp` by hand and read what it prints on stderr";
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(name, format!("cannot find this program: {e}"), fix),
    };
    let started = std::time::Instant::now();
    let mut child = match tokio::process::Command::new(&exe)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            return fail(
                name,
                format!("`{} mcp` did not start: {e}", exe.display()),
                fix,
            );
        }
    };
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return fail(name, "its stdio could not be captured", fix);
    };
    let talk = async {
        let client = ().serve((stdout, stdin)).await.map_err(|e| e.to_string())?;
        let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
        let _ = client.cancel().await;
        Ok::<_, String>(tools.len())
    };
    let outcome = tokio::time::timeout(MCP_CHECK_TIMEOUT, talk).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    match outcome {
        Ok(Ok(tools)) => pass(
            name,
            format!(
                "`subterminator mcp` answers: {tools} tools in {} ms",
                started.elapsed().as_millis()
            ),
        ),
        Ok(Err(e)) => fail(name, format!("`subterminator mcp` failed: {e}"), fix),
        Err(_) => fail(
            name,
            format!(
                "`subterminator mcp` did not answer within {} s",
                MCP_CHECK_TIMEOUT.as_secs()
            ),
            fix,
        ),
    }
}
