//! What the host knows of a run with no plugin beyond its service file:
//! the site it may visit whole, and the account pages to look at. A leaf:
//! the registry's entries carry it, the generic service makes it.

/// What the host knows of a generic run beyond its service file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generic {
    /// The registrable domain every https origin of which the run may
    /// visit (see `generic::Address::domain`).
    pub domain: Option<String>,
    /// Account pages to look at, in order, when the start page shows no way
    /// on (`generic::ACCOUNT_PATHS`, on the address's origin); empty when the
    /// person gave a page deeper than the home page.
    pub paths: Vec<String>,
}

impl Generic {
    /// Whether `origin` (`scheme://host[:port]`) is on the site: https, and
    /// the domain or one under it.
    pub fn covers(&self, origin: &str) -> bool {
        let Some(domain) = &self.domain else {
            return false;
        };
        let Ok(url) = url::Url::parse(origin) else {
            return false;
        };
        url.scheme() == "https" && url.host_str().is_some_and(|host| under(host, domain))
    }
}

/// Whether `host` is `domain` or a name under it (`www.max.com` under
/// `max.com`; never `evilmax.com`). `guard.js`'s `onSite` reads hosts the
/// same way.
pub fn under(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|sub| sub.ends_with('.'))
}
