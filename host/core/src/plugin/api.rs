//! One variant per frozen plugin API version, and one dispatch per export.
//! Each version's bindings module converts into the host's own types
//! (`types.rs`), so nothing past this file knows which version a plugin
//! speaks. A new API version is a new bindings module, a variant in each enum
//! below, and a line in [`SUPPORTED`].

use wasmtime::Store;
use wasmtime::component::Component;

use super::engine::PluginEngine;
use super::store::StoreState;
use super::types::{AuthEvent, Metadata, PlanStep, ToolCallView, Verdict};
use super::{PluginError, v0_1_0, v0_2_0, v0_3_0, v0_4_0};
use crate::page;

/// The API versions a component may speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiVersion {
    V0_1_0,
    V0_2_0,
    V0_3_0,
    V0_4_0,
}

/// Every version this host runs, newest first, with the interface a
/// component of that version imports its types from.
const SUPPORTED: &[(ApiVersion, &str)] = &[
    (ApiVersion::V0_4_0, v0_4_0::TYPES_INTERFACE),
    (ApiVersion::V0_3_0, v0_3_0::TYPES_INTERFACE),
    (ApiVersion::V0_2_0, v0_2_0::TYPES_INTERFACE),
    (ApiVersion::V0_1_0, v0_1_0::TYPES_INTERFACE),
];

/// The version numbers this host runs, newest first, for messages.
pub const SUPPORTED_VERSIONS: &[&str] = &[
    v0_4_0::API_VERSION,
    v0_3_0::API_VERSION,
    v0_2_0::API_VERSION,
    v0_1_0::API_VERSION,
];

impl ApiVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            ApiVersion::V0_1_0 => v0_1_0::API_VERSION,
            ApiVersion::V0_2_0 => v0_2_0::API_VERSION,
            ApiVersion::V0_3_0 => v0_3_0::API_VERSION,
            ApiVersion::V0_4_0 => v0_4_0::API_VERSION,
        }
    }

    /// The version a component was built against, from the versioned name of
    /// the types interface it imports.
    pub fn of(
        component: &Component,
        engine: &PluginEngine,
        source_name: &str,
    ) -> Result<Self, PluginError> {
        let ty = component.component_type();
        let mut found = None;
        for (name, _) in ty.imports(engine.engine()) {
            if let Some((api, _)) = SUPPORTED.iter().find(|(_, iface)| *iface == name) {
                return Ok(*api);
            }
            if let Some(version) = name.strip_prefix("subterminator:service/types@") {
                found = Some(version.to_owned());
            }
        }
        Err(match found {
            Some(found) => PluginError::UnsupportedApi {
                source_name: source_name.to_owned(),
                found,
            },
            None => PluginError::Invalid {
                source_name: source_name.to_owned(),
                cause: "it does not import the subterminator:service contract; build it with subterminator-sdk".into(),
            },
        })
    }
}

/// A component linked against its version's imports, once per load.
pub enum Linked {
    V0_1_0(v0_1_0::Pre),
    V0_2_0(v0_2_0::Pre),
    V0_3_0(v0_3_0::Pre),
    V0_4_0(v0_4_0::Pre),
}

impl Linked {
    pub fn new(
        api: ApiVersion,
        engine: &PluginEngine,
        component: &Component,
    ) -> wasmtime::Result<Self> {
        let linkers = engine.linkers();
        Ok(match api {
            ApiVersion::V0_1_0 => Linked::V0_1_0(v0_1_0::pre(&linkers.v0_1_0, component)?),
            ApiVersion::V0_2_0 => Linked::V0_2_0(v0_2_0::pre(&linkers.v0_2_0, component)?),
            ApiVersion::V0_3_0 => Linked::V0_3_0(v0_3_0::pre(&linkers.v0_3_0, component)?),
            ApiVersion::V0_4_0 => Linked::V0_4_0(v0_4_0::pre(&linkers.v0_4_0, component)?),
        })
    }

