//! The built-in generic service: any site, by its address, with no plugin.
//!
//! A plugin adds knowledge, never authority: the floor, the guard, the
//! sign-in pause and the verification are the host's own, so a run needs no
//! plugin to be safe, only to be cheap. The generic service is the knowledge
//! every site shares: what the law makes common (§312k BGB's "Verträge hier
//! kündigen" leading to "jetzt kündigen"; Directive (EU) 2023/2673's
//! "withdraw from contract here" leading to "confirm withdrawal"), the words
//! real sites put on the way out, and the account paths to look at. It is
//! written as a declarative `service.toml` (`generic/plan.toml` and a
//! `[service]` table made from the address) and run by the same interpreter
//! as any other, so nothing about it is trusted more than a plugin.
//!
//! What it may visit is the address's site: every https origin under its
//! registrable domain (`help.max.com` and `www.max.com` for `max.com`, by the
//! public suffix list), and the origins the person confirms when a flow
//! leaves it (a billing provider's automatic payments).

mod reach;

use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::installed::{PluginKind, sha256_hex};
use super::registry::{PluginSource, Registry, ServiceEntry, load_declarative};
use super::{PluginEngine, PluginError};

pub use super::site::Generic;
pub use reach::{Unreachable, check as check_reachable};

/// The plan, checkpoint and nothing else: the `[service]` table is made from
/// the address (see [`service_file`]).
const PLAN: &str = include_str!("generic/plan.toml");

/// The API the generic service file is written for.
const API: &str = "0.4.0";

/// Account pages real sites keep the subscription on, tried in this order
/// when the person gave only the site (its home page) and the home page
/// shows no way on: Netflix's and Hulu's `/account`, Duolingo's and
/// Discord's `/settings/subscription(s)`, the `/billing` of most software
/// sold by subscription, news sites' `/subscription`, gyms' `/membership`.
pub const ACCOUNT_PATHS: &[&str] = &[
    "/account",
    "/account/subscription",
    "/settings/subscription",
    "/billing",
    "/subscription",
    "/membership",
    "/my-account",
];

/// A web address a person gave for a service no plugin knows, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    url: url::Url,
    /// The registrable domain (`max.com`), or `None` for an IP address or a
    /// one-label host (`localhost`), whose site is its exact origin.
    domain: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("{input:?} is empty; give the site's address, e.g. example.com")]
    Empty { input: String },
    #[error(
        "{input:?} is a {scheme}: address, and subterminator opens only web pages; give the site's https address, e.g. `subterminator cancel example.com`"
    )]
    NotWeb { input: String, scheme: String },
    #[error(
        "{input:?} is not a web address ({cause}); give one like example.com or https://www.example.com/account"
    )]
    Malformed { input: String, cause: String },
    #[error(
        "{input:?} carries a user name or a password; give the address without it (you sign in in the browser, never on the command line)"
    )]
    Credentials { input: String },
    #[error(
        "{input:?} names no site (no domain under a public suffix such as .com or .co.uk); give the site's own domain, e.g. example.com"
    )]
    NoSite { input: String },
}

impl Address {
    /// Whether `input` is written as an address rather than a name: it has
    /// a scheme, a dot or a port (`crunchyroll.com`, `https://…`,
    /// `localhost:8080`), where a plugin's id never does.
    pub fn looks_like_address(input: &str) -> bool {
        let input = input.trim();
        input.contains("://") || input.contains('.') || input.contains(':') || input.contains('/')
    }

