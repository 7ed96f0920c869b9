//! The browsers a bench's runs attach to: one headless Chromium per job,
//! each lent to one run at a time with a Playwright MCP server attached to
//! it (core's `ServedChromium`, which the end-to-end tests use too), every
//! run a session of that server and so a context of its own in the
//! browser: Chromium, Node.js
//! and Playwright start once per job, not once per run. One per job, not
//! one for all: two Playwright servers
//! attached to one browser see each other's pages, and one dismisses a
//! dialog the other's page opened (measured: the confirm-dialog flows
//! failed two runs in three at two jobs on one browser, never on one each).

use std::sync::{Mutex, PoisonError};

use subterminator_core::browser::{Attach, Served, ServedChromium};
use subterminator_core::error::{Error, Result};

/// Browsers to lend, and the ones started here (ended when this is dropped).
pub struct Browsers {
    free: Mutex<Vec<Lent>>,
    _started: Vec<ServedChromium>,
}

/// What one run is lent: the browser, and the server to make its session
/// on (`None`: the run starts a server of its own).
#[derive(Debug, Clone)]
pub struct Lent {
    pub attach: Attach,
    pub served: Option<Served>,
}

impl Browsers {
    /// `jobs` headless Chromiums started for the bench, and a served
    /// Playwright MCP server attached to each.
    pub async fn start(jobs: usize, executable: std::path::PathBuf) -> Result<Browsers> {
        let mut started = Vec::with_capacity(jobs);
        let mut free = Vec::with_capacity(jobs);
        for _ in 0..jobs.max(1) {
            let job = ServedChromium::start(&executable)
                .await
                .map_err(|e| Error::Configuration(format!("the bench's browser: {e}")))?;
            free.push(Lent {
                attach: job.attach().clone(),
                served: Some(job.served().clone()),
            });
            started.push(job);
        }
        Ok(Browsers {
            free: Mutex::new(free),
            _started: started,
        })
    }

    /// A browser that already runs (`--cdp-endpoint`), lent to every run:
    /// the person chose it, and shares it as they chose.
    pub fn attached(attach: Attach, jobs: usize) -> Browsers {
        let lent = Lent {
            attach,
            served: None,
        };
        Browsers {
            free: Mutex::new(vec![lent; jobs.max(1)]),
            _started: Vec::new(),
        }
    }

    /// A browser for one run, given back when the lease is dropped. `None`
    /// inside when every one is out (more runs at once than jobs, which
    /// the caller's semaphore prevents): the run then starts its own.
    pub fn lease(&self) -> Lease<'_> {
        let lent = self
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        Lease { pool: self, lent }
    }
}

/// One run's browser.
pub struct Lease<'a> {
    pool: &'a Browsers,
    lent: Option<Lent>,
}

impl Lease<'_> {
    /// What the run attaches to.
    pub fn lent(&self) -> Option<&Lent> {
        self.lent.as_ref()
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(lent) = self.lent.take() {
            self.pool
                .free
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(lent);
        }
    }
}
