//! The server and everything it starts. The server runs in its own process
//! group, but Playwright starts Chromium detached (a new session and group),
//! so the group alone is not enough: on Linux the tree under the server is
//! read from /proc and the browser's groups are remembered, so that shutdown
//! and Drop can end all of them even after node is gone.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::BrowserError;
use super::launch::LaunchPlan;
use super::procfs::{descendants, is_alive, members_of_group};

/// Lines of the server's stderr kept for error messages.
const STDERR_TAIL_LINES: usize = 20;

/// How often to look whether the processes are gone.
const EXIT_POLL_INTERVAL: Duration = Duration::from_millis(25);

/// The last lines the server wrote to stderr.
pub type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// A running server: its group, and the groups and pids of what it started.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    pid: i32,
    /// Process groups to signal: the server's own, then the browser's.
    groups: BTreeSet<i32>,
    /// Every pid seen under the server.
    pids: BTreeSet<i32>,
    stderr: StderrTail,
    finished: bool,
}

impl ServerProcess {
    /// Spawns the server in a new process group, stdin/stdout piped for MCP,
    /// stderr drained into the log and a short tail.
    pub fn spawn(plan: &LaunchPlan) -> Result<(Self, ChildStdout, ChildStdin), BrowserError> {
        let mut command = Command::new(&plan.program);
        command
            .args(&plan.args)
            .current_dir(&plan.cwd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        // Only our own settings reach the server: a PLAYWRIGHT_MCP_* left in
        // the person's environment could attach it elsewhere or undo a flag.
        for (name, _) in std::env::vars_os() {
            if name
                .to_str()
                .is_some_and(|n| n.starts_with(super::launch::SERVER_ENV_PREFIX))
            {
                command.env_remove(name);
            }
        }
        command.envs(plan.env.iter().map(|(k, v)| (k, v)));
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|e| BrowserError::Connect {
            command: plan.display.clone(),
            detail: format!("cannot start it: {e}"),
        })?;
        let pid = child
            .id()
            .and_then(|p| i32::try_from(p).ok())
            .unwrap_or_default();
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(BrowserError::Connect {
                command: plan.display.clone(),
                detail: "its stdio could not be captured".to_owned(),
            });
        };
        let stderr: StderrTail = Arc::default();
        if let Some(pipe) = child.stderr.take() {
            let tail = stderr.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(target: "playwright_mcp", "{line}");
                    if let Ok(mut tail) = tail.lock() {
                        if tail.len() == STDERR_TAIL_LINES {
                            tail.pop_front();
                        }
                        tail.push_back(line);
                    }
                }
            });
        }
        tracing::debug!(pid, command = %plan.display, "Playwright MCP started");
        let process = Self {
            child,
            pid,
            groups: BTreeSet::from([pid]),
            pids: BTreeSet::from([pid]),
            stderr,
            finished: false,
        };
        Ok((process, stdout, stdin))
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Process groups known to belong to this server.
    pub fn groups(&self) -> Vec<i32> {
        self.groups.iter().copied().collect()
    }

    /// Pids known to belong to this server.
    pub fn pids(&self) -> Vec<i32> {
        self.pids.iter().copied().collect()
    }

    /// The server's last stderr lines, joined.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }

    /// Records the processes now under the server and their groups.
    pub fn refresh(&mut self) {
        for (pid, pgid) in descendants(self.pid) {
            self.pids.insert(pid);
            self.groups.insert(pgid);
        }
    }

    /// SIGTERM to every known group, up to `grace` for all to exit, then
    /// SIGKILL to what is left; reaps the server.
    pub async fn terminate(&mut self, grace: Duration) {
        if self.finished {
            return;
        }
        self.refresh();
        self.signal_all(Signal::Term);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && self.any_alive() {
            let _ = self.child.try_wait();
            tokio::time::sleep(EXIT_POLL_INTERVAL).await;
        }
        if self.any_alive() {
            tracing::warn!(
                pid = self.pid,
                "Playwright MCP did not exit after SIGTERM; killing it"
            );
            self.refresh();
            self.signal_all(Signal::Kill);
        }
        let _ = tokio::time::timeout(grace, self.child.wait()).await;
        self.finished = true;
    }

    /// SIGKILL to everything, at once (Drop, timeouts).
    pub fn kill_now(&mut self) {
        if self.finished {
            return;
        }
        self.refresh();
        self.signal_all(Signal::Kill);
        let _ = self.child.try_wait();
        self.finished = true;
    }

    fn any_alive(&mut self) -> bool {
        // Reap the server first, or its zombie would count as alive.
        let _ = self.child.try_wait();
        self.pids.iter().any(|p| is_alive(*p))
            || self.groups.iter().any(|g| !members_of_group(*g).is_empty())
    }

    fn signal_all(&self, signal: Signal) {
        for group in &self.groups {
            send_group(*group, signal);
        }
        for pid in &self.pids {
            send_pid(*pid, signal);
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if !self.finished {
            tracing::debug!(
                pid = self.pid,
                "Playwright MCP dropped without shutdown; killing it"
            );
            self.kill_now();
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn to_nix(signal: Signal) -> nix::sys::signal::Signal {
    match signal {
        Signal::Term => nix::sys::signal::Signal::SIGTERM,
        Signal::Kill => nix::sys::signal::Signal::SIGKILL,
    }
}

#[cfg(unix)]
fn send_group(pgid: i32, signal: Signal) {
    // Never our own group (or init's): a pgid of 0 or 1 would be a bug.
    if pgid <= 1 || pgid == nix::unistd::getpgrp().as_raw() {
        return;
    }
    let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), to_nix(signal));
}

#[cfg(unix)]
fn send_pid(pid: i32, signal: Signal) {
    if pid <= 1 || pid == std::process::id() as i32 {
        return;
    }
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), to_nix(signal));
}

#[cfg(not(unix))]
fn send_group(_pgid: i32, _signal: Signal) {}

#[cfg(not(unix))]
fn send_pid(_pid: i32, _signal: Signal) {}