    /// Reads `input`: `https://…`, `http://…` (upgraded to https except on
    /// this machine, where practice sites are served), or a bare domain
    /// (`crunchyroll.com`, `www.audible.co.uk/account`). Every other scheme
    /// (`file:`, `javascript:`, `data:` …) is refused.
    pub fn parse(input: &str) -> Result<Self, AddressError> {
        let given = input.trim();
        if given.is_empty() {
            return Err(AddressError::Empty {
                input: input.to_owned(),
            });
        }
        let with_scheme = match scheme_of(given) {
            Some(scheme) if scheme == "http" || scheme == "https" => given.to_owned(),
            Some(scheme) => {
                return Err(AddressError::NotWeb {
                    input: given.to_owned(),
                    scheme,
                });
            }
            None => format!("https://{given}"),
        };
        let mut url = url::Url::parse(&with_scheme).map_err(|e| AddressError::Malformed {
            input: given.to_owned(),
            cause: e.to_string(),
        })?;
        if !url.username().is_empty() || url.password().is_some() {
            // Said back without them: an error line ends up in scrollback
            // and logs.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            return Err(AddressError::Credentials {
                input: url.to_string(),
            });
        }
        let Some(host) = url.host_str().map(str::to_owned) else {
            return Err(AddressError::Malformed {
                input: given.to_owned(),
                cause: "no host".into(),
            });
        };
        let exact_host = matches!(url.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)))
            || !host.contains('.');
        let loopback = super::bounds::is_loopback(&host);
        if url.scheme() == "http" && !loopback {
            // Nobody cancels over plain http; the site answers on https.
            let _ = url.set_scheme("https");
        }
        let domain = if exact_host {
            if !loopback {
                return Err(AddressError::NoSite {
                    input: given.to_owned(),
                });
            }
            None
        } else {
            let domain = psl::domain_str(&host)
                .filter(|d| d.contains('.'))
                .ok_or_else(|| AddressError::NoSite {
                    input: given.to_owned(),
                })?;
            Some(domain.to_owned())
        };
        url.set_fragment(None);
        Ok(Self { url, domain })
    }

    /// The address to start at.
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The site, as a person reads it: the registrable domain
    /// (`crunchyroll.com`), or the host and port on this machine.
    pub fn site(&self) -> String {
        match &self.domain {
            Some(domain) => domain.clone(),
            None => match self.url.port() {
                Some(port) => format!("{}:{port}", self.url.host_str().unwrap_or_default()),
                None => self.url.host_str().unwrap_or_default().to_owned(),
            },
        }
    }

    /// The registrable domain whose every https origin the run may visit;
    /// `None` on this machine, where the site is the exact origin.
    pub fn domain(&self) -> Option<&str> {
        self.domain.as_deref()
    }

    /// The id runs, profiles and remembered paths are kept under: the site
    /// in the plugin id alphabet (`crunchyroll-com`, `127-0-0-1-8123`), so
    /// `login crunchyroll.com` and `cancel https://www.crunchyroll.com/…`
    /// share one signed-in profile.
    pub fn service_id(&self) -> String {
        let mut id: String = self
            .site()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        id.truncate(64);
        id.trim_matches('-').to_owned()
    }

    /// Whether the person gave only the site (its home page): then the
    /// common account paths are worth a look.
    fn at_home(&self) -> bool {
        self.url.path() == "/" && self.url.query().is_none()
    }

    /// The origins the service file lists: the address's own, and the site's
    /// bare and `www.` https origins.
    fn origins(&self) -> Vec<String> {
        let mut origins = vec![self.url.origin().ascii_serialization()];
        if let Some(domain) = &self.domain {
            for o in [format!("https://{domain}"), format!("https://www.{domain}")] {
                if !origins.contains(&o) {
                    origins.push(o);
                }
            }
        }
        origins
    }
}

/// The scheme `input` starts with, lower-cased, or `None` for a bare domain
/// (`example.com`, `localhost:8080/account`, whose "scheme" would be the
/// host).
fn scheme_of(input: &str) -> Option<String> {
    let (head, rest) = input.split_once(':')?;
    let is_scheme = head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    // `host:port` is a bare address; `javascript:…`, `data:…`, `mailto:…`,
    // `about:blank` and `view-source:https://…` are schemes.
    let port = rest.chars().next().is_some_and(|c| c.is_ascii_digit());
    (is_scheme && (rest.starts_with("//") || !port)).then(|| head.to_ascii_lowercase())
}

/// The `[service]` table of a generic service, as the schema spells it.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct ServiceTable {
    id: String,
    display_name: String,
    version: &'static str,
    initial_url: String,
    goal: String,
    system_prompt_addition: String,
    allowed_origins: Vec<String>,
}

