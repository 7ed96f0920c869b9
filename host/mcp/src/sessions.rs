//! The server's sessions: one browser per MCP
//! connection (or 2026-07-28 session id) and `session_id`, started by the
//! first call that needs it, capped in number, closed when idle or when
//! their client is gone, and all shut down on exit. Profiles are throwaway,
//! except a service's signed-in one, which one session at a time may hold.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::ServeOptions;
use super::presence::Presence;
use super::slot::{Launch, Slot, SlotKey};
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::Registry;
use subterminator_core::session::{Finished, SessionSpec};

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "{open} browser sessions are open, the most this server allows (--max-sessions {open})"
    )]
    TooMany { open: usize },

    #[error("{service}'s signed-in browser profile is in use by session \"{holder}\"")]
    ProfileBusy { holder: String, service: String },

    #[error("session \"{session}\" is already running a cancellation of {service}")]
    Busy { session: String, service: String },

    #[error(transparent)]
    Start(#[from] Error),
}

impl OpenError {
    /// What the client should do about it.
    pub fn remediation(&self) -> String {
        match self {
            OpenError::TooMany { .. } => "Close one with browser_close, or wait: sessions idle for the server's idle timeout, or whose client is gone, are closed.".into(),
            OpenError::ProfileBusy { holder, .. } => format!(
                "Close session \"{holder}\" with browser_close first, or pass isolated: true for a throwaway profile (signed out)."
            ),
            OpenError::Busy { .. } => {
                "Wait for it to end, close it with browser_close, or pass another session_id.".into()
            }
            OpenError::Start(e) => super::reply::Reply::from_error(e)
                .remediation
                .unwrap_or_default(),
        }
    }
}

/// Every session of the server, shared by all its connections.
#[derive(Clone)]
pub struct Sessions {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions").finish_non_exhaustive()
    }
}

struct Inner {
    dirs: Dirs,
    config: Config,
    /// What every run starts from: the model, the browser, headless or not.
    base: SessionSpec,
    options: ServeOptions,
    registry: tokio::sync::OnceCell<Arc<Registry>>,
    slots: Mutex<BTreeMap<SlotKey, Arc<Slot>>>,
    /// Opening is one at a time, so the cap and the profile are checked
    /// against sessions that exist.
    opening: tokio::sync::Mutex<()>,
    connections: AtomicU64,
    /// Numbers the client's calls for the run record.
    calls: AtomicU64,
    presence: Arc<Presence>,
}

impl Sessions {
    pub fn new(dirs: Dirs, config: Config, base: SessionSpec, options: ServeOptions) -> Self {
        Self {
            inner: Arc::new(Inner {
                dirs,
                config,
                base,
                registry: tokio::sync::OnceCell::new(),
                slots: Mutex::new(BTreeMap::new()),
                opening: tokio::sync::Mutex::new(()),
                connections: AtomicU64::new(0),
                calls: AtomicU64::new(0),
                presence: Presence::new(options.lease),
                options,
            }),
        }
    }

