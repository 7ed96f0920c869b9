//! Host bindings for plugin API 0.4.0 (`wit/v0.4.0`, frozen once released).
//! Over 0.3.0 its metadata names the harmless requests the plan expects and
//! the service's billing descriptors; the rest is 0.2.0's, in
//! [`super::glue`].

pub const API_VERSION: &str = "0.4.0";

/// The interface name a 0.4.0 component imports its record types from.
pub const TYPES_INTERFACE: &str = "subterminator:service/types@0.4.0";

mod bindings {
    wasmtime::component::bindgen!({
        path: "../../wit/v0.4.0",
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
        let harmless = std::mem::take(&mut m.harmless_requests)
            .into_iter()
            .map(|h| host::HarmlessRequest {
                step: h.step,
                // Upper case, as the contract says: the guard compares
                // methods exactly, and the bounds refuse a safe one.
                method: h.method.trim().to_ascii_uppercase(),
                host: h.host,
                path: h.path,
            })
            .collect();
        let billing_descriptors = std::mem::take(&mut m.billing_descriptors);
        Ok(host::Metadata {
            overlays,
            harmless,
            billing_descriptors,
            ..metadata_since_v0_2(m)
        })
    }
}
