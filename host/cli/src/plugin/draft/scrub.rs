//! Personal data out of what a draft copies from a run's pages: a plugin
//! folder is meant to be shared, and the pages were the person's own
//! account. E-mail addresses, the name after "Signed in as", a card's last
//! four digits, phone numbers and long digit runs (account, order and
//! member numbers) become placeholders; typed passwords are masked by the
//! host's own masking first.
//!
//! Plain scanners rather than patterns: each rule is a few lines that can
//! neither fail to compile nor run away on a long page.

/// What an e-mail address becomes.
pub(crate) const EMAIL: &str = "someone@example.com";
/// What a name after "Signed in as" becomes.
pub(crate) const NAME: &str = "A. Person";
/// What a card's last four digits become.
pub(crate) const LAST_FOUR: &str = "0000";
/// What a phone number or a long digit run becomes.
pub(crate) const NUMBER: &str = "(number)";

/// Digits in one run (separators allowed) from which it is a phone or an
/// account number rather than a price or a date.
const MIN_GROUPED_DIGITS: usize = 7;
/// Digits in a row, with nothing between, from which it is a number that
/// names someone's account or order (a postcode, a member id).
const MIN_PLAIN_DIGITS: usize = 5;

/// Words that put a person's name after them.
const NAME_LEADS: &[&str] = &[
    "signed in as ",
    "logged in as ",
    "angemeldet als ",
    "connecté en tant que ",
];

/// What comes right before a card's last four digits.
const CARD_LEADS: &[&str] = &[
    "ending in",
    "ends in",
    "ending",
    "•",
    "*",
    "xx",
    "·",
    "visa",
    "mastercard",
    "amex",
    "card",
];

/// An accessibility tree with passwords and personal data masked.
pub(crate) fn tree(yaml: &str) -> String {
    text(&subterminator_core::page::mask::tree(yaml, &[]))
}

/// Any text with personal data masked.
pub(crate) fn text(input: &str) -> String {
    let masked = emails(input);
    let masked = names(&masked);
    let masked = card_digits(&masked);
    numbers(&masked)
}

fn is_local_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._%+-".contains(c)
}

fn is_domain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '.' || c == '-'
}

fn emails(input: &str) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '@' {
            let mut start = i;
            while start > 0 && is_local_char(chars[start - 1]) {
                start -= 1;
            }
            let mut end = i + 1;
            while end < chars.len() && is_domain_char(chars[end]) {
                end += 1;
            }
            // A trailing full stop ends the sentence, not the domain.
            while end > i + 1 && chars[end - 1] == '.' {
                end -= 1;
            }
            let domain: String = chars[i + 1..end].iter().collect();
            if start < i && domain.contains('.') {
                // The local part was already copied: take it back.
                let copied = i - start;
                for _ in 0..copied {
                    out.pop();
                }
                out.push_str(EMAIL);
                i = end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn names(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    loop {
        let lower = rest.to_lowercase();
        // Lower-casing can change byte lengths outside ASCII; only a match
        // whose position holds in the original is used.
        let found = NAME_LEADS
            .iter()
            .filter_map(|lead| lower.find(lead).map(|at| (at, lead.len())))
            .filter(|(at, len)| rest.is_char_boundary(*at) && rest.is_char_boundary(at + len))
            .min();
        let Some((at, len)) = found else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at + len]);
        let after = &rest[at + len..];
        let end = after
            .find(|c: char| {
                matches!(
                    c,
                    '"' | '\n' | '.' | ',' | '(' | ')' | '|' | ':' | ']' | '['
                )
            })
            .unwrap_or(after.len());
        let name = &after[..end];
        if name.trim().is_empty() {
            rest = after;
        } else {
            out.push_str(NAME);
            // The space before what follows the name stays.
            rest = &after[name.trim_end().len()..];
        }
    }
}

/// Exactly four digits right after a card's lead words become `0000`.
fn card_digits(input: &str) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_run = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_digit());
        let four = starts_run
            && i + 4 <= chars.len()
            && chars[i..i + 4].iter().all(char::is_ascii_digit)
            && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit());
        if four {
            let before: String = chars[i.saturating_sub(16)..i].iter().collect();
            let before = before.trim_end().to_lowercase();
            if CARD_LEADS.iter().any(|lead| before.ends_with(lead)) {
                out.push_str(LAST_FOUR);
                i += 4;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Phone numbers and long digit runs become [`NUMBER`]; prices, dates and
/// short numbers stay.
fn numbers(input: &str) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts = (c.is_ascii_digit() || c == '+' || c == '(')
            && (i == 0 || !chars[i - 1].is_ascii_alphanumeric());
        if starts {
            let end = run_end(&chars, i);
            let run: String = chars[i..end].iter().collect();
            if is_number_to_hide(&run) {
                out.push_str(NUMBER);
                i = end;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Where a run of digits and phone separators starting at `from` ends: at
/// its last digit.
fn run_end(chars: &[char], from: usize) -> usize {
    let mut last_digit = None;
    let mut j = from;
    while j < chars.len() && (chars[j].is_ascii_digit() || " -.()+".contains(chars[j])) {
        if chars[j].is_ascii_digit() {
            last_digit = Some(j);
        }
        j += 1;
    }
    last_digit.map_or(from, |d| d + 1)
}

fn is_number_to_hide(run: &str) -> bool {
    let digits = run.chars().filter(char::is_ascii_digit).count();
    let longest = run
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    let iso_date = run.len() == 10
        && run.chars().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    !iso_date && (digits >= MIN_GROUPED_DIGITS || longest >= MIN_PLAIN_DIGITS)
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn personal_data_becomes_placeholders() {
        let cases = [
            (
                "We've sent a confirmation to alex.doe+tv@mail.example.co.uk.",
                "We've sent a confirmation to someone@example.com.",
            ),
            (
                "- text: Signed in as Alex Doe",
                "- text: Signed in as A. Person",
            ),
            (
                "- paragraph: Logged in as alex (change)",
                "- paragraph: Logged in as A. Person (change)",
            ),
            ("Visa ending in 4242", "Visa ending in 0000"),
            (
                "Card •••• 1234 expires 12/27",
                "Card •••• 0000 expires 12/27",
            ),
            ("Mastercard 5555", "Mastercard 0000"),
            (
                "Call us on +1 (800) 555-0199 today",
                "Call us on (number) today",
            ),
            ("Member 123456789", "Member (number)"),
            ("Order #98765", "Order #(number)"),
            // What stays: prices, dates, short numbers, refs.
            (
                "€10.99 / month. Next bill on 21 December 2026.",
                "€10.99 / month. Next bill on 21 December 2026.",
            ),
            ("renews 2026-12-21", "renews 2026-12-21"),
            (
                "- button \"Cancel\" [ref=f1e21]",
                "- button \"Cancel\" [ref=f1e21]",
            ),
            ("3 months for 7.99", "3 months for 7.99"),
            ("an @ sign alone", "an @ sign alone"),
        ];
        for (input, want) in cases {
            assert_eq!(text(input), want, "{input}");
        }
    }
}
