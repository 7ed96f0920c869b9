//! What the network guard is told of the service: its origins and site, the
//! plugin's commit patterns and harmless requests, the floor's reading.
//! Made at install and again when a person lets a run with no plugin onto
//! another site.

use super::ctx::Ctx;
use super::state::State;
use crate::browser::guard::GuardRules;

/// What the network guard stops: the plugin's commit patterns always,
/// and, while an unapproved action runs, posts and navigations to the
/// service's own sites.
pub(super) fn of(cx: &Ctx<'_>, state: &State) -> GuardRules {
    let m = &cx.service.metadata;
    GuardRules {
        origins: state.allowed_origins.clone(),
        sites: cx
            .service
            .generic
            .iter()
            .filter_map(|g| g.domain.clone())
            .collect(),
        commit_requests: m
            .commit_requests
            .iter()
            .map(|r| (r.method.clone(), r.url_pattern.clone()))
            .collect(),
        commit_urls: m.commit_url_patterns.clone(),
        commit_words: crate::safety::floor::url_commit_words(),
        reading: crate::safety::floor::request_words().pairs(),
        // Checked at load (`plugin::bounds`); the guard applies each only
        // while an action of its step runs, never on a page that commits.
        harmless: m
            .harmless
            .iter()
            .map(|h| crate::browser::guard::Harmless {
                step: h.step,
                method: h.method.clone(),
                host: h.host.clone(),
                path: h.path.clone(),
            })
            .collect(),
    }
}
