//! Where a client may start a run. A client's `start_url` is trusted less
//! than a person's `--start-url`: it may name a page of the service's own
//! (one of the plugin's allowed origins) or a copy of its site on this
//! machine (`http://127.0.0.1:…`, `localhost`, `[::1]`), the way plugins
//! are tried; anything else would send the person's signed-in browser
//! wherever the client likes, so it is refused before any browser starts.

use url::Url;

/// Why a `start_url` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartRefused {
    #[error("`start_url` {url:?} is not a whole http(s) address: {why}")]
    NotAUrl { url: String, why: String },

    #[error(
        "`start_url` {url:?} is outside {service}'s sites ({allowed}) and not a copy on this machine (http://127.0.0.1:PORT or http://localhost:PORT)"
    )]
    Outside {
        url: String,
        service: String,
        allowed: String,
    },
}

/// Checks a client's `start_url` for `service`, whose plugin allows
/// `allowed_origins`; returns the address as the run will load it.
pub fn check_start_url(
    url: &str,
    service: &str,
    allowed_origins: &[String],
) -> Result<String, StartRefused> {
    let parsed = Url::parse(url).map_err(|e| StartRefused::NotAUrl {
        url: url.to_owned(),
        why: e.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(StartRefused::NotAUrl {
            url: url.to_owned(),
            why: "only http and https addresses load".into(),
        });
    }
    // Credentials in an address would be sent to the page; never needed.
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(StartRefused::NotAUrl {
            url: url.to_owned(),
            why: "an address with a user name or password is not taken".into(),
        });
    }
    if is_loopback(&parsed) {
        return Ok(parsed.to_string());
    }
    let origin = parsed.origin().ascii_serialization();
    let allowed = allowed_origins
        .iter()
        .filter_map(|o| Url::parse(o).ok())
        .map(|o| o.origin().ascii_serialization());
    let mut named = Vec::new();
    for allowed in allowed {
        if allowed == origin {
            return Ok(parsed.to_string());
        }
        named.push(allowed);
    }
    Err(StartRefused::Outside {
        url: url.to_owned(),
        service: service.to_owned(),
        allowed: named.join(", "),
    })
}

/// A copy of a site on this machine: the loopback address or its name.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_may_start_on_the_services_sites_or_a_local_copy_only() {
        let allowed = vec![
            "https://www.netflix.com".to_owned(),
            "https://help.netflix.com".to_owned(),
        ];
        let cases = [
            ("https://www.netflix.com/account", true),
            ("https://help.netflix.com/", true),
            ("https://www.netflix.com:443/cancelplan", true),
            ("http://127.0.0.1:8123/", true),
            ("http://localhost:9000/account", true),
            ("http://[::1]:9000/", true),
            ("http://127.0.0.2/", true),
            ("http://www.netflix.com/account", false),
            ("https://www.netflix.com.evil.example/", false),
            ("https://evil.example/?https://www.netflix.com", false),
            ("https://www.netflix.com:8443/", false),
            ("https://user:pw@www.netflix.com/", false),
            ("file:///etc/passwd", false),
            ("javascript:alert(1)", false),
            ("data:text/html,hi", false),
            ("netflix.com", false),
            ("http://localhost.evil.example/", false),
            ("http://10.0.0.1/", false),
        ];
        for (url, ok) in cases {
            let got = check_start_url(url, "netflix", &allowed);
            assert_eq!(got.is_ok(), ok, "{url}: {got:?}");
            if let Err(e) = got {
                assert!(e.to_string().contains("`start_url`"), "{e}");
            }
        }
    }
}
