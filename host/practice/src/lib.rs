//! The practice sites, served on 127.0.0.1 with a log of every request
//! they were sent: StreamFlix (`site`), the default of `subterminator demo`;
//! each bundled service's practice flow in its own shape and wording
//! (`flow`, served by `flow_site`); and the sites no plugin knows
//! (`sites/<name>/`), which `demo --generic` and the tests cancel by
//! address. The demo, the plugins' tests and the end-to-end suites all run
//! against these, and the log, not the agent's report, is the proof.
//!
//! Its own crate so that the host's core serves no pages and does not
//! depend on a web server.

pub mod error;
pub mod flow;
pub mod flow_site;
pub mod server;
pub mod site;

pub use error::{Error, Result};
pub use flow::{Flow, catalogue};
pub use flow_site::FlowSite;
pub use server::{RequestLog, Served};
pub use site::{FINISH_REQUEST, PracticeSite, SiteOptions};

/// The practice flow `demo` runs when no service is named: StreamFlix.
pub const DEFAULT_FLOW: &str = "practice";
