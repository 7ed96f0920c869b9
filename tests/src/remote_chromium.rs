//! A Chromium the tests start themselves with remote debugging on 127.0.0.1,
//! standing for a person's own Chrome or a grid's browser: subterminator
//! attaches to it (`--cdp-endpoint`) and must leave it running.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long Chromium gets to write its DevTools port.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A running Chromium, killed with its whole process group when dropped.
#[derive(Debug)]
pub struct RemoteChromium {
    child: std::process::Child,
    /// Its DevTools port on 127.0.0.1.
    pub port: u16,
    _profile: tempfile::TempDir,
}

impl RemoteChromium {
    /// Starts headless Chromium with an empty profile and one tab at `url`.
    pub fn start(url: &str) -> anyhow::Result<Self> {
        let exe = subterminator_core::browser::detect_executable(None)?;
        let profile = tempfile::tempdir()?;
        let mut command = std::process::Command::new(exe);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-quic",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn()?;
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                break port;
            }
            anyhow::ensure!(
                started.elapsed() < START_TIMEOUT,
                "Chromium wrote no DevTools port within {START_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        Ok(Self {
            child,
            port,
            _profile: profile,
        })
    }

    /// `http://127.0.0.1:<port>`, what `--cdp-endpoint` takes.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The browser process has not exited.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The URLs of its open tabs, from its own `/json/list`.
    pub async fn tabs(&self) -> anyhow::Result<Vec<String>> {
        subterminator_core::tls::ready();
        let list: serde_json::Value = reqwest::get(format!("{}/json/list", self.endpoint()))
            .await?
            .json()
            .await?;
        Ok(list
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["url"].as_str().map(str::to_owned))
            .collect())
    }

    /// The profile folder, to look for anything written there.
    pub fn profile(&self) -> PathBuf {
        self._profile.path().to_path_buf()
    }
}

impl Drop for RemoteChromium {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.wait();
    }
}
