//! Running the real `subterminator` binary in a test: its own home folder,
//! headless Chromium, no inherited keys, stdin from the test, and a way to
//! find every process it started.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::io::AsyncWriteExt;

/// The binary under test (same code as host's `subterminator`). Cargo
/// builds it for this crate's integration tests, beside their own
/// executables' folder (`target/<profile>/`).
pub fn bin() -> PathBuf {
    let name = format!("subterminator-under-test{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.parent()
                .and_then(Path::parent)
                .map(|dir| dir.join(&name))
        })
        .unwrap_or_else(|| PathBuf::from(name))
}

/// A whole run, browser included, must end within this.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// Variables a test must not inherit from the developer's shell.
const SCRUBBED: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "SUBTERMINATOR_MODEL",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "RUST_LOG",
];

/// The browser the end-to-end runs drive: Debian's `chromium-headless-shell`
/// where it is installed, else its `chromium`. Every run is headless, and the
/// headless shell (the same Chromium build without the browser's own UI
/// layer) spends about 60% less CPU per run on the two cores CI has, which
/// the suite is bound by (BENCHMARKS.md, "CI wall time"). The browser
/// layer's own suites (`browser`, `guard`, `compact`, `record`) and the
/// attach tests keep the full `chromium`.
pub fn browser() -> &'static str {
    const SHELL: &str = "/usr/bin/chromium-headless-shell";
    if Path::new(SHELL).is_file() {
        SHELL
    } else {
        "/usr/bin/chromium"
    }
}

/// Compiled plugins, shared by every test's home (`<target>/tmp/plugin-cache`).
/// A fresh home compiles every bundled plugin again, about 5 s of CPU on
/// this machine: across the suite's few hundred runs that was a third of
/// its time. The cache trusts only files written under its own key, which
/// the runs share with it; `plugin_cache` tests the cache itself.
pub fn shared_plugin_cache() -> PathBuf {
    bin()
        .parent()
        .and_then(Path::parent)
        .map(|target| target.join("tmp").join("plugin-cache"))
        .unwrap_or_else(|| std::env::temp_dir().join("subterminator-test-plugin-cache"))
}

/// Points `home`'s plugin cache at [`shared_plugin_cache`], when `home` is a
/// folder with no cache yet; otherwise leaves it be (a test of a missing or
/// odd home gets exactly the home it made). Best effort: without the link a
/// run compiles, as a person's first run does.
pub fn share_plugin_cache(home: &Path) {
    let cache = home.join("cache");
    if !home.is_dir() || cache.symlink_metadata().is_ok() {
        return;
    }
    let shared = shared_plugin_cache();
    if std::fs::create_dir_all(&shared).is_err() || std::fs::create_dir(&cache).is_err() {
        return;
    }
    #[cfg(unix)]
    let _ = std::os::unix::fs::symlink(&shared, cache.join("plugins"));
}

/// A command for the binary with a fresh home under `home`.
pub fn command(home: &Path) -> tokio::process::Command {
    share_plugin_cache(home);
    let mut command = tokio::process::Command::new(bin());
    for var in SCRUBBED {
        command.env_remove(var);
    }
    command
        .env("SUBTERMINATOR_HOME", home)
        .env("SUBTERMINATOR_BROWSER", browser())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// One headless browser and one Playwright MCP server attached to it, for
/// the runs of one test, one after another, as a CancelBench job serves its
/// runs: each run is a session of the server and so a browser context of
/// its own, while Node.js, Playwright and the browser start once instead of
/// once a run (about 1.2 CPU-s a run on this machine, BENCHMARKS.md "CI's
/// own time"). No state crosses sessions
/// (`browser::runs_on_one_served_server_share_no_state`). A person's run
/// starts its own server; the suites that test that path
/// (`cancel_offline`, `services`, `cli`, `browser`) keep doing so.
#[derive(Debug)]
pub struct ServedBrowser(subterminator_core::browser::ServedChromium);

impl ServedBrowser {
    /// Starts [`browser`] and a server attached to it.
    pub async fn start() -> anyhow::Result<ServedBrowser> {
        let started = subterminator_core::browser::ServedChromium::start(Path::new(browser()));
        Ok(ServedBrowser(started.await?))
    }

    /// The arguments that make a `cancel` a session of it.
    pub fn args(&self) -> [String; 4] {
        let served = self.0.served();
        [
            "--cdp-endpoint".to_owned(),
            self.0.attach().endpoint.clone(),
            "--served-playwright".to_owned(),
            format!("{},{}", served.url, served.dir.display()),
        ]
    }
}

/// The binary with `args`, run on a terminal of its own: `script` gives it a
/// pseudo-terminal for stdin and stdout, as a person's shell would. The
/// environment is the same as [`command`]'s.
pub fn on_terminal(home: &Path, args: &[&str]) -> tokio::process::Command {
    share_plugin_cache(home);
    let line = std::iter::once(bin().display().to_string())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let mut command = tokio::process::Command::new("script");
    command.args(["-qfec", &line, "/dev/null"]);
    for var in SCRUBBED {
        command.env_remove(var);
    }
    command
        .env("SUBTERMINATOR_HOME", home)
        .env("SUBTERMINATOR_BROWSER", browser())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// The page at `file` as Chromium renders it (its DOM after parsing and
/// any script the page's own policy allows): what a person's browser shows.
pub async fn rendered(file: &Path) -> anyhow::Result<String> {
    let chromium = subterminator_core::browser::launch::detect_executable(None)?;
    let out = tokio::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", file.display()))
        .output()
        .await?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `command` with `input` on stdin (then end of input) to the end.
pub async fn run(mut command: tokio::process::Command, input: &str) -> anyhow::Result<Output> {
    let mut child = command.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).await?;
        drop(stdin);
    }
    Ok(tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output()).await??)
}

