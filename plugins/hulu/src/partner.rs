//! Who bills a Hulu subscription that hulu.com cannot cancel, read from the
//! Account page's own sentence ("You're billed through Roku"), and where that
//! partner lets a person cancel.
//!
//! The name comes from the page, so it is treated as untrusted text: only
//! letters, digits, spaces and `+ & ' . -` are kept, at most
//! [`NAME_MAX_WORDS`] words and [`NAME_MAX_CHARS`] characters. A known
//! partner is shown by its own name, never the page's spelling of it.

/// The sentences Hulu uses to name whoever bills the subscription.
const BILLED_PHRASES: &[&str] = &[
    "billed through",
    "billed by",
    "billed via",
    "billed directly by",
    "billing is managed by",
    "billing is handled by",
    "subscription is managed by",
];

/// Words before the phrase, in its clause, that make it say nothing about
/// this account: "if you're billed through a partner", "you're no longer
/// billed through Roku".
const NOT_A_STATEMENT: &[&str] = &[
    "if", "when", "whenever", "unless", "whether", "once", "not", "never", "no", "isn't", "aren't",
    "wasn't",
];

/// Words that end a partner's name: "Disney+ as part of the Disney Bundle",
/// "Verizon on your monthly bill". Only after the name's first word.
const NAME_ENDS_AT: &[&str] = &[
    "as", "to", "for", "so", "until", "on", "with", "and", "since", "because", "which", "who",
    "at", "from", "using", "via", "in", "under", "if", "when", "you", "your", "each", "every",
    "starting",
];

/// Characters that end a name wherever they stand. A full stop ends it only
/// before a space or the end of the text, so "Amazon.com" stays whole.
const NAME_STOPS: &[char] = &[
    ',', ';', ':', '(', ')', '[', ']', '"', '!', '?', '\n', '\u{201c}', '\u{201d}', '/', '|',
];

/// Longest name shown, in characters: a partner's name is short, a page
/// could put a paragraph there.
pub const NAME_MAX_CHARS: usize = 60;
/// Longest name shown, in words.
pub const NAME_MAX_WORDS: usize = 6;

/// Words of "names" that are the way Hulu itself is paid (a card, PayPal, a
/// gift card, Hulu), or a period or date ("billed by the month", "billed
/// through December 16"): none of them is a partner.
const NOT_PARTNERS: &[&str] = &[
    "month",
    "monthly",
    "year",
    "yearly",
    "annually",
    "week",
    "day",
    "date",
    "period",
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "jun",
    "june",
    "jul",
    "july",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
    "hulu",
    "visa",
    "mastercard",
    "amex",
    "american express",
    "discover",
    "paypal",
    "venmo",
    "card",
    "credit",
    "debit",
    "gift",
    "bank",
];

/// Words that describe a partner without naming it: "a partner", "your
/// mobile carrier", "a third-party provider".
const GENERIC_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "your",
    "our",
    "another",
    "other",
    "partner",
    "partners",
    "third",
    "party",
    "third-party",
    "provider",
    "carrier",
    "mobile",
    "wireless",
    "phone",
    "cable",
    "tv",
    "internet",
    "service",
    "company",
    "billing",
];

/// Where a partner lets a person cancel.
#[derive(Debug, Clone, Copy)]
enum Where {
    /// The whole instruction, for a partner with its own subscriptions page.
    Says(&'static str),
    /// "in your account with <name>": carriers, TV providers, retailers.
    AccountWith,
}

/// A partner Hulu is known to be billed through.
#[derive(Debug, Clone, Copy)]
struct Known {
    /// Whole words (or runs of words) in the page's name for it.
    needles: &'static [&'static str],
    name: &'static str,
    cancel: Where,
}

