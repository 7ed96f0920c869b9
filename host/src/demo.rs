//! `subterminator demo`: the whole product on a bundled practice site, with
//! no account at a streaming service and, when no key is set, no model.

pub mod site;

pub use site::{FINISH_REQUEST, PracticeSite, SiteOptions};
