//! CancelBench: cancellation flows built from the tricks regulators name
//! (ICPEN's 2024 sweep, the FTC's 2025 Amazon settlement, California's
//! Automatic Renewal Law, the UK DMCC Act), generated from compact data
//! (a family per service skeleton × tricks × shapes × a language pack),
//! each served on loopback from two origins with a request log, and scored
//! from that log and the flow's ground truth — never from the agent's own
//! report.
//!
//! - [`Catalog`]: every flow, with its truth ([`Flow`], [`Truth`]).
//! - [`BenchSite`]: one flow served, its log ([`LoggedRequest`]).
//! - [`person`]: the bench's answers to an agent's questions, per pass.
//! - [`score`]: a run's [`Verdict`] from the log and [`RunFacts`].
//! - [`serve::serve`]: the JSON interfaces any agent is run against, and
//!   the scorer's beside them.
//! - [`report`]: the scorecard, as text rows and as one HTML page.
//!
//! The library prints nothing.

#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

mod blueprint;
pub mod catalog;
pub mod error;
mod family;
pub mod flow;
mod generate;
pub mod lang;
pub mod log;
pub mod person;
#[cfg(test)]
mod readme;
mod render;
pub mod report;
pub mod request;
pub mod schema;
pub mod score;
pub mod serve;
pub mod site;
#[cfg(test)]
mod testing;

pub use catalog::Catalog;
pub use error::{Error, Result};
pub use flow::{
    BillingChange, Ending, Flow, FlowSummary, Origin, RequestPattern, Shape, Split, Statutory,
    Step, StepAction, Trap, Trick, Truth, Unwanted,
};
pub use log::{LoggedRequest, RequestKind};
pub use person::Question;
pub use report::{AgentCounts, FlowMeta, RunRecord, Scorecard, StepCounts, Totals, scorecard};
pub use score::{Answer, Claim, PassKind, RunFacts, Verdict, score};
pub use site::{BenchSite, Origins};
