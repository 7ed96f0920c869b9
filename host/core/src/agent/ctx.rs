//! What every stage of a run works with and nothing changes during it: the
//! service and its plugin, the browser, the toolset, where events go, the
//! run's options, and the clocks. The loop owns the run's state (`state.rs`)
//! and lends both to each stage.

use super::options::RunOptions;
use super::reporter::Reporter;
use super::state::Clocks;
use super::toolset::Toolset;
use crate::browser::Browser;
use crate::plugin::{ApiVersion, ServiceEntry};
use crate::safety::PlanKnowledge;

/// A run's fixed parts.
pub(super) struct Ctx<'a> {
    pub(super) service: &'a ServiceEntry,
    pub(super) browser: &'a Browser,
    pub(super) toolset: Box<dyn Toolset>,
    pub(super) reporter: &'a mut Reporter,
    pub(super) options: RunOptions,
    pub(super) clocks: Clocks,
}

impl Ctx<'_> {
    /// What the plugin's plan may tell the host: nothing, for API 0.1.0.
    pub(super) fn plan_knowledge(&self) -> PlanKnowledge<'_> {
        if self.service.api_version == ApiVersion::V0_1_0.as_str() {
            PlanKnowledge::None
        } else {
            PlanKnowledge::Marked(&self.service.plan)
        }
    }

    /// The service's name, as people know it.
    pub(super) fn display_name(&self) -> &str {
        &self.service.metadata.display_name
    }
}
