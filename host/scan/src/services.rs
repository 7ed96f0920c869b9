//! Which service a recurring charge is, and where to cancel it: one of the
//! services subterminator has a plugin for, or a company that bills on
//! another's behalf (Apple, Google Play, Amazon channels, a phone carrier),
//! where the cancelling has to happen instead.
//!
//! Patterns are case-insensitive globs where `*` stands for any run of
//! characters (the `*` in a descriptor included), matched against the whole
//! descriptor, both as normalised and as the bank printed it. When several
//! match, the one with the most literal characters wins, because it is the
//! most specific: `GOOGLE *YOUTUBEPREMIUM*` (YouTube Premium, cancelled by
//! its own plugin) beats `GOOGLE *` (anything else in Google Play). On a tie
//! the billing company wins: its account is the only place the charge can
//! be stopped.

use serde::Serialize;
use subterminator_sdk::glob::Glob;

/// A service's billing descriptors: how its charges look on a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceDescriptors {
    /// The plugin's service id (`netflix`).
    pub id: String,
    /// Its name for people (`Netflix`).
    pub name: String,
    /// Glob patterns (see the module docs).
    pub patterns: Vec<String>,
}

/// What to do about a subscription.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// A plugin can cancel it: `subterminator cancel <service>`.
    Cancel {
        /// The service id.
        service: String,
    },
    /// Another company bills it; cancelling happens in that company's
    /// account, whatever the service is.
    BilledThrough {
        /// Who bills it (`Apple`).
        company: String,
        /// Where to cancel.
        how: String,
    },
    /// No plugin knows this merchant: cancel with the merchant yourself.
    NoPlugin,
}

/// A company that bills for others.
struct BillingRoute {
    company: &'static str,
    how: &'static str,
    patterns: &'static [&'static str],
}

/// The billing companies, with where each one's subscriptions are cancelled.
///
/// Amazon's route covers Prime Video channels and Amazon's digital charges,
/// never `AMAZON PRIME*`/`AMZN PRIME*` themselves: Prime is a service with a
/// plugin of its own. `AMAZON PRIME VIDEO CHANNELS*` is listed so that a
/// channel billed under the Prime name is still routed to Amazon (it has
/// more literal characters than `AMAZON PRIME*`).
const BILLING_ROUTES: &[BillingRoute] = &[
    BillingRoute {
        company: "Apple",
        how: "cancel in your Apple account (Settings → your name → Subscriptions)",
        patterns: &[
            "APPLE.COM/BILL*",
            "APPLE.COM/US*",
            "APL*ITUNES*",
            "ITUNES.COM*",
        ],
    },
    BillingRoute {
        company: "Google Play",
        how: "cancel in Google Play (Play Store → your profile → Payments & subscriptions → Subscriptions)",
        patterns: &["GOOGLE *"],
    },
    BillingRoute {
        company: "Amazon",
        how: "cancel in your Amazon account (Your Memberships & Subscriptions, or Prime Video → Channels)",
        patterns: &[
            "AMAZON CHANNELS*",
            "AMZN CHANNELS*",
            "PRIME VIDEO CHANNELS*",
            "AMAZON PRIME VIDEO CHANNELS*",
            "AMZN DIGITAL*",
            "AMAZON DIGITAL*",
        ],
    },
    BillingRoute {
        company: "Roku",
        how: "cancel in your Roku account (my.roku.com → Manage your subscriptions)",
        patterns: &["ROKU *", "ROKU FOR *"],
    },
    BillingRoute {
        company: "Verizon",
        how: "remove it from your phone plan in your Verizon account (My Verizon → Add-ons & perks)",
        patterns: &["VERIZON*", "VZWRLSS*", "VZ WIRELESS*"],
    },
    BillingRoute {
        company: "T-Mobile",
        how: "remove it from your phone plan in your T-Mobile account (Account → Add-ons or Benefits), or call 611",
        patterns: &["T-MOBILE*", "TMOBILE*", "T MOBILE*"],
    },
    BillingRoute {
        company: "AT&T",
        how: "remove it from your phone plan in your AT&T account (myAT&T → Plans & usage → Add-ons)",
        patterns: &["AT&T*", "ATT*BILL*", "ATT *"],
    },
];

