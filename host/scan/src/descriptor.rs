//! Merchant descriptors, reduced to the part that names the merchant. A card
//! network's descriptor packs a processor's prefix, the merchant's name, an
//! order reference, a phone number or city and a state into one line, and
//! the reference changes with every charge: `Amazon Prime*2K4LX0Q31
//! Amzn.com/bill WA` one month, `Amazon Prime*RT7Y21ZK0` the next. Grouping
//! a subscription's charges needs the part that stays: `AMAZON PRIME`.
//!
//! The rules are deliberately few, each for a pattern seen on real
//! statements; a descriptor they do not fit is still grouped by its whole
//! text, which only costs a grouping when its references vary.

/// Words banks put in front of the merchant to say how it was paid
/// (`POS PURCHASE`, `CHECKCARD 0112`, `RECURRING PAYMENT AUTHORIZED ON
/// 01/12`): they describe the payment, not the payee.
const BANK_WORDS: &[&str] = &[
    "POS",
    "PURCHASE",
    "DEBIT",
    "CARD",
    "CHECKCARD",
    "RECURRING",
    "PAYMENT",
    "VISA",
    "DDA",
    "PUR",
    "ACH",
    "WITHDRAWAL",
    "AUTHORIZED",
    "ON",
];

/// Words a bank writes where a payee's name belongs when it has none to
/// give: with [`BANK_WORDS`], they make a placeholder (`POS`, `Card
/// purchase`, `UNKNOWN`).
const PLACEHOLDER_WORDS: &[&str] = &[
    "UNKNOWN",
    "N/A",
    "NONE",
    "MISC",
    "TRANSFER",
    "DIRECT",
    "DIRECTDEBIT",
    "CREDIT",
    "ATM",
    "XFER",
    "CHECK",
    "EFTPOS",
    "WDL",
    "TRANSACTION",
    "MERCHANT",
    "-",
    ".",
];

/// Whether `raw` names no one: only bank and placeholder words, such as a
/// `NAME` of "POS" or "Card purchase" over every card payment.
pub(crate) fn names_no_one(raw: &str) -> bool {
    let upper = raw.to_uppercase();
    let mut words = upper.split_whitespace().peekable();
    words.peek().is_some()
        && words.all(|w| BANK_WORDS.contains(&w) || PLACEHOLDER_WORDS.contains(&w))
}

/// Payment processors and point-of-sale systems that put their own name
/// before the merchant's, followed by `*`: Square (`SQ *`), PayPal, Toast
/// (`TST*`), Shopify (`SP *`), SumUp, Zettle, Intuit (`IN *`).
const PROCESSORS: &[&str] = &[
    "SQ", "SQU", "TST", "SP", "PP", "PAYPAL", "SUMUP", "IZ", "ZETTLE", "IN", "CKO",
];

/// US states, Canadian provinces and the country codes that end descriptors
/// (`… LOS GATOS CA`, `… AMSTERDAM NLD`): where, not who.
const PLACES: &[&str] = &[
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY", "PR", "ON", "QC", "BC", "AB", "MB", "NS", "SK", "US", "USA", "GB", "GBR",
    "UK", "NL", "NLD", "IE", "IRL", "LU", "LUX", "SE", "SWE", "FR", "FRA", "DEU", "ESP", "ITA",
];

/// The merchant part of `raw`, upper-case, single-spaced. Never empty when
/// `raw` has any letter or digit: if the rules strip everything, the whole
/// descriptor is kept.
pub(crate) fn normalise(raw: &str) -> String {
    let upper: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .flat_map(char::to_uppercase)
        .collect();

    let mut rest = strip_bank_words(upper.trim());
    rest = strip_processor(rest);
    // Fixed-width descriptors pad the name field: whatever follows a run of
    // spaces is the city or phone field.
    if let Some(gap) = rest.find("  ") {
        rest = &rest[..gap];
    }

    let mut kept: Vec<&str> = Vec::new();
    for (i, token) in rest.split_whitespace().enumerate() {
        // `MERCHANT*REFERENCE`: a reference has digits and ends the useful
        // part (an Amazon order id, followed by `Amzn.com/bill WA`).
        // `HLU*HULU` and `GOOGLE *YOUTUBEPREMIUM` have none and are names.
        if let Some((head, tail)) = token.split_once('*')
            && tail.chars().any(|c| c.is_ascii_digit())
        {
            if !head.is_empty() {
                kept.push(head);
            }
            break;
        }
        // Store numbers, phone numbers, references, `#1234`. The first token
        // stays whatever it is: `1PASSWORD`, `24 HOUR FITNESS`.
        if i > 0 && (token.starts_with('#') || token.chars().any(|c| c.is_ascii_digit())) {
            continue;
        }
        kept.push(token);
    }
    // Trailing state and country codes, at most two (`CA USA`), never the
    // merchant's only word.
    for _ in 0..2 {
        if kept.len() > 1 && kept.last().is_some_and(|t| PLACES.contains(t)) {
            kept.pop();
        }
    }

    let joined = kept.join(" ");
    let cleaned =
        joined.trim_matches(|c: char| matches!(c, '-' | '*' | '#' | ',' | ';' | ':' | '/'));
    if cleaned.is_empty() {
        upper.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        cleaned.to_owned()
    }
}

