//! Flow families: one file per service skeleton (`flows/<service>.toml`),
//! its screens at the service's real paths, and the variants built on it.
//!
//! ```toml
//! service = "hulu"                      # the bundled plugin that runs on it
//! brand = "Hulu"
//! color = "#1ce783"
//! title = "{title} | Hulu"              # {title}: the page's heading
//! date-format = "%B %-d, %Y"            # English pages; packs say the others
//! plan = "Hulu (No Ads)"
//! price = "$18.99"
//! cheaper = "Hulu (With Ads)"
//! cheaper-price = "$9.99"
//! commit = "/account/cancel/submit"     # the POST that cancels
//! done = "/account/cancel/done"
//!
//! [[screen]]                            # in the order an honest run meets them
//! kind = "account"                      # account | manage | benefits | offer |
//! path = "/account"                     #   switch | pause | survey | confirm
//! go = "open_cancel"                    # the word of the control that goes on
//! style = "link"                        # link | button (default)
//!
//! [[screen]]
//! kind = "pause"
//! path = "/account/cancel"
//! go = "continue_cancel"
//! post = "/account/pause"               # where taking it posts…
//! result = "/account/paused"            # …and the page that says it is done
//!
//! [[flow]]                              # one flow per entry
//! lang = "de"
//! shape = ["links"]
//! trick = []
//! split = "development"
//! statutory = "bgb-312k"                # optional: the legal button
//! ```
//!
//! A family of a service no bundled plugin knows says `plugin = false`; its
//! `service` is the invented brand's id, and it carries its own words per
//! language (`[words.de]`, `[lists.de]`), which win over the pack's: a
//! gym's or a VPN's pages do not speak of watchlists.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::flow::{Shape, Split, Statutory, Trick};

/// Every family the crate carries.
const FAMILIES: &[(&str, &str)] = &[
    ("practice", include_str!("../flows/practice.toml")),
    ("netflix", include_str!("../flows/netflix.toml")),
    ("spotify", include_str!("../flows/spotify.toml")),
    ("hulu", include_str!("../flows/hulu.toml")),
    ("disney-plus", include_str!("../flows/disney-plus.toml")),
    ("max", include_str!("../flows/max.toml")),
    (
        "youtube-premium",
        include_str!("../flows/youtube-premium.toml"),
    ),
    ("amazon-prime", include_str!("../flows/amazon-prime.toml")),
    (
        "paramount-plus",
        include_str!("../flows/paramount-plus.toml"),
    ),
    ("peacock", include_str!("../flows/peacock.toml")),
    ("nytimes", include_str!("../flows/nytimes.toml")),
    // Services no plugin knows (invented brands), one of each kind.
    ("stahlwerk", include_str!("../flows/stahlwerk.toml")),
    ("wirewren", include_str!("../flows/wirewren.toml")),
    ("nimbara", include_str!("../flows/nimbara.toml")),
    ("veilleur", include_str!("../flows/veilleur.toml")),
    ("verbosa", include_str!("../flows/verbosa.toml")),
    ("mestolo", include_str!("../flows/mestolo.toml")),
    ("vonkje", include_str!("../flows/vonkje.toml")),
    ("quillsmith", include_str!("../flows/quillsmith.toml")),
];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Family {
    pub service: String,
    pub brand: String,
    /// A bundled plugin knows the service (true unless said).
    #[serde(default = "yes")]
    pub plugin: bool,
    /// language → word key → the family's own word in that language.
    #[serde(default)]
    pub words: BTreeMap<String, BTreeMap<String, String>>,
    /// language → list key → the family's own list in that language.
    #[serde(default)]
    pub lists: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    pub color: String,
    pub title: String,
    #[serde(default)]
    pub date_format: Option<String>,
    pub plan: String,
    pub price: String,
    pub cheaper: String,
    pub cheaper_price: String,
    #[serde(default = "default_addon")]
    pub addon: String,
    #[serde(default = "default_addon_price")]
    pub addon_price: String,
    pub commit: String,
    pub done: String,
    pub screen: Vec<ScreenSpec>,
    pub flow: Vec<Variant>,
}

fn yes() -> bool {
    true
}

fn default_addon() -> String {
    "Cloud Backup".to_owned()
}

fn default_addon_price() -> String {
    "$2.99".to_owned()
}

/// What a screen is for; the renderer knows how each is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    Account,
    Manage,
    Benefits,
    Offer,
    Switch,
    Pause,
    Survey,
    Confirm,
    /// A settings menu in front of the cancel link (buried-cancel).
    Menu,
    /// "Re-enter your password" (sign-in-wall).
    Password,
    /// An add-on sold on the way out (cross-sell).
    CrossSell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum StyleSpec {
    Link,
    Button,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ScreenSpec {
    pub kind: Kind,
    pub path: String,
    pub go: String,
    #[serde(default)]
    pub style: Option<StyleSpec>,
    #[serde(default)]
    pub post: Option<String>,
    #[serde(default)]
    pub result: Option<String>,
    /// A confirm screen that asks the (optional) reason on the same page.
    #[serde(default)]
    pub reason: bool,
    /// The word of the confirm screen's way back (default `keep`).
    #[serde(default)]
    pub keep: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Variant {
    pub lang: String,
    #[serde(default)]
    pub shape: Vec<Shape>,
    #[serde(default)]
    pub trick: Vec<Trick>,
    pub split: Split,
    /// The id's middle part; by default the tricks and shapes, or `base`.
    #[serde(default)]
    pub name: Option<String>,
    /// The legal button the site carries; a fake-statutory-button or
    /// statutory-words-on-offer trick fakes it.
    #[serde(default)]
    pub statutory: Option<Statutory>,
}

impl Variant {
    /// `<service>-<name>-<lang>`.
    pub fn id(&self, service: &str) -> String {
        let name = self.name.clone().unwrap_or_else(|| {
            let parts: Vec<&str> = self
                .statutory
                .iter()
                .map(|s| s.label())
                .chain(self.trick.iter().map(|t| t.label()))
                .chain(self.shape.iter().map(|s| s.label()))
                .collect();
            if parts.is_empty() {
                "base".to_owned()
            } else {
                parts.join("-")
            }
        });
        format!("{service}-{name}-{}", self.lang)
    }
}

/// Every family, parsed.
pub(crate) fn all() -> Result<Vec<Family>> {
    FAMILIES
        .iter()
        .map(|(name, text)| {
            let family: Family =
                toml::from_str(text).map_err(|e| Error::Data(format!("flows/{name}.toml: {e}")))?;
            if family.service != *name {
                return Err(Error::Data(format!(
                    "flows/{name}.toml says it is {:?}",
                    family.service
                )));
            }
            // A typo in a family's own word would silently fall back to the
            // pack's, which speaks of another kind of service.
            let unknown: Vec<String> = family
                .words
                .iter()
                .flat_map(|(lang, words)| words.keys().map(move |k| (lang, k)))
                .filter(|(_, k)| !crate::lang::is_word(k))
                .map(|(lang, k)| format!("{lang}.{k}"))
                .chain(
                    family
                        .lists
                        .iter()
                        .flat_map(|(lang, lists)| lists.keys().map(move |k| (lang, k)))
                        .filter(|(_, k)| !crate::lang::LISTS.contains(&k.as_str()))
                        .map(|(lang, k)| format!("{lang}.{k}")),
                )
                .collect();
            if !unknown.is_empty() {
                return Err(Error::Data(format!(
                    "flows/{name}.toml has unknown words: {}",
                    unknown.join(", ")
                )));
            }
            Ok(family)
        })
        .collect()
}
