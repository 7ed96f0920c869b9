//! Whether the address a person gave answers, checked before any browser
//! starts, so that a typo costs one line with its fix rather than a run that
//! stops on the browser's error page.
//!
//! One plain GET of the page, without cookies, as any visit to the home page
//! is: nothing the person is signed in to is touched. Only what surely means
//! a wrong address is an error (no such domain, nothing listening, 404 and
//! 410); a 403 or a 503 is often a site refusing a client that is not a
//! browser, and the browser itself may well get through.

use std::time::Duration;

use super::Address;

/// How long the check waits for the site.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Why the address does not answer, each with its fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreachable {
    #[error(
        "{host} does not resolve (no such domain); check the spelling, or give the address the site's own e-mails link to"
    )]
    NoSuchDomain { host: String },
    #[error(
        "nothing answers at {url} ({cause}); check the address, or whether the site is running"
    )]
    NoAnswer { url: String, cause: String },
    #[error(
        "{url} answers {status}: there is no such page; give just the site (e.g. {site}) and the run will look for the account itself"
    )]
    NoSuchPage {
        url: String,
        status: u16,
        site: String,
    },
}

/// Checks that `address` answers; see the module's note for what counts.
pub async fn check(address: &Address) -> Result<(), Unreachable> {
    crate::tls::ready();
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(10))
        .build()
        .map_err(|e| Unreachable::NoAnswer {
            url: address.as_str().to_owned(),
            cause: e.to_string(),
        })?;
    match client.get(address.as_str()).send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            if matches!(status, 404 | 410) {
                return Err(Unreachable::NoSuchPage {
                    url: address.as_str().to_owned(),
                    status,
                    site: address.site(),
                });
            }
            Ok(())
        }
        Err(e) => Err(classify(address, &e)),
    }
}

/// A failed request by what it means: the name, or the answer.
fn classify(address: &Address, error: &reqwest::Error) -> Unreachable {
    // reqwest says "dns error" in the chain of a name that did not resolve;
    // nothing else in its errors is as specific.
    let mut chain = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = source {
        chain.push_str(&e.to_string());
        chain.push_str(": ");
        source = e.source();
    }
    let host = address.url.host_str().unwrap_or_default().to_owned();
    if chain.contains("dns error") || chain.contains("failed to lookup address") {
        return Unreachable::NoSuchDomain { host };
    }
    let cause = if error.is_timeout() {
        format!("no answer in {} s", TIMEOUT.as_secs())
    } else if error.is_connect() {
        "the connection was refused".to_owned()
    } else {
        chain.trim_end_matches(": ").to_owned()
    };
    Unreachable::NoAnswer {
        url: address.as_str().to_owned(),
        cause,
    }
}
