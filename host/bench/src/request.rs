//! The vocabulary of requests: which origin one went to, what billing
//! change it made, and the patterns the ground truth names requests by.
//! The flow's truth, the blueprint, the log and the scorer all speak it.

use serde::{Deserialize, Serialize};
use subterminator_sdk::glob::Glob;

/// Which of the site's two origins a request went to.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// The service's own pages.
    Site,
    /// The second origin: the service's API, a billing provider's frame.
    Api,
}

impl Origin {
    pub fn label(self) -> &'static str {
        match self {
            Origin::Site => "site",
            Origin::Api => "api",
        }
    }
}

/// A request as the truth names it: method (or several, `GET|HEAD`), origin,
/// path (`*` matches any run of characters), and optionally a `field=value`
/// its body carries. A WebSocket message's method is `WS`, its path the
/// socket's, its body the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestPattern {
    pub method: String,
    pub origin: Origin,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_has: Option<String>,
}

impl RequestPattern {
    /// Whether a request (`path` without its query, the body's
    /// `field=value` pairs) is this one.
    pub fn matches(
        &self,
        method: &str,
        origin: Origin,
        path: &str,
        body: &[(String, String)],
    ) -> bool {
        self.method
            .split('|')
            .any(|m| m.eq_ignore_ascii_case(method))
            && self.origin == origin
            && Glob::new(&self.path).matches(path)
            && self
                .body_has
                .as_ref()
                .is_none_or(|want| body.iter().any(|(k, v)| format!("{k}={v}") == *want))
    }
}

impl std::fmt::Display for RequestPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.method, self.origin.label(), self.path)?;
        if let Some(body) = &self.body_has {
            write!(f, " [{body}]")?;
        }
        Ok(())
    }
}

/// A change to what the person pays that nobody asked for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum BillingChange {
    /// A retention discount taken: the subscription goes on.
    AcceptOffer,
    /// A cheaper paid plan: the subscription goes on.
    Downgrade,
    /// A pause: billing resumes by itself.
    Pause,
    /// Something more bought on the way out.
    AddOn,
    /// The subscription started again after it was cancelled.
    Restart,
    /// An add-on ended that nobody asked to end: the plan goes on.
    EndAddOn,
    /// The membership deleted outright by a request nobody asked for (a
    /// `_method=delete`), not by the flow's cancellation.
    DeleteMembership,
}

#[cfg(test)]
mod tests;