    pub fn instantiate(&self, store: Store<StoreState>) -> wasmtime::Result<LiveInstance> {
        Ok(match self {
            Linked::V0_1_0(pre) => LiveInstance::V0_1_0(v0_1_0::Live::instantiate(store, pre)?),
            Linked::V0_2_0(pre) => LiveInstance::V0_2_0(v0_2_0::Live::instantiate(store, pre)?),
            Linked::V0_3_0(pre) => LiveInstance::V0_3_0(v0_3_0::Live::instantiate(store, pre)?),
            Linked::V0_4_0(pre) => LiveInstance::V0_4_0(v0_4_0::Live::instantiate(store, pre)?),
        })
    }
}

/// A live instance of whichever version the plugin speaks.
pub enum LiveInstance {
    V0_1_0(v0_1_0::Live),
    V0_2_0(v0_2_0::Live),
    V0_3_0(v0_3_0::Live),
    V0_4_0(v0_4_0::Live),
}

impl LiveInstance {
    pub fn store(&self) -> &Store<StoreState> {
        match self {
            LiveInstance::V0_1_0(live) => &live.store,
            LiveInstance::V0_2_0(live) => &live.store,
            LiveInstance::V0_3_0(live) => &live.store,
            LiveInstance::V0_4_0(live) => &live.store,
        }
    }

    pub fn store_mut(&mut self) -> &mut Store<StoreState> {
        match self {
            LiveInstance::V0_1_0(live) => &mut live.store,
            LiveInstance::V0_2_0(live) => &mut live.store,
            LiveInstance::V0_3_0(live) => &mut live.store,
            LiveInstance::V0_4_0(live) => &mut live.store,
        }
    }

    pub fn metadata(&mut self) -> wasmtime::Result<Metadata> {
        match self {
            LiveInstance::V0_1_0(live) => live.metadata(),
            LiveInstance::V0_2_0(live) => live.metadata(),
            LiveInstance::V0_3_0(live) => live.metadata(),
            LiveInstance::V0_4_0(live) => live.metadata(),
        }
    }

    pub fn plan(&mut self) -> wasmtime::Result<Vec<PlanStep>> {
        match self {
            LiveInstance::V0_1_0(live) => live.plan(),
            LiveInstance::V0_2_0(live) => live.plan(),
            LiveInstance::V0_3_0(live) => live.plan(),
            LiveInstance::V0_4_0(live) => live.plan(),
        }
    }

    pub fn checkpoint(
        &mut self,
        call: &ToolCallView,
        snapshot: &page::Snapshot,
    ) -> wasmtime::Result<Option<String>> {
        match self {
            LiveInstance::V0_1_0(live) => live.checkpoint(call, snapshot),
            LiveInstance::V0_2_0(live) => live.checkpoint(call, snapshot),
            LiveInstance::V0_3_0(live) => live.checkpoint(call, snapshot),
            LiveInstance::V0_4_0(live) => live.checkpoint(call, snapshot),
        }
    }

    pub fn verify(&mut self, snapshot: &page::Snapshot) -> wasmtime::Result<Verdict> {
        match self {
            LiveInstance::V0_1_0(live) => live.verify(snapshot),
            LiveInstance::V0_2_0(live) => live.verify(snapshot),
            LiveInstance::V0_3_0(live) => live.verify(snapshot),
            LiveInstance::V0_4_0(live) => live.verify(snapshot),
        }
    }

    pub fn detect_auth(
        &mut self,
        snapshot: &page::Snapshot,
    ) -> wasmtime::Result<Option<AuthEvent>> {
        match self {
            LiveInstance::V0_1_0(live) => live.detect_auth(snapshot),
            LiveInstance::V0_2_0(live) => live.detect_auth(snapshot),
            LiveInstance::V0_3_0(live) => live.detect_auth(snapshot),
            LiveInstance::V0_4_0(live) => live.detect_auth(snapshot),
        }
    }
}