/// Text of an output, for asserting and for failure messages.
pub fn text(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `subterminator <args>` in `home`, nothing on stdin, to the end: its exit
/// code and [`text`].
pub async fn sub(home: &Path, args: &[&str]) -> anyhow::Result<(Option<i32>, String)> {
    let mut command = command(home);
    command.args(args);
    let out = run(command, "").await?;
    Ok((out.status.code(), text(&out)))
}

/// The offline policy cancels Netflix on a practice copy served for it,
/// headless in a throwaway profile; `answer` is typed at the prompt.
/// Returns the exit code, [`text`] and the run's folder.
pub async fn offline_netflix(
    home: &Path,
    answer: &str,
) -> anyhow::Result<(Option<i32>, String, PathBuf)> {
    use subterminator_practice::{PracticeSite, SiteOptions};
    let site = PracticeSite::serve(SiteOptions::default()).await?;
    let mut command = command(home);
    command.args([
        "cancel",
        "netflix",
        "--start-url",
        &site.url(),
        "--model",
        "offline",
        "--headless",
        "--isolated",
    ]);
    let out = run(command, answer).await?;
    let dir = run_dirs(home)
        .pop()
        .ok_or_else(|| anyhow::anyhow!("the run left no folder: {}", text(&out)))?;
    Ok((out.status.code(), text(&out), dir))
}

/// Every file under `dir`, as paths relative to it, sorted.
pub fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder)?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                found.push(relative.to_path_buf());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Copies every file under `from` to the same place under `to`.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    for relative in files_under(from)? {
        let dest = to.join(&relative);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(from.join(&relative), dest)?;
    }
    Ok(())
}

/// Every run folder under `home`, oldest first.
pub fn run_dirs(home: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(home.join("data/runs")) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// `result.json` of the newest run.
pub fn last_result(home: &Path) -> anyhow::Result<serde_json::Value> {
    let dir = run_dirs(home)
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no run folder"))?;
    Ok(serde_json::from_str(&std::fs::read_to_string(
        dir.join("result.json"),
    )?)?)
}

/// Every live process descended from `root`, by walking /proc.
pub fn descendants(root: u32) -> BTreeSet<u32> {
    let mut parents = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = parent_of(pid) {
                parents.push((pid, ppid));
            }
        }
    }
    let mut found = BTreeSet::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (pid, ppid) in &parents {
            if *ppid == p && found.insert(*pid) {
                frontier.push(*pid);
            }
        }
    }
    found
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces.
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(1)?.parse().ok()
}

/// Proportional set size of `pid` in KiB (shared pages split between
/// their users); 0 once it is gone.
pub fn pss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Whether `pid` is alive (and not a zombie).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// The processes of `pids` still alive once they are all gone or `within`
/// has passed, whichever comes first: a process killed a moment ago may
/// take the kernel a moment to reap.
pub async fn still_alive(pids: impl IntoIterator<Item = u32>, within: Duration) -> Vec<u32> {
    let pids: Vec<u32> = pids.into_iter().collect();
    let deadline = std::time::Instant::now() + within;
    loop {
        let alive: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if alive.is_empty() || std::time::Instant::now() >= deadline {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Installs the component at `wasm` as plugin `id` in the home under `home`,
/// with a manifest entry as `plugin install` would write, so the binary loads
/// it (a file the manifest does not list is refused).
/// The entry's version and API are placeholders: the host checks only the
/// file's SHA-256 at load, and loading the plugin here to read them would
/// compile it once per end-to-end run.
pub fn install_component(home: &Path, id: &str, wasm: &str) -> anyhow::Result<()> {
    use subterminator_core::plugin::{InstalledPlugin, Manifest, PluginKind, sha256_hex};
    let dir = home.join("data/plugins");
    std::fs::create_dir_all(&dir)?;
    let bytes = std::fs::read(wasm)?;
    let file = format!("{id}.wasm");
    std::fs::write(dir.join(&file), &bytes)?;
    let mut manifest = Manifest::load(&dir)?;
    manifest.put(InstalledPlugin {
        id: id.to_owned(),
        version: "0.1.0".into(),
        api_version: "0.1.0".into(),
        kind: PluginKind::Component,
        file,
        sha256: sha256_hex(&bytes),
        source: wasm.to_owned(),
        installed_at: "2026-11-23T00:00:00Z".into(),
    });
    manifest.save(&dir)?;
    Ok(())
}

/// Installs the declarative service file at `path` as plugin `id`, with a
/// manifest entry as `plugin install` would write.
pub fn install_declarative(home: &Path, id: &str, path: &Path) -> anyhow::Result<()> {
    use subterminator_core::plugin::{InstalledPlugin, Manifest, PluginKind, sha256_hex};
    let dir = home.join("data/plugins");
    std::fs::create_dir_all(&dir)?;
    let bytes = std::fs::read(path)?;
    let file = format!("{id}.toml");
    std::fs::write(dir.join(&file), &bytes)?;
    let mut manifest = Manifest::load(&dir)?;
    manifest.put(InstalledPlugin {
        id: id.to_owned(),
        version: "0.0.0".into(),
        api_version: "0.4.0".into(),
        kind: PluginKind::Declarative,
        file,
        sha256: sha256_hex(&bytes),
        source: path.display().to_string(),
        installed_at: "2026-11-23T00:00:00Z".into(),
    });
    manifest.save(&dir)?;
    Ok(())
}
