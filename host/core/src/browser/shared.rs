//! One headless Chromium for many runs: started once with its DevTools
//! port on 127.0.0.1, each run's Playwright MCP server attaches to it
//! (`Attach`, `--isolated`) and makes a browser context of its own, so no
//! cookie, storage or cache crosses from one run to the next while the
//! browser's start is paid once. CancelBench runs every flow so; a person's
//! `cancel` starts its own browser, as before.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::BrowserError;
use super::launch::QUIET_CHROMIUM_ARGS;

/// How long Chromium gets to write its DevTools port.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How often the port file is looked for meanwhile.
const POLL: Duration = Duration::from_millis(25);

/// A running Chromium, killed with its whole process group when dropped.
#[derive(Debug)]
pub struct SharedChromium {
    child: Child,
    port: u16,
    profile: tempfile::TempDir,
}

impl SharedChromium {
    /// Starts `executable` headless with an empty profile of its own and
    /// one tab at `first_url` (`about:blank` when `None`). `as_root` adds
    /// `--no-sandbox`, as a launch does: Chromium refuses to sandbox as root.
    pub fn start(
        executable: &Path,
        as_root: bool,
        first_url: Option<&str>,
    ) -> Result<SharedChromium, BrowserError> {
        let failed = |detail: String| BrowserError::Connect {
            command: executable.display().to_string(),
            detail,
        };
        let profile = tempfile::tempdir()
            .map_err(|e| failed(format!("cannot make a profile folder: {e}")))?;
        let mut command = Command::new(executable);
        command
            .args(["--headless", "--disable-gpu"])
            // Only this machine may drive it, on a port the system picks.
            .args([
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .args(QUIET_CHROMIUM_ARGS)
            .arg(format!("--user-data-dir={}", profile.path().display()));
        if as_root {
            command.arg("--no-sandbox");
        }
        command
            .arg(first_url.unwrap_or("about:blank"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own group, so that dropping it ends every helper process too.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| failed(format!("cannot start it: {e}")))?;
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                break port;
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(failed(format!("it exited at once ({status})")));
            }
            if started.elapsed() > START_TIMEOUT {
                kill_group(&mut child);
                return Err(failed(format!(
                    "it wrote no DevTools port within {} s",
                    START_TIMEOUT.as_secs()
                )));
            }
            std::thread::sleep(POLL);
        };
        Ok(SharedChromium {
            child,
            port,
            profile,
        })
    }

    /// `http://127.0.0.1:<port>`, what an attach takes.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its DevTools port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The browser's own process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the browser process has not exited.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Its profile folder (the default context's, which no attached run
    /// uses: each makes a context of its own).
    pub fn profile(&self) -> PathBuf {
        self.profile.path().to_path_buf()
    }
}

impl Drop for SharedChromium {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.wait();
}
