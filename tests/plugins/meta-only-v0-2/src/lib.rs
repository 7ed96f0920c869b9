//! The least a plugin can write with the SDK: `new` and `metadata`, every
//! other export left to the SDK's defaults. It compiles and links, but its
//! plan marks no irreversible step, which API 0.2.0 requires: the host must
//! refuse it at load rather than run it with nothing to ask before.

use subterminator_sdk::prelude::*;

pub struct MetaOnly;

impl Service for MetaOnly {
    fn new() -> Self {
        MetaOnly
    }

    fn metadata(&self) -> Metadata {
        Metadata {
            id: "meta-only-v0-2".into(),
            display_name: "Metadata only (API 0.2.0)".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            initial_url: "http://127.0.0.1/".into(),
            goal: "Cancel the membership.".into(),
            allowed_origins: vec!["http://127.0.0.1".into()],
            ..Metadata::default()
        }
    }
}

register_service!(MetaOnly);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_marks_no_irreversible_step() {
        let plugin = MetaOnly::new();
        assert!(plugin.plan().iter().all(|s| !s.irreversible));
        assert_eq!(plugin.metadata().id, "meta-only-v0-2");
    }
}