/// Drops leading bank words, and the card digits or dates that go with them
/// (`CHECKCARD 0112`, `AUTHORIZED ON 01/12`), but only once a bank word has
/// been seen: `24 HOUR FITNESS` keeps its 24.
fn strip_bank_words(text: &str) -> &str {
    let mut rest = text;
    let mut seen_bank_word = false;
    loop {
        let trimmed = rest.trim_start();
        let token_end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let token = &trimmed[..token_end];
        let after = &trimmed[token_end..];
        let is_bank_word = BANK_WORDS.contains(&token);
        let is_card_detail = seen_bank_word
            && !token.is_empty()
            && token.chars().all(|c| c.is_ascii_digit() || c == '/');
        // "ON" is a bank word only after another one: ON RUNNING is a shop.
        if (is_bank_word && (seen_bank_word || token != "ON") || is_card_detail)
            && !after.trim().is_empty()
        {
            seen_bank_word = true;
            rest = after;
        } else {
            return trimmed;
        }
    }
}

/// Drops a processor's `PREFIX *` or `PREFIX*`.
fn strip_processor(text: &str) -> &str {
    // Processor prefixes are short; a star further in belongs to the merchant.
    const MAX_PREFIX_CHARS: usize = 8;
    if let Some(star) = text.find('*')
        && star <= MAX_PREFIX_CHARS
        && PROCESSORS.contains(&text[..star].trim_end())
    {
        let rest = text[star + 1..].trim_start();
        if !rest.is_empty() {
            return rest;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn placeholders_name_no_one() {
        let cases = [
            ("POS", true),
            ("Card purchase", true),
            ("DIRECT DEBIT", true),
            ("UNKNOWN", true),
            ("", false),
            ("NETFLIX.COM", false),
            ("POS NETFLIX", false),
        ];
        for (raw, want) in cases {
            assert_eq!(super::names_no_one(raw), want, "{raw}");
        }
    }

    #[test]
    fn descriptors_normalise() {
        let cases = [
            ("NETFLIX.COM", "NETFLIX.COM"),
            ("Netflix.com 866-579-7172 CA", "NETFLIX.COM"),
            ("NETFLIX.COM        LOS GATOS    CA", "NETFLIX.COM"),
            ("SQ *BLUE BOTTLE COFFEE", "BLUE BOTTLE COFFEE"),
            ("PAYPAL *SPOTIFY", "SPOTIFY"),
            ("TST* JOES DINER 1234", "JOES DINER"),
            ("SP * ALLBIRDS", "ALLBIRDS"),
            ("SP*ALLBIRDS", "ALLBIRDS"),
            ("Amazon Prime*2K4LX0Q31 Amzn.com/bill WA", "AMAZON PRIME"),
            ("AMZN Mktp US*RT7Y21ZK0", "AMZN MKTP"),
            ("HLU*HULU 1234567-U", "HLU*HULU"),
            (
                "GOOGLE *YouTubePremium g.co/helppay#",
                "GOOGLE *YOUTUBEPREMIUM G.CO/HELPPAY",
            ),
            ("APPLE.COM/BILL 866-712-7753 CA", "APPLE.COM/BILL"),
            (
                "STARBUCKS STORE #12345 SEATTLE WA",
                "STARBUCKS STORE SEATTLE",
            ),
            ("CHECKCARD 0112 SPOTIFY USA", "SPOTIFY"),
            ("PURCHASE AUTHORIZED ON 01/12 NETFLIX.COM", "NETFLIX.COM"),
            ("RECURRING PAYMENT AUTHORIZED ON 02/03 HULU", "HULU"),
            ("POS DEBIT DISNEY PLUS", "DISNEY PLUS"),
            ("ON RUNNING", "ON RUNNING"),
            ("24 HOUR FITNESS #123", "24 HOUR FITNESS"),
            ("1PASSWORD", "1PASSWORD"),
            ("Spotify P1A2B3C4D", "SPOTIFY"),
            ("PATREON* MEMBERSHIP", "PATREON* MEMBERSHIP"),
            ("  padded   ", "PADDED"),
            ("12345", "12345"),
            ("CA", "CA"),
            ("Müller Straße", "MÜLLER STRASSE"),
            ("PAYMENT", "PAYMENT"),
        ];
        for (raw, want) in cases {
            assert_eq!(normalise(raw), want, "{raw}");
        }
    }
}