/// Charges that look like a billing company's and are not: Google bills its
/// own cloud, Workspace, Ads and Domains under `GOOGLE *`, and none of it is
/// cancelled in Google Play. Being more specific than `GOOGLE *`, these win
/// and leave the charge with no route (cancel with the merchant).
const NOT_ROUTED: &[&str] = &[
    "GOOGLE *CLOUD*",
    "GOOGLE*CLOUD*",
    "GOOGLE CLOUD*",
    "GOOGLE *GSUITE*",
    "GOOGLE*GSUITE*",
    "GOOGLE *WORKSPACE*",
    "GOOGLE*WORKSPACE*",
    "GOOGLE *ADS*",
    "GOOGLE*ADS*",
    "GOOGLE *DOMAINS*",
    "GOOGLE*DOMAINS*",
];

/// Billing descriptors of the ten bundled services, until their plugins
/// supply them in their metadata.
pub fn known_descriptors() -> Vec<ServiceDescriptors> {
    let table: &[(&str, &str, &[&str])] = &[
        ("netflix", "Netflix", &["NETFLIX*", "*NETFLIX.COM*"]),
        ("spotify", "Spotify", &["SPOTIFY*"]),
        ("hulu", "Hulu", &["HULU*", "HLU*HULU*"]),
        (
            "disney-plus",
            "Disney+",
            &["DISNEY PLUS*", "DISNEYPLUS*", "DISNEY+*"],
        ),
        ("max", "Max", &["MAX.COM*", "HBO MAX*", "HBOMAX*"]),
        (
            "youtube-premium",
            "YouTube Premium",
            &[
                "GOOGLE *YOUTUBEPREMIUM*",
                "GOOGLE *YOUTUBE PREMIUM*",
                "YOUTUBEPREMIUM*",
                "YOUTUBE PREMIUM*",
            ],
        ),
        (
            "amazon-prime",
            "Amazon Prime",
            &["AMAZON PRIME*", "AMZN PRIME*", "AMAZONPRIME*"],
        ),
        (
            "paramount-plus",
            "Paramount+",
            &["PARAMOUNT+*", "PARAMOUNT PLUS*", "PARAMOUNTPLUS*"],
        ),
        ("peacock", "Peacock", &["PEACOCK*"]),
        (
            "nytimes",
            "The New York Times",
            &["NYTIMES*", "NYT *", "NEW YORK TIMES*", "WWW.NYTIMES.COM*"],
        ),
    ];
    table
        .iter()
        .map(|(id, name, patterns)| ServiceDescriptors {
            id: (*id).to_owned(),
            name: (*name).to_owned(),
            patterns: patterns.iter().map(|p| (*p).to_owned()).collect(),
        })
        .collect()
}

/// What a descriptor matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Matched {
    Service {
        id: String,
        name: String,
    },
    Route {
        company: String,
        how: String,
    },
    /// A charge the merchant bills itself, though it looks routed.
    Direct,
}

/// The patterns of every service and billing route, compiled once.
pub(crate) struct Matcher {
    rules: Vec<(Glob, usize)>,
    targets: Vec<Matched>,
}

impl Matcher {
    pub(crate) fn new(services: &[ServiceDescriptors]) -> Matcher {
        let mut rules = Vec::new();
        let mut targets = Vec::new();
        let direct = targets.len();
        targets.push(Matched::Direct);
        rules.extend(NOT_ROUTED.iter().map(|p| (descriptor_glob(p), direct)));
        // Routes first, so that a tie in specificity goes to them.
        for route in BILLING_ROUTES {
            let target = targets.len();
            targets.push(Matched::Route {
                company: route.company.to_owned(),
                how: route.how.to_owned(),
            });
            rules.extend(route.patterns.iter().map(|p| (descriptor_glob(p), target)));
        }
        for service in services {
            let target = targets.len();
            targets.push(Matched::Service {
                id: service.id.clone(),
                name: service.name.clone(),
            });
            rules.extend(
                service
                    .patterns
                    .iter()
                    .map(|p| (descriptor_glob(p), target)),
            );
        }
        Matcher { rules, targets }
    }

    /// The most specific match for a descriptor, given in its normalised
    /// and raw forms.
    pub(crate) fn find(&self, normalised: &str, raw: &str) -> Option<&Matched> {
        let raw = collapse_upper(raw);
        let mut best: Option<(usize, usize)> = None;
        for (glob, target) in &self.rules {
            if (glob.matches(normalised) || glob.matches(&raw))
                && best.is_none_or(|(literal, _)| glob.literal_len() > literal)
            {
                best = Some((glob.literal_len(), *target));
            }
        }
        best.and_then(|(_, target)| self.targets.get(target))
            .filter(|m| **m != Matched::Direct)
    }
}

