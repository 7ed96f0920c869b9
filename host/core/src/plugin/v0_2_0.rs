//! Host bindings for plugin API 0.2.0 (`wit/v0.2.0`, frozen once released).
//! Over 0.1.0 it carries the plan's irreversible marks, the commit URL and
//! request patterns, the element facts the host read from the DOM, and the
//! "already cancelled" verdict. What later versions share with it is in
//! [`super::glue`].

pub const API_VERSION: &str = "0.2.0";

/// The interface name a 0.2.0 component imports its record types from.
pub const TYPES_INTERFACE: &str = "subterminator:service/types@0.2.0";

mod bindings {
    wasmtime::component::bindgen!({
        path: "../../wit/v0.2.0",
        world: "service",
    });
}

super::glue::since_v0_2!();

impl Live {
    pub fn metadata(&mut self) -> wasmtime::Result<host::Metadata> {
        let m = self.bindings.call_metadata(&mut self.store)?;
        // 0.2.0 has no word for a service's own interruptions, harmless
        // requests or billing descriptors.
        Ok(metadata_since_v0_2(m))
    }
}