#[derive(Serialize)]
struct Header {
    api: &'static str,
    service: ServiceTable,
}

/// The whole `service.toml` of the generic service for `address`; `name` is
/// what the person called the service, when they named it.
pub fn service_file(address: &Address, name: Option<&str>) -> String {
    let site = address.site();
    let display_name = match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => name.chars().take(80).collect(),
        None => site.clone(),
    };
    let header = Header {
        api: API,
        service: ServiceTable {
            id: address.service_id(),
            display_name,
            version: "0.1.0",
            initial_url: address.as_str().to_owned(),
            goal: format!(
                "Cancel the person's subscription at {site}, declining every offer to stay, pause \
                 or switch plans. Find the account or subscription settings, then the way to \
                 cancel. Call complete_task when the page says the subscription is cancelled."
            ),
            system_prompt_addition: "No plugin knows this site. In Germany a button labelled \
                \"Verträge hier kündigen\" must lead to a page with \"jetzt kündigen\"; in the EU \
                a \"withdraw from contract here\" function leads to \"confirm withdrawal\". Look \
                for them, and for the account, subscription, membership or billing settings. If \
                the subscription is billed by someone else (an app store, a phone company, \
                PayPal), say so and stop."
                .into(),
            allowed_origins: address.origins(),
        },
    };
    // Serializing plain strings and lists cannot fail; an empty header would
    // be refused by the parse that follows, never run.
    let head = toml::to_string(&header).unwrap_or_default();
    format!("{head}\n{PLAN}")
}

/// The generic service for `address`, loaded through the interpreter like
/// any declarative plugin.
pub fn service(
    engine: &PluginEngine,
    address: &Address,
    name: Option<&str>,
) -> Result<ServiceEntry, PluginError> {
    let text = service_file(address, name);
    let plugin = load_declarative(engine, "the generic service", &text)?;
    Ok(ServiceEntry {
        metadata: plugin.metadata().clone(),
        plan: plugin.plan().to_vec(),
        source: PluginSource::Generic {
            address: address.as_str().to_owned(),
        },
        kind: PluginKind::Declarative,
        sha256: sha256_hex(text.as_bytes()),
        api_version: plugin.api_version(),
        plugin: Arc::new(Mutex::new(plugin)),
        generic: Some(Generic {
            domain: address.domain.clone(),
            paths: if address.at_home() {
                ACCOUNT_PATHS.iter().map(|p| (*p).to_owned()).collect()
            } else {
                Vec::new()
            },
        }),
    })
}

/// The service `name` means, asking nothing: a plugin's id; else an
/// address: the plugin that knows that site (`spotify.com` runs Spotify's),
/// else the generic service for it. A name that is neither is
/// [`PluginError::ServiceNotFound`], for the caller to ask for an address.
pub async fn named(registry: &Registry, name: &str) -> Result<ServiceEntry, PluginError> {
    let known = registry.get(name);
    match known {
        Ok(service) => Ok(service.clone()),
        Err(PluginError::ServiceNotFound { .. }) if Address::looks_like_address(name) => {
            let address = Address::parse(name)?;
            if let Some(service) = address.domain().and_then(|d| registry.for_domain(d)) {
                return Ok(service.clone());
            }
            at(registry, address, None).await
        }
        Err(e) => Err(e),
    }
}

/// The generic service at `address`, named `name` when the person named it,
/// in the registry's engine.
pub async fn at(
    registry: &Registry,
    address: Address,
    name: Option<String>,
) -> Result<ServiceEntry, PluginError> {
    let engine = registry.engine().cloned().ok_or_else(|| {
        PluginError::Worker("no plugin engine to run the generic service in".into())
    })?;
    load(engine, address, name).await
}

/// [`service`] off the async workers (wasmtime must not run on them).
pub async fn load(
    engine: PluginEngine,
    address: Address,
    name: Option<String>,
) -> Result<ServiceEntry, PluginError> {
    tokio::task::spawn_blocking(move || service(&engine, &address, name.as_deref()))
        .await
        .map_err(|e| PluginError::Worker(e.to_string()))?
}

#[cfg(test)]
mod tests;
