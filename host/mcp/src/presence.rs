//! Whether an HTTP client is still there. Over stdio the client is its
//! pipe: when it goes, stdin ends and every session with it. Over HTTP
//! nothing ends by itself: rmcp keeps an abandoned MCP session five minutes,
//! and four crashed clients held every browser that long. So each MCP
//! session's open HTTP exchanges are counted here (its calls in flight and
//! the event stream a client keeps open with GET); a client with none open
//! for the lease is gone, and its browsers are closed.
//!
//! The operating system closes a dead process's sockets and hyper sees the
//! end of the stream at once. A client that kept an event stream open and
//! closed it is given [`RECONNECT_GRACE`] to reopen it (rmcp asks it to
//! retry after 3 s); a client that never kept one (a 2026-07-28 client keeps
//! nothing open) shows itself only by calling, and may leave the lease
//! between two calls.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a client whose event stream closed has to open it again before
/// it counts as gone: rmcp asks it to retry after 3 s, a few retries fit.
pub const RECONNECT_GRACE: Duration = Duration::from_secs(10);

/// The open exchanges of every MCP session this server has seen.
#[derive(Debug)]
pub struct Presence {
    lease: Duration,
    sessions: Mutex<HashMap<String, Seen>>,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    open: usize,
    /// When its last exchange closed (or it was first seen).
    since: Instant,
    /// Whether its client ever kept an event stream open: then a closed
    /// stream says it went, and it gets only the grace to come back.
    streamed: bool,
}

/// One open exchange of an MCP session; dropping it closes it.
#[derive(Debug)]
pub struct Held {
    presence: Arc<Presence>,
    session: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Ok(mut sessions) = self.presence.sessions.lock()
            && let Some(seen) = sessions.get_mut(&self.session)
        {
            seen.open = seen.open.saturating_sub(1);
            seen.since = Instant::now();
        }
    }
}

impl Presence {
    pub fn new(lease: Duration) -> Arc<Self> {
        Arc::new(Self {
            lease,
            sessions: Mutex::new(HashMap::new()),
        })
    }

    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// An MCP session that has just begun (its `initialize` was answered):
    /// the lease starts now, so a client that never calls again is gone too.
    pub fn began(&self, session: &str) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.entry(session.to_owned()).or_insert(Seen {
                open: 0,
                since: Instant::now(),
                streamed: false,
            });
        }
    }

    /// Marks one exchange of `session` open until the returned value drops;
    /// `stream` when it is the event stream a client keeps open (GET).
    pub fn hold(self: &Arc<Self>, session: &str, stream: bool) -> Held {
        if let Ok(mut sessions) = self.sessions.lock() {
            let seen = sessions.entry(session.to_owned()).or_insert(Seen {
                open: 0,
                since: Instant::now(),
                streamed: false,
            });
            seen.open += 1;
            seen.streamed |= stream;
        }
        Held {
            presence: self.clone(),
            session: session.to_owned(),
        }
    }

    /// Whether `session`'s client is gone at `now`: nothing open for the
    /// grace (a client that kept a stream) or the lease (one that never
    /// did). A session this server does not know (forgotten once gone) is
    /// gone.
    pub fn absent(&self, session: &str, now: Instant) -> bool {
        self.sessions.lock().map_or(true, |sessions| {
            sessions
                .get(session)
                .is_none_or(|seen| gone(seen, now, self.lease))
        })
    }

    /// The sessions whose clients are gone at `now`, forgotten.
    pub fn take_absent(&self, now: Instant) -> Vec<String> {
        let Ok(mut sessions) = self.sessions.lock() else {
            return Vec::new();
        };
        let gone: Vec<String> = sessions
            .iter()
            .filter(|(_, seen)| gone(seen, now, self.lease))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &gone {
            sessions.remove(id);
        }
        gone
    }

    /// Forgets a session its client ended itself (HTTP DELETE).
    pub fn forget(&self, session: &str) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.remove(session);
        }
    }
}

fn gone(seen: &Seen, now: Instant, lease: Duration) -> bool {
    let allowed = if seen.streamed {
        RECONNECT_GRACE.min(lease)
    } else {
        lease
    };
    seen.open == 0 && now.saturating_duration_since(seen.since) >= allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_there_while_an_exchange_is_open_and_for_the_lease_after() {
        let lease = Duration::from_secs(20);
        let presence = Presence::new(lease);
        let t0 = Instant::now();
        let later = |s: u64| t0 + Duration::from_secs(s);
        assert!(presence.absent("a", t0), "unknown is gone");
        presence.began("a");
        assert!(!presence.absent("a", later(19)));
        assert!(presence.absent("a", later(21)));
        // A client that never keeps a stream: the lease after each call.
        drop(presence.hold("a", false));
        let called = Instant::now();
        assert!(!presence.absent("a", called + Duration::from_secs(19)));
        assert!(presence.absent("a", called + lease));
        // One that keeps a stream: there while it is open, the grace after.
        let stream = presence.hold("a", true);
        let call = presence.hold("a", false);
        assert!(!presence.absent("a", later(100)), "a stream is open");
        drop(call);
        assert!(!presence.absent("a", later(100)), "the stream still is");
        drop(stream);
        let closed = Instant::now();
        assert!(!presence.absent("a", closed + RECONNECT_GRACE - Duration::from_secs(1)));
        assert!(presence.absent("a", closed + RECONNECT_GRACE));
        assert_eq!(presence.take_absent(closed + lease), vec!["a".to_owned()]);
        assert!(presence.take_absent(closed + lease).is_empty());
        presence.began("b");
        presence.forget("b");
        assert!(presence.absent("b", t0));
    }
}
