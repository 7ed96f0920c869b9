//! What every practice site shares, CancelBench's too: a router served on
//! 127.0.0.1 on a port the system picks, stopped when it is dropped, and a
//! log of every request it was sent (the proof the tests read, never the
//! agent's report). The bench keeps a richer log of its own (bodies, times,
//! what each request did), written by its handlers.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use tokio::sync::oneshot;

use crate::error::{Error, Result};

/// Every request a site was sent, in order, as `METHOD /path?query`.
#[derive(Debug, Clone, Default)]
pub struct RequestLog(Arc<Mutex<Vec<String>>>);

impl RequestLog {
    pub fn push(&self, line: String) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push(line);
        }
    }

    pub fn lines(&self) -> Vec<String> {
        self.0.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// `router` with each request logged before the router sees it, so a
    /// request the site refuses is in the log too.
    pub fn around(&self, router: Router) -> Router {
        let log = self.clone();
        router.layer(middleware::from_fn(move |request: Request, next: Next| {
            let log = log.clone();
            async move {
                log.push(format!("{} {}", request.method(), request.uri()));
                let response: Response = next.run(request).await;
                response
            }
        }))
    }
}

/// A port on 127.0.0.1, taken before its router is made: a site whose
/// pages name its own origin (or another site's) knows it first.
#[derive(Debug)]
pub struct Port {
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
    context: &'static str,
}

impl Port {
    /// A port the system picks. `context` says what could not be done if
    /// there is none ("cannot serve the bench flow").
    pub async fn take(context: &'static str) -> Result<Port> {
        const ADDRESS: &str = "127.0.0.1:0";
        let failed = |e| Error::serve(context, ADDRESS, e);
        let listener = tokio::net::TcpListener::bind(ADDRESS)
            .await
            .map_err(failed)?;
        let addr = listener.local_addr().map_err(failed)?;
        Ok(Port {
            listener,
            addr,
            context,
        })
    }

    /// `127.0.0.1:<port>`
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `router` on this port until the [`Served`] is dropped.
    pub fn serve(self, router: Router) -> Served {
        let Port {
            listener,
            addr,
            context,
        } = self;
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
            if let Err(e) = served {
                tracing::warn!("a site stopped serving ({context}): {e}");
            }
        });
        Served {
            addr,
            stop: Some(stop),
        }
    }
}

/// A router being served; stops when dropped or on [`Served::stop`].
#[derive(Debug)]
pub struct Served {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
}

impl Served {
    /// Serves `router` on 127.0.0.1. `context` says what could not be done
    /// if it cannot ("cannot serve the practice flow").
    pub async fn start(router: Router, context: &'static str) -> Result<Self> {
        Ok(Port::take(context).await?.serve(router))
    }

    /// `127.0.0.1:<port>`
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop();
    }
}
