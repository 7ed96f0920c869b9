//! `subterminator demo`: the whole product on a bundled practice site, with
//! no account at a streaming service and, when no key is set, no model. The
//! default is StreamFlix (`site`); each bundled service also has a practice
//! flow in its own shape and wording (`flow`, served by `flow_site`).

pub mod flow;
pub mod flow_site;
pub mod site;

pub use flow::{Flow, catalogue};
pub use flow_site::FlowSite;
pub use site::{FINISH_REQUEST, PracticeSite, SiteOptions};

/// The practice flow `demo` runs when no service is named: StreamFlix.
pub const DEFAULT_FLOW: &str = "practice";