const KNOWN: &[Known] = &[
    Known {
        needles: &["apple", "itunes", "app store"],
        name: "Apple",
        cancel: Where::Says(
            "cancel it in your Apple account (iPhone or iPad: Settings → your name → \
             Subscriptions → Hulu), not on hulu.com",
        ),
    },
    Known {
        needles: &["google"],
        name: "Google Play",
        cancel: Where::Says(
            "cancel it in Google Play (play.google.com → Payments & subscriptions → \
             Subscriptions → Hulu), not on hulu.com",
        ),
    },
    Known {
        needles: &["roku"],
        name: "Roku",
        cancel: Where::Says(
            "cancel it in your Roku account (my.roku.com → Manage your subscriptions → Hulu), \
             not on hulu.com",
        ),
    },
    Known {
        needles: &["amazon"],
        name: "Amazon",
        cancel: Where::Says(
            "cancel it in your Amazon account (amazon.com → Your Memberships & Subscriptions → \
             Hulu), not on hulu.com",
        ),
    },
    Known {
        needles: &["disney"],
        name: "Disney+",
        cancel: Where::Says(
            "cancel it in your Disney+ account (disneyplus.com → your profile → Account → \
             Subscription), not on hulu.com",
        ),
    },
    Known {
        needles: &["spotify"],
        name: "Spotify",
        cancel: Where::Says(
            "change your Spotify plan in your Spotify account (spotify.com/account → \
             Manage your plan), not on hulu.com",
        ),
    },
    Known {
        needles: &["verizon"],
        name: "Verizon",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["t-mobile", "tmobile"],
        name: "T-Mobile",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["sprint"],
        name: "Sprint",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["at&t"],
        name: "AT&T",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["xfinity", "comcast"],
        name: "Xfinity",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["cox"],
        name: "Cox",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["spectrum", "charter"],
        name: "Spectrum",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["directv"],
        name: "DIRECTV",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["dish"],
        name: "DISH",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["sling"],
        name: "Sling TV",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["instacart"],
        name: "Instacart",
        cancel: Where::AccountWith,
    },
    Known {
        needles: &["walmart"],
        name: "Walmart+",
        cancel: Where::AccountWith,
    },
];

/// The failure reason when one of `texts` says the subscription is billed
/// through a partner, or `None` when none does (or names Hulu itself, or a
/// card).
pub fn billed_elsewhere(texts: &[&str]) -> Option<String> {
    texts
        .iter()
        .find_map(|text| partner_named(text))
        .map(|name| reason(&name))
}

/// The partner's name as `text` gives it, cleaned; `None` when no sentence
/// of `text` says who bills the subscription.
pub fn partner_named(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        // ASCII folding keeps every byte where it was: offsets stay valid.
        let folded = line.to_ascii_lowercase();
        for phrase in BILLED_PHRASES {
            let mut from = 0;
            while let Some(found) = folded[from..].find(phrase) {
                let start = from + found;
                let end = start + phrase.len();
                from = end;
                if !starts_word(&folded, start) || !is_statement(&folded[..start]) {
                    continue;
                }
                let mut name = read_name(&line[end..]);
                if name.is_empty() {
                    // "Billed through <strong>Roku</strong>": the name is the
                    // next element of the tree.
                    name = lines
                        .get(at + 1)
                        .map(|next| read_name(tree_value(next)))
                        .unwrap_or_default();
                }
                if !name.is_empty() && !is_not_a_partner(&name) {
                    return Some(name);
                }
            }
        }
    }
    None
}

/// The reason shown to the person: who bills it and where to cancel.
pub fn reason(name: &str) -> String {
    let folded = name.to_lowercase();
    if let Some(known) = KNOWN
        .iter()
        .find(|k| k.needles.iter().any(|n| has_word(&folded, n)))
    {
        return match known.cancel {
            Where::Says(how) => format!("billed through {}: {how}", known.name),
            Where::AccountWith => format!(
                "billed through {0}: cancel it in your account with {0}, not on hulu.com",
                known.name
            ),
        };
    }
    if is_generic(&folded) {
        return format!(
            "billed through {name}: cancel it with the company that bills you, not on hulu.com"
        );
    }
    format!("billed through {name}: cancel it with {name}, not on hulu.com")
}

