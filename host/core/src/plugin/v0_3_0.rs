//! Host bindings for plugin API 0.3.0 (`wit/v0.3.0`, frozen once released).
//! Over 0.2.0 its metadata names the service's own interruptions; the rest
//! is 0.2.0's, in [`super::glue`].

pub const API_VERSION: &str = "0.3.0";

/// The interface name a 0.3.0 component imports its record types from.
pub const TYPES_INTERFACE: &str = "subterminator:service/types@0.3.0";

mod bindings {
    wasmtime::component::bindgen!({
        path: "../../wit/v0.3.0",
        world: "service",
    });
}

super::glue::since_v0_2!();

impl Live {
    pub fn metadata(&mut self) -> wasmtime::Result<host::Metadata> {
        let mut m = self.bindings.call_metadata(&mut self.store)?;
        let overlays = std::mem::take(&mut m.interruptions)
            .into_iter()
            .map(target_hint)
            .collect();
        // 0.3.0 has no word for harmless requests or billing descriptors.
        Ok(host::Metadata {
            overlays,
            ..metadata_since_v0_2(m)
        })
    }
}
