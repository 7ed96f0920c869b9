//! Where to cancel a subscription no plugin knows, when its descriptor
//! names the merchant's web address: `ADOBE.COM` → `https://adobe.com`,
//! `WWW.NYTIMES.COM/BILL` → `https://nytimes.com`, `HELP.MAX.COM` →
//! `https://max.com`.
//!
//! The address is the registrable domain (the public suffix list decides
//! where it starts: `audible.co.uk`, never `co.uk`), lower-cased, with
//! https. A descriptor without one names no address: `PATREON* MEMBERSHIP`
//! and `SQ *GYMNAME` are names, and guessing `patreon.com` from a name
//! would send a person to whatever site holds it. Payment processors, app
//! stores and billing companies are never the address: `PAYPAL *DUOLINGO`
//! is Duolingo's charge, and paypal.com is not where it is cancelled.

/// Second-level labels of companies that take payments for others, under
/// any suffix (`paypal.com`, `paypal.co.uk`, `paypal.me`): a descriptor
/// may print their address beside the merchant's, and it is never the
/// service's. App stores and billers are here too: their charges are routed
/// (`Action::BilledThrough`) before an address is looked for, and a stray
/// `apple.com` in another charge's descriptor is still not its address.
const NOT_THE_SERVICE: &[&str] = &[
    // Processors and wallets.
    "paypal",
    "venmo",
    "stripe",
    "squareup",
    "square",
    "braintreegateway",
    "braintree",
    "adyen",
    "worldpay",
    "klarna",
    "afterpay",
    "affirm",
    "sumup",
    "zettle",
    "izettle",
    "shopify",
    "paddle",
    "fastspring",
    "2checkout",
    "2co",
    "chargebee",
    "recurly",
    "checkout",
    "wise",
    "revolut",
    "payoneer",
    "skrill",
    "mollie",
    "cash",
    // App stores and billing companies.
    "apple",
    "itunes",
    "google",
    "goo",
    "amazon",
    "amzn",
    "roku",
    "microsoft",
    "xbox",
    "playstation",
    "samsung",
];

/// Shortest second-level label taken for a merchant: `J.CREW` parses as a
/// domain under the `.crew` TLD, and one letter is never a shop's address.
const MIN_LABEL_CHARS: usize = 2;

/// `https://<registrable domain>` for the first web address in `raw` that
/// is not a payment company's, or `None`.
pub(crate) fn cancel_at(raw: &str) -> Option<String> {
    raw.split(|c: char| c.is_whitespace() || c == '*')
        .filter_map(domain)
        .find(|d| !is_payment_company(d))
        .map(|d| format!("https://{d}"))
}

/// The registrable domain `token` names, if it is a host name under a
/// suffix the public suffix list knows.
fn domain(token: &str) -> Option<String> {
    // `WWW.NYTIMES.COM/BILL`, `g.co/helppay#`, `billing@example.com`.
    let host = token.rsplit('@').next()?;
    let host = host.split(['/', '#', '?', ':']).next()?;
    let host = host
        .trim_matches(|c: char| matches!(c, '.' | ',' | ';' | '(' | ')' | '"' | '\''))
        .to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let plausible = labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        // A TLD is letters: `9.99` and `1.5` are amounts.
        && labels
            .last()
            .is_some_and(|tld| tld.chars().all(|c| c.is_ascii_alphabetic()));
    if !plausible {
        return None;
    }
    let registrable = psl::domain(host.as_bytes())?;
    if !registrable.suffix().is_known() {
        return None;
    }
    let registrable = std::str::from_utf8(registrable.as_bytes()).ok()?;
    let label = second_level(registrable)?;
    let name_like =
        label.chars().count() >= MIN_LABEL_CHARS && label.chars().any(|c| c.is_ascii_alphabetic());
    name_like.then(|| registrable.to_owned())
}

/// `audible.co.uk` → `audible`: the label before the public suffix.
fn second_level(registrable: &str) -> Option<&str> {
    let suffix = psl::suffix_str(registrable)?;
    registrable
        .strip_suffix(suffix)?
        .strip_suffix('.')?
        .rsplit('.')
        .next()
}

fn is_payment_company(registrable: &str) -> bool {
    second_level(registrable).is_some_and(|label| NOT_THE_SERVICE.contains(&label))
}

#[cfg(test)]
mod tests {
    use super::cancel_at;

    /// Descriptors as banks print them, most from the statements in
    /// `fixtures/`, with where each is cancelled.
    #[test]
    fn descriptors_name_where_to_cancel() {
        let cases: &[(&str, Option<&str>)] = &[
            ("ADOBE.COM", Some("https://adobe.com")),
            ("AUDIBLE.CO.UK", Some("https://audible.co.uk")),
            ("HELP.MAX.COM", Some("https://max.com")),
            ("WWW.NYTIMES.COM/BILL", Some("https://nytimes.com")),
            (
                "OPENAI *CHATGPT SUBSCR   OPENAI.COM          CA",
                Some("https://openai.com"),
            ),
            (
                "CHECKCARD 0610 MAX.COM 855-442-6629 NY",
                Some("https://max.com"),
            ),
            ("NETFLIX.COM AMSTERDAM NLD", Some("https://netflix.com")),
            ("PAYPAL *NETFLIX.COM", Some("https://netflix.com")),
            ("DNH*GODADDY.COM", Some("https://godaddy.com")),
            ("Dropbox.com/bill CA", Some("https://dropbox.com")),
            ("SPOTIFY.DE", Some("https://spotify.de")),
            ("billing@Example.org", Some("https://example.org")),
            // No address: a name is not one.
            ("Patreon* Membership", None),
            ("PATREON* MEMBERSHIP INTERNET GBR", None),
            ("PAYPAL *DUOLINGO", None),
            ("SQ *GYMNAME", None),
            ("HELLOFRESH 646-846-3663 NY", None),
            ("Netflix International B.V.", None),
            ("ST. LOUIS BREAD CO", None),
            ("PLANET FITNESS DES:CLUB FEES ID:XXXXX7767", None),
            ("SIRIUSXM*RADIO 888-635-5144 NY", None),
            ("PRICE 9.99 USD", None),
            ("J.CREW", None),
            ("", None),
            // A payment company's or app store's address is never the service's.
            ("PAYPAL.COM", None),
            ("WWW.PAYPAL.CO.UK", None),
            ("PAYPAL *PAYPAL.ME/SHOP", None),
            ("APPLE.COM/BILL 866-712-7753 CA", None),
            ("GOOGLE *YouTubePremium g.co/helppay#", None),
            ("Amazon Prime*6F1GH3JK5 AMZN.COM/BILLWA", None),
            ("STRIPE.COM *ACME", None),
            ("SQUAREUP.COM/RECEIPTS", None),
            // ... but the merchant's beside it is.
            ("PAYPAL.COM *ADOBE.COM", Some("https://adobe.com")),
        ];
        for (raw, want) in cases {
            assert_eq!(cancel_at(raw).as_deref(), *want, "{raw}");
        }
    }
}