fn starts_word(folded: &str, at: usize) -> bool {
    folded[..at]
        .chars()
        .next_back()
        .is_none_or(|c| !c.is_alphanumeric())
}

/// Whether the clause before a phrase leaves it a plain statement.
fn is_statement(before: &str) -> bool {
    let clause_start = before
        .rfind(['.', '!', '?', ';', ':', '"'])
        .map_or(0, |at| at + 1);
    !before[clause_start..]
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| w.replace('\u{2019}', "'"))
        .any(|w| NOT_A_STATEMENT.contains(&w.as_str()))
}

/// The value of one line of the tree's text: `- strong [ref=e1]: Roku` is
/// "Roku", `- link "Roku" [ref=e2]` is "Roku", a container line is "".
fn tree_value(line: &str) -> &str {
    let line = line.trim_start().trim_start_matches("- ");
    if let Some(open) = line.find('"') {
        let rest = &line[open + 1..];
        return rest.find('"').map_or(rest, |close| &rest[..close]);
    }
    line.split_once(": ").map_or("", |(_, value)| value)
}

/// The name at the start of `rest`, cleaned and bounded.
fn read_name(rest: &str) -> String {
    let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '-');
    let mut raw = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if NAME_STOPS.contains(&c) {
            break;
        }
        if c == '.' && chars.peek().is_none_or(|n| n.is_whitespace() || *n == '"') {
            break;
        }
        raw.push(c);
    }
    let mut words: Vec<String> = Vec::new();
    for word in raw.split_whitespace() {
        if word == "-" || word == "\u{2013}" || word == "\u{2014}" {
            break;
        }
        let word = clean_word(word);
        if word.is_empty() {
            continue;
        }
        if !words.is_empty() && NAME_ENDS_AT.contains(&word.to_lowercase().as_str()) {
            break;
        }
        words.push(word);
        if words.len() == NAME_MAX_WORDS {
            break;
        }
    }
    bound(&words.join(" "))
}

/// The word with only the characters a name may show.
fn clean_word(word: &str) -> String {
    word.chars()
        .map(|c| if c == '\u{2019}' { '\'' } else { c })
        .filter(|c| c.is_alphanumeric() || matches!(c, '+' | '&' | '\'' | '.' | '-'))
        .collect::<String>()
        .trim_matches(|c: char| matches!(c, '.' | '-' | '\'' | '&'))
        .to_owned()
}

/// At most [`NAME_MAX_CHARS`] characters, cut at a word where it can be.
fn bound(name: &str) -> String {
    if name.chars().count() <= NAME_MAX_CHARS {
        return name.to_owned();
    }
    let cut: String = name.chars().take(NAME_MAX_CHARS).collect();
    match cut.rfind(' ') {
        Some(space) if space > 0 => cut[..space].to_owned(),
        _ => cut,
    }
}

/// Whether `needle` stands in `folded` as whole words.
fn has_word(folded: &str, needle: &str) -> bool {
    folded.match_indices(needle).any(|(at, _)| {
        let before = folded[..at].chars().next_back();
        let after = folded[at + needle.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

/// Whether the "name" is no partner: a way of paying Hulu, a period, a date.
fn is_not_a_partner(name: &str) -> bool {
    let folded = name.to_lowercase();
    let known = KNOWN
        .iter()
        .any(|k| k.needles.iter().any(|n| has_word(&folded, n)));
    let dated = folded.starts_with(|c: char| c.is_ascii_digit());
    !known && (dated || NOT_PARTNERS.iter().any(|n| has_word(&folded, n)))
}

fn is_generic(folded: &str) -> bool {
    folded
        .split(|c: char| c.is_whitespace())
        .all(|w| GENERIC_WORDS.contains(&w))
}