    pub fn options(&self) -> &ServeOptions {
        &self.inner.options
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The spec every run starts from.
    pub fn base(&self) -> &SessionSpec {
        &self.inner.base
    }

    /// Which HTTP clients are still there.
    pub fn presence(&self) -> &Arc<Presence> {
        &self.inner.presence
    }

    /// A number for a new connection: its sessions are its own. Never
    /// [`STATELESS`](super::slot::STATELESS).
    pub fn connection(&self) -> u64 {
        self.inner.connections.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// A number for a client's call, unique in this server.
    pub fn next_call(&self) -> u64 {
        self.inner.calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The plugins, loaded by the first call that needs them.
    pub async fn registry(&self) -> Result<Arc<Registry>> {
        self.inner
            .registry
            .get_or_try_init(|| async {
                subterminator_core::plugin::load_registry(&self.inner.dirs)
                    .await
                    .map(Arc::new)
            })
            .await
            .cloned()
    }

    /// The session at `key`, if one was opened and not yet removed.
    pub fn get(&self, key: &SlotKey) -> Option<Arc<Slot>> {
        self.inner
            .slots
            .lock()
            .ok()
            .and_then(|slots| slots.get(key).cloned())
    }

    /// Opens a session for `launch`'s run, unless the cap, the signed-in
    /// profile or a run already at its key forbids it. A finished run at
    /// the key makes way.
    pub async fn open(&self, launch: Launch) -> std::result::Result<Arc<Slot>, OpenError> {
        let _opening = self.inner.opening.lock().await;
        let key = launch.key.clone();
        let persistent = !launch.spec.isolated && launch.spec.attach.is_none();
        let service = launch.service.metadata.id.clone();
        {
            let mut slots = self
                .inner
                .slots
                .lock()
                .map_err(|_| Error::Configuration(POISONED.into()))?;
            slots.retain(|_, slot| !slot.is_done());
            if let Some(there) = slots.get(&key) {
                return Err(OpenError::Busy {
                    session: key.session.clone(),
                    service: there.service_id.clone(),
                });
            }
            if slots.len() >= self.inner.options.max_sessions {
                return Err(OpenError::TooMany { open: slots.len() });
            }
            // Each service has a signed-in profile of its own.
            if persistent
                && let Some(holder) = slots
                    .values()
                    .find(|s| s.persistent && s.service_id == service)
            {
                return Err(OpenError::ProfileBusy {
                    holder: holder.key.session.clone(),
                    service,
                });
            }
        }
        let slot = Slot::start(&self.inner.dirs, &self.inner.config, launch).await?;
        if let Ok(mut slots) = self.inner.slots.lock() {
            slots.insert(key, slot.clone());
        }
        Ok(slot)
    }

    /// Forgets `slot` (its run over), if it is still the one at its key.
    pub fn remove(&self, slot: &Arc<Slot>) {
        if let Ok(mut slots) = self.inner.slots.lock()
            && slots.get(&slot.key).is_some_and(|s| Arc::ptr_eq(s, slot))
        {
            slots.remove(&slot.key);
        }
    }

    /// Closes the session at `key`: its run ends, its browser shuts down.
    pub async fn close(&self, key: &SlotKey, now: bool) -> Option<Finished> {
        let slot = self.get(key)?;
        let finished = slot.close(now).await;
        self.remove(&slot);
        Some(finished)
    }

    /// Closes every session matching `which`, all at once.
    async fn close_where(&self, which: impl Fn(&Slot) -> bool, now: bool) -> usize {
        let closing: Vec<Arc<Slot>> = self
            .inner
            .slots
            .lock()
            .map(|slots| slots.values().filter(|s| which(s)).cloned().collect())
            .unwrap_or_default();
        let count = closing.len();
        let mut ends = tokio::task::JoinSet::new();
        for slot in closing {
            let sessions = self.clone();
            ends.spawn(async move {
                slot.close(now).await;
                sessions.remove(&slot);
            });
        }
        while ends.join_next().await.is_some() {}
        count
    }

    /// Closes one connection's sessions (its client went away).
    pub async fn close_connection(&self, connection: u64) -> usize {
        self.close_where(|s| s.key.connection == connection, true)
            .await
    }

    /// Closes every session: the server is exiting.
    pub async fn shutdown(&self) -> usize {
        self.close_where(|_| true, true).await
    }

    /// Closes the sessions whose client is gone (cut short: nobody is left
    /// to answer), then those idle past the timeout, and forgets finished
    /// ones.
    pub async fn reap(&self) -> usize {
        let now = Instant::now();
        let presence = self.inner.presence.clone();
        let gone = self
            .close_where(|s| !s.is_done() && s.client_gone(&presence, now), true)
            .await;
        if gone > 0 {
            tracing::info!(closed = gone, "client gone: its sessions closed");
        }
        let limit = self.inner.options.idle_timeout;
        gone + self
            .close_where(|s| s.is_done() || s.idle_for(limit), false)
            .await
    }

    /// Reaps idle sessions, and those of clients gone, until the server ends.
    pub fn spawn_reaper(&self) -> tokio::task::JoinHandle<()> {
        let sessions = self.clone();
        let every = self.reap_every();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let closed = sessions.reap().await;
                if closed > 0 {
                    tracing::info!(closed, "idle or finished sessions closed");
                }
            }
        })
    }

    /// How often the reaper looks.
    pub fn reap_every(&self) -> std::time::Duration {
        super::reap_interval(self.inner.options.idle_timeout, self.inner.options.lease)
    }

    /// How many sessions are open now.
    pub fn open_count(&self) -> usize {
        self.inner
            .slots
            .lock()
            .map(|slots| slots.values().filter(|s| !s.is_done()).count())
            .unwrap_or(0)
    }
}

const POISONED: &str = "the session table was poisoned by a crash; restart `subterminator mcp`";
