//! Who was paid, in a CAMT entry. The creditor's name is the payee, except
//! when the creditor only passed the money on: a payment service (PayPal
//! Europe, Klarna, Stripe, Adyen, Mollie) or the account's own bank (card
//! payments booked against the bank). Then Netflix, Spotify and Disney+
//! all show as "PayPal Europe S.a.r.l. et Cie S.C.A", and only the
//! remittance line ("1040912345678 PP.4321.PP . Netflix International
//! B.V., Ihr Einkauf bei Netflix International B.V.") names the merchant.

/// Payment services that collect for merchants, by a word of their name.
const INTERMEDIARIES: &[&str] = &["PAYPAL", "KLARNA", "STRIPE", "ADYEN", "MOLLIE", "SUMUP"];

/// Phrases after which PayPal and Klarna remittance lines name the merchant.
const MERCHANT_AFTER: &[&str] = &[
    "IHR EINKAUF BEI ",
    "YOUR PURCHASE AT ",
    "VOTRE ACHAT CHEZ ",
    "UW AANKOOP BIJ ",
];

/// The descriptor of an entry: the counterparty's name, or the merchant the
/// remittance line names when the counterparty is an intermediary, written
/// `PAYPAL *MERCHANT` so that the table shows both and grouping (which
/// drops a processor prefix) keys on the merchant.
pub(super) fn describe(
    counterparty: Option<&str>,
    remittance: Option<&str>,
    info: Option<&str>,
    servicer: Option<&str>,
) -> Option<String> {
    let Some(party) = counterparty else {
        return remittance.or(info).map(str::to_owned);
    };
    let upper = party.to_uppercase();
    let intermediary = INTERMEDIARIES.iter().find(|i| upper.contains(*i));
    let is_bank = servicer.is_some_and(|s| s.trim().eq_ignore_ascii_case(party.trim()));
    if intermediary.is_none() && !is_bank {
        return Some(party.to_owned());
    }
    match remittance.and_then(merchant_in) {
        Some(merchant) => Some(match intermediary {
            Some(name) => format!("{name} *{merchant}"),
            None => merchant,
        }),
        None => Some(party.to_owned()),
    }
}

/// The merchant a remittance line names: after "Ihr Einkauf bei" and its
/// kin, else after PayPal's " . " separator, else the line without its
/// references (words with digits).
fn merchant_in(remittance: &str) -> Option<String> {
    let upper = remittance.to_uppercase();
    let after = MERCHANT_AFTER
        .iter()
        .find_map(|phrase| upper.find(phrase).map(|at| at + phrase.len()))
        .or_else(|| upper.find(" . ").map(|at| at + 3));
    let piece = match after {
        // Upper-casing can change byte lengths (ß); fall back to the whole
        // line rather than cut inside a character.
        Some(at) if remittance.is_char_boundary(at) && upper.len() == remittance.len() => {
            let rest = &remittance[at..];
            rest.split(',').next().unwrap_or(rest)
        }
        _ => remittance,
    };
    let words: Vec<&str> = piece
        .split_whitespace()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    let merchant = words.join(" ");
    // A trailing point may end "B.V.": only separators are trimmed there.
    let merchant = merchant
        .trim_start_matches('.')
        .trim_matches(|c: char| c == ',' || c == '/' || c == '-')
        .trim();
    (!merchant.is_empty()).then(|| merchant.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intermediaries_give_way_to_the_merchant() {
        let paypal = Some("PayPal Europe S.a.r.l. et Cie S.C.A");
        let bank = Some("Sparkasse KoelnBonn");
        /// Creditor, remittance line, the account's bank; the descriptor.
        type Case<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>, &'a str);
        let cases: &[Case] = &[
            (Some("Spotify AB"), Some("P123 Spotify"), None, "Spotify AB"),
            (
                paypal,
                Some(
                    "1040912345678 PP.4321.PP . Netflix International B.V., Ihr Einkauf bei Netflix International B.V.",
                ),
                None,
                "PAYPAL *Netflix International B.V.",
            ),
            (
                paypal,
                Some("1040912345679 PP.4321.PP . Spotify AB, Ihr Einkauf bei Spotify AB"),
                None,
                "PAYPAL *Spotify AB",
            ),
            (
                paypal,
                Some("PP.1234.PP . Disney Plus"),
                None,
                "PAYPAL *Disney Plus",
            ),
            (paypal, None, None, "PayPal Europe S.a.r.l. et Cie S.C.A"),
            (
                bank,
                Some("NETFLIX.COM 2024-01-05 4711"),
                bank,
                "NETFLIX.COM",
            ),
            (Some("Other"), None, bank, "Other"),
        ];
        for (party, remittance, servicer, want) in cases {
            assert_eq!(
                describe(*party, *remittance, None, *servicer).as_deref(),
                Some(*want),
                "{party:?} {remittance:?}"
            );
        }
        assert_eq!(
            describe(None, Some("R"), Some("I"), None).as_deref(),
            Some("R")
        );
    }
}
