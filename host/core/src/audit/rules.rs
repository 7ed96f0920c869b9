//! The rules a finding is named after, each with one plain sentence of
//! what it asks. They name the kind of obstacle; they are not a judgement
//! that a law was broken, which only a court or a regulator makes.

use serde::Serialize;

/// A rule on cancelling subscriptions that speaks to some kind of obstacle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// The US Restore Online Shoppers' Confidence Act, which the FTC
    /// enforces.
    Rosca,
    /// The FTC's 2025 settlement with Amazon over Prime's cancellation path.
    FtcAmazon2025,
    /// California's Automatic Renewal Law as amended by AB 2863, in force
    /// from 1 July 2025.
    CaliforniaArl,
    /// The UK Digital Markets, Competition and Consumers Act 2024, its
    /// subscription contracts regime.
    UkDmcc,
}

impl Rule {
    /// The rule's name, as a person would look it up.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Rosca => "FTC: Restore Online Shoppers' Confidence Act (ROSCA)",
            Rule::FtcAmazon2025 => "FTC v. Amazon (Prime), settled 2025",
            Rule::CaliforniaArl => "California Automatic Renewal Law, as amended from 1 July 2025",
            Rule::UkDmcc => "UK Digital Markets, Competition and Consumers Act 2024",
        }
    }

    /// What the rule asks, in one sentence.
    pub fn says(self) -> &'static str {
        match self {
            Rule::Rosca => "A recurring charge must come with a simple mechanism to stop it.",
            Rule::FtcAmazon2025 => {
                "The FTC's case was a cancellation path that led through offers and extra pages before the way out."
            }
            Rule::CaliforniaArl => {
                "A subscription bought online can be cancelled online, through a prominent link or button; a save offer may be shown only together with a way to cancel at once."
            }
            Rule::UkDmcc => {
                "Leaving a subscription must be straightforward, without steps that are not needed."
            }
        }
    }
}

/// Said wherever an audit is shown.
pub const NOT_ADVICE: &str = "These are facts the host observed on the pages, each named after a rule that speaks to it. They are not legal advice, nor a finding that any law was broken.";