/// A descriptor pattern as a glob, its runs of spaces collapsed as a
/// descriptor's are.
fn descriptor_glob(pattern: &str) -> Glob {
    Glob::new(&collapse_upper(pattern))
}

fn collapse_upper(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_uppercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_descriptors() {
        let cases = [
            ("NETFLIX*", "NETFLIX.COM", true),
            ("NETFLIX*", "PAYPAL *NETFLIX", false),
            ("*NETFLIX.COM*", "PAYPAL *NETFLIX.COM 866", true),
            ("GOOGLE *", "GOOGLE *YOUTUBEPREMIUM", true),
            ("GOOGLE *", "GOOGLE", false),
            ("HLU*HULU*", "HLU*HULU", true),
            ("hlu*hulu*", "HLU*HULU 1234567-U", true),
            ("A*B", "AB", true),
            ("A*B", "AXB", true),
            ("A*B", "ABX", false),
            ("A*A", "A", false),
            ("ABC", "ABC", true),
            ("ABC", "ABCD", false),
            ("*", "", true),
            ("*B*C", "XBYC", true),
            ("*B*C", "XBYCZ", false),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(Glob::new(pattern).matches(text), want, "{pattern} ~ {text}");
        }
    }

    /// Each descriptor, normalised and raw, against what it must be matched
    /// to: the specific service beats the billing company's catch-all, and
    /// Prime itself is never routed to Amazon's channels.
    #[test]
    fn descriptors_route_to_services_or_billers() {
        let matcher = Matcher::new(&known_descriptors());
        let service = |id: &str| Some(id.to_owned());
        let cases: &[(&str, Option<String>)] = &[
            ("NETFLIX.COM 866-579-7172 CA", service("netflix")),
            ("PAYPAL *NETFLIX.COM", service("netflix")),
            ("Spotify USA", service("spotify")),
            ("HLU*HULU 1234567-U", service("hulu")),
            ("DISNEY PLUS 888-905-7888 CA", service("disney-plus")),
            ("HBO MAX 855-442-6629 NY", service("max")),
            ("MAX.COM", service("max")),
            (
                "GOOGLE *YouTubePremium g.co/helppay#",
                service("youtube-premium"),
            ),
            (
                "Amazon Prime*2K4LX0Q31 Amzn.com/bill WA",
                service("amazon-prime"),
            ),
            ("AMZN PRIME*AB12CD", service("amazon-prime")),
            ("PARAMOUNT+ 888-274-5343 CA", service("paramount-plus")),
            ("PEACOCK 8EB2B PREMIUM", service("peacock")),
            ("NYTIMES*NYTIMES SUB", service("nytimes")),
            ("APPLE.COM/BILL 866-712-7753 CA", Some("Apple".into())),
            ("GOOGLE *Disney Plus", Some("Google Play".into())),
            ("GOOGLE *YouTube TV", Some("Google Play".into())),
            // Issue 42: Google bills its cloud itself, not through Play.
            ("GOOGLE *CLOUD 4Y5Z6A g.co/helppay#", None),
            ("GOOGLE*CLOUD ABCDEF", None),
            ("GOOGLE *GSUITE_example.com", None),
            ("Amazon Channels*AB12CD", Some("Amazon".into())),
            ("Amazon Prime Video Channels*AB1", Some("Amazon".into())),
            ("AMZN Digital*AB12CD", Some("Amazon".into())),
            ("T-MOBILE*AUTO PAY", Some("T-Mobile".into())),
            ("VZWRLSS*APOCC VISB", Some("Verizon".into())),
            ("ATT*BILL PAYMENT", Some("AT&T".into())),
            ("AMZN Mktp US*RT7Y21ZK0", None),
            ("PATREON* MEMBERSHIP", None),
        ];
        for (raw, want) in cases {
            let normalised = crate::descriptor::normalise(raw);
            let got = matcher.find(&normalised, raw).map(|m| match m {
                Matched::Service { id, .. } => id.clone(),
                Matched::Route { company, .. } => company.clone(),
                Matched::Direct => "direct".to_owned(),
            });
            assert_eq!(&got, want, "{raw} ({normalised})");
        }
    }
}
