//! One Playwright MCP server for many runs, one after another: started once
//! over HTTP on this machine, attached to a browser that already runs
//! (`Attach`, `--isolated`), and reached by each run as an MCP session of its
//! own. The server gives every session a browser context of its own and
//! closes it when the session ends, so no cookie, storage, page or guard
//! crosses from one run to the next, while Node.js and Playwright start once
//! (about 0.4 s of a bench run's 1.7 s). CancelBench runs every flow so; a
//! person's `cancel` starts its own server, as before.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::process::ChildStdin;

use super::launch::{self, LaunchPlan};
use super::process::ServerProcess;
use super::shared::SharedChromium;
use super::{Attach, BrowserError, BrowserOptions, CONNECT_TIMEOUT, TERMINATE_GRACE};

/// What the server prints on stderr once it listens.
const LISTENING: &str = "Listening on ";

/// How often its stderr is looked at meanwhile.
const POLL: Duration = Duration::from_millis(20);

/// Where a run reaches a served server, and the folder its results' file
/// links are relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// `http://localhost:<port>/mcp`: the server admits no other host name.
    pub url: String,
    /// The server's working and output folder.
    pub dir: PathBuf,
}

/// A running served server, ended with its process group when dropped.
#[derive(Debug)]
pub struct ServedPlaywright {
    process: ServerProcess,
    /// Held open: the server ends when its stdin closes, so it cannot
    /// outlive this process even if it is killed.
    _stdin: ChildStdin,
    served: Served,
    /// Its working and output folder, removed after the server ends (the
    /// fields drop in order).
    _folder: tempfile::TempDir,
}

impl ServedPlaywright {
    /// Starts the pinned server with the flags a run's own server gets,
    /// attached to `attach`, listening on a port the system picks on
    /// `localhost`; its files go to a fresh folder of its own.
    pub async fn start(attach: &Attach) -> Result<ServedPlaywright, BrowserError> {
        let folder = tempfile::tempdir()
            .map_err(|e| BrowserError::io("cannot make a folder", std::env::temp_dir(), e))?;
        let mut opts = BrowserOptions::headless_isolated(folder.path());
        opts.attach = Some(attach.clone());
        let prepared = tokio::task::spawn_blocking(move || launch::prepare(&opts)).await;
        let mut plan: LaunchPlan = prepared.map_err(|e| BrowserError::Connect {
            command: "preflight".to_owned(),
            detail: e.to_string(),
        })??;
        plan.args.extend(["--port".to_owned(), "0".to_owned()]);
        plan.display = format!("{} --port 0", plan.display);
        let (mut process, mut stdout, stdin) = ServerProcess::spawn(&plan)?;
        // Nothing is read from stdout over HTTP; drained so it never blocks.
        tokio::spawn(async move {
            let mut sink = [0u8; 4096];
            while matches!(stdout.read(&mut sink).await, Ok(n) if n > 0) {}
        });
        let started = Instant::now();
        let base = loop {
            if let Some(base) = listening(&process.stderr_tail()) {
                break base;
            }
            if started.elapsed() > CONNECT_TIMEOUT {
                let detail = format!(
                    "it said no address within {} s; stderr: {}",
                    CONNECT_TIMEOUT.as_secs(),
                    process.stderr_tail()
                );
                process.terminate(TERMINATE_GRACE).await;
                return Err(BrowserError::Connect {
                    command: plan.display,
                    detail,
                });
            }
            tokio::time::sleep(POLL).await;
        };
        tracing::debug!(%base, "Playwright MCP serves runs");
        Ok(ServedPlaywright {
            process,
            _stdin: stdin,
            served: Served {
                url: format!("{base}/mcp"),
                dir: plan.cwd,
            },
            _folder: folder,
        })
    }

    /// Where runs reach it.
    pub fn served(&self) -> &Served {
        &self.served
    }

    /// The server's own process.
    pub fn pid(&self) -> i32 {
        self.process.pid()
    }

    /// Ends it and waits for its processes to be gone.
    pub async fn stop(mut self) {
        self.process.terminate(TERMINATE_GRACE).await;
    }
}

/// A headless Chromium of its own with a served server attached to it: what
/// the runs of one bench job, or of one end-to-end test, share one after
/// another. Dropped: the server, then the browser.
#[derive(Debug)]
pub struct ServedChromium {
    server: ServedPlaywright,
    attach: Attach,
    _chromium: SharedChromium,
}

impl ServedChromium {
    /// Starts `executable` headless (`SharedChromium`) and a served server
    /// attached to it.
    pub async fn start(executable: &std::path::Path) -> Result<ServedChromium, BrowserError> {
        let as_root = launch::running_as_root();
        let path = executable.to_path_buf();
        let chromium =
            tokio::task::spawn_blocking(move || SharedChromium::start(&path, as_root, None))
                .await
                .map_err(|e| BrowserError::Connect {
                    command: executable.display().to_string(),
                    detail: e.to_string(),
                })??;
        let attach =
            Attach::parse(&chromium.endpoint(), None).map_err(|detail| BrowserError::Connect {
                command: executable.display().to_string(),
                detail,
            })?;
        let server = ServedPlaywright::start(&attach).await?;
        Ok(ServedChromium {
            server,
            attach,
            _chromium: chromium,
        })
    }

    /// The browser, for a run's `attach`.
    pub fn attach(&self) -> &Attach {
        &self.attach
    }

    /// The server, for a run's `served`.
    pub fn served(&self) -> &Served {
        self.server.served()
    }
}

/// The address after [`LISTENING`] in the server's stderr, if it said it:
/// only a `http://localhost:<port>` one is taken.
fn listening(stderr: &str) -> Option<String> {
    stderr.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(LISTENING)?;
        let port = rest.strip_prefix("http://localhost:")?;
        (!port.is_empty() && port.chars().all(|c| c.is_ascii_digit())).then(|| rest.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_read_only_from_the_servers_own_line() {
        for (stderr, want) in [
            (
                "Listening on http://localhost:4312\nPut this…",
                Some("http://localhost:4312"),
            ),
            (
                "noise\nListening on http://localhost:9",
                Some("http://localhost:9"),
            ),
            ("Listening on http://example.com:80", None),
            ("Listening on http://localhost:80/evil", None),
            ("Listening on http://localhost:", None),
            ("listening somewhere", None),
            ("", None),
        ] {
            assert_eq!(listening(stderr).as_deref(), want, "{stderr:?}");
        }
    }
}
