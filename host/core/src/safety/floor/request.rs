//! How the floor reads a request — its path, its query, its form fields, a
//! WebSocket message — whatever its method or channel: the words that make
//! it a commit with no plugin at all.
//!
//! Where the line is (ARCHITECTURE.md, "What a request says"):
//!
//! - A request **commits** when its own words name the cancellation *and*
//!   doing it (`/membership/cancel/complete`, `cancel?step=submit`,
//!   `{"op":"cancelNow"}`, `/kündigung/jetzt`), or name ending the
//!   subscription outright (`action=end_subscription`), or accept an offer
//!   (`/offer/accept`).
//! - A request that only **opens** the flow (`/account/cancel`,
//!   `/cancel/survey`) or shows its **result** (`/cancel/done`,
//!   `/cancelled`, `/cancellation/ended`) does not: those are pages.
//! - **Asking** words ("confirm") count as doing everywhere but on a
//!   top-level page load the host itself asked for: `/cancel/confirm` is
//!   where real flows (and the bench's) show the final button, but a
//!   redirect hop, a script's request, a beacon or a message that says it
//!   is a commit.
//! - Addresses inside a query or a body (`return_to=/account/cancel`) say
//!   where to go next, not what to do: they are left out.
//!
//! The same regexes run in the browser (`guard.js`) and here, so the tables
//! below test the very patterns the guard uses. Text is read lowercased and
//! split into words at anything that is not a letter or a digit; a word
//! table entry is a regex over one word, a phrase table entry one over the
//! words joined by single spaces.

use std::sync::LazyLock;

use serde::Serialize;

use super::phrases::REQUEST_COMMIT_STEMS;

/// What a request says it does, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestReading {
    /// It ends the subscription (or does the cancellation's step).
    Commits,
    /// It changes what the person pays: accepts an offer, pauses, switches.
    ChangesBilling,
    /// It names the cancellation and asks to confirm it: a commit anywhere
    /// but a top-level page the host loads.
    Confirms,
}

/// The regexes, as both engines read them (`regex` and JavaScript's `u`
/// flag): only literals, `|`, groups, classes of literal characters, `^`,
/// `$` and `?`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RequestWords {
    /// A word that names the cancellation (anywhere inside the word:
    /// `confirmCancel` is one word).
    pub stems: String,
    /// A word that says "do it" (anywhere inside the word).
    pub acts: String,
    /// A whole word that says "do it" (too short to find inside others).
    pub act_words: String,
    /// A word that asks to confirm (anywhere inside the word).
    pub asks: String,
    /// Phrases that end the subscription on their own.
    pub whole: String,
    /// A word that names an offer, a pause or another plan.
    pub billing_things: String,
    /// A word that takes one.
    pub billing_acts: String,
}

/// The floor's request stems that are not billing words ([`BILLING_ACTS`]
/// reads those): what names the cancellation.
const NOT_CANCELLING: &[&str] = &[
    "downgrad",
    "pause",
    "churn",
    "end[-_ ]?subscription",
    "end[-_ ]?membership",
];

/// Stems the floor's request stems lack: Italian "disdici", Finnish
/// "peruuttaa", Czech "zrušit" without its háček, Arabic "الغاء" without
/// its hamza, Hebrew "לבטל".
const MORE_STEMS: &[&str] = &["disdic", "peruut", "peruu", "zrus", "الغاء", "לבטל"];

/// Cancellation stems, from the services' own wording.
fn stems() -> Vec<&'static str> {
    REQUEST_COMMIT_STEMS
        .iter()
        .copied()
        .filter(|s| !NOT_CANCELLING.contains(s))
        .chain(MORE_STEMS.iter().copied())
        .collect()
}

/// "Do it", found inside a word: English "complete", "submit", "process",
/// "execute", "perform"; German "abschließen"
/// ("Kündigung abschließen"), "jetzt" (§312k BGB's "jetzt kündigen"),
/// "beenden", "durchführen"; French "valider", "terminer"; Spanish and
/// Portuguese "finalizar", "completar", "concluir", "tramitar"; Italian
/// "concludi", "completa"; Dutch "afronden", "voltooi"; Polish "zakończ";
/// Czech "dokonč"; Swedish "slutför"; Danish "fuldfør", "gennemfør";
/// Norwegian "fullfør"; Finnish "viimeistele"; Turkish "tamamla"; Russian
/// "заверш"; Arabic "إتمام"; Hebrew "סיום"; Japanese "完了", "手続";
/// Chinese "完成", "确定"; Korean "완료". Result words ("done",
/// "completed", "ended", "cancelled") are pages, not acts: `complete` is
/// read only when no `d` follows.
const ACTS: &[&str] = &[
    "complete[^d]",
    "complete$",
    "completion",
    "finaliz",
    "finalis",
    "submit",
    "process",
    "execut",
    "perform",
    "abschließ",
    "abschliess",
    "jetzt",
    "beenden",
    "durchführ",
    "durchfuhr",
    "valider",
    "terminer",
    "completar",
    "concluir",
    "tramitar",
    "concludi",
    "completa",
    "afronden",
    "voltooi",
    "zakończ",
    "zakoncz",
    "dokonč",
    "dokonc",
    "slutför",
    "slutfor",
    "fuldfør",
    "gennemfør",
    "fullfør",
    "viimeistel",
    "tamamla",
    "заверш",
    "إتمام",
    "اتمام",
    "סיום",
    "完了",
    "手続",
    "完成",
    "确定",
    "완료",
];

/// "Do it", as a whole word: "now", "yes", "do", "go", "end", "ok" and
/// their kind ("ahora", "agora", "ora", "nu", "nå", "nyt", "teraz",
/// "şimdi", "сейчас", "الآن", "עכשיו", "sofort").
const ACT_WORDS: &[&str] = &[
    "now",
    "yes",
    "do",
    "end",
    "ok",
    "sofort",
    "ahora",
    "agora",
    "ora",
    "nu",
    "nå",
    "nyt",
    "teraz",
    "şimdi",
    "simdi",
    "сейчас",
    "الآن",
    "עכשיו",
];

/// Asking to confirm, or naming the last step: "final", "finish",
/// "proceed", "confirm" (French "confirmer", Spanish and
/// Portuguese "confirmar"), Italian "conferma", German "bestätigen", Dutch
/// "bevestig", Polish "potwierdź", Czech "potvrď", Swedish "bekräfta",
/// Danish "bekræft", Norwegian "bekreft", Finnish "vahvista", Turkish
/// "onayla", Russian "подтверд", Arabic "تأكيد", Hebrew "אישור", Japanese
/// "確認", Chinese "确认", Korean "확인".
const ASKS: &[&str] = &[
    // The last page's own names: a page a flow loads ("/cancellation/final"
    // is Amazon's), a step anywhere else.
    "final",
    "finish",
    "proceed",
    "confirm",
    "conferm",
    "bestätig",
    "bestatig",
    "bevestig",
    "potwierd",
    "potvr",
    "bekräfta",
    "bekrafta",
    "bekræft",
    "bekreft",
    "vahvist",
    "onayla",
    "подтверд",
    "تأكيد",
    "تاكيد",
    "אישור",
    "確認",
    "确认",
    "확인",
];

/// Ending the subscription, said outright (`action=end_subscription`,
/// `endMembership`, `cancelNow` written as one word, `_method=delete` on
/// a subscription).
const WHOLE: &[&str] = &[
    "end ?(my )?(subscription|membership|plan|contract)",
    "stop ?(my )?(subscription|membership)",
    "delete ?(my )?(subscription|membership)",
    "cancelnow",
    "kündigenjetzt",
    "jetztkündigen",
];

/// What a billing change is about: an offer, a discount, a pause, a plan
/// to switch to ("Angebot", "Rabatt", "offre", "oferta", "sconto",
/// "aanbieding", "oferta", "erbjudande", "tilbud", "tarjous", "teklif",
/// "предложение", "скидк", "割引", "优惠", "할인"); and the retention
/// trade's own names for the offer made to someone leaving: a loyalty
/// offer or reward, a win-back, German telecoms' "Treuebonus", French
/// operators' "offre fidélité", Spanish "fidelización", Italian "fedeltà".
/// A button may say "jetzt kündigen" while its form accepts such an offer.
const BILLING_THINGS: &[&str] = &[
    "loyal",
    "winback",
    "treue",
    "fidélit",
    "fidelit",
    "fideliz",
    "fedelt",
    "offer",
    "discount",
    "coupon",
    "promo",
    "deal",
    "angebot",
    "rabatt",
    "offre",
    "oferta",
    "sconto",
    "aanbieding",
    "korting",
    "erbjudand",
    "tilbud",
    "tarjou",
    "teklif",
    "предложен",
    "скидк",
    "割引",
    "优惠",
    "할인",
];

/// Taking one: accepting, redeeming, claiming, applying; pausing,
/// downgrading, switching ("annehmen", "einlösen", "accepter", "aceptar",
/// "aceitar", "accetta", "accepteer", "akceptuj", "acceptera", "accepter",
/// "kabul", "принять", "pausieren", "wechseln").
const BILLING_ACTS: &[&str] = &[
    "accept",
    "redeem",
    "claim",
    "apply",
    "annehm",
    "einlös",
    "akzept",
    "aceptar",
    "aceitar",
    "accetta",
    "accepteer",
    "akceptuj",
    "kabul",
    "принять",
    "pause",
    "pausier",
    "pausar",
    "downgrad",
    "switch",
    "wechsel",
];

static WORDS: LazyLock<RequestWords> = LazyLock::new(|| RequestWords {
    stems: any_of(&stems()),
    acts: any_of(ACTS),
    act_words: format!("^({})$", ACT_WORDS.join("|")),
    asks: any_of(ASKS),
    whole: format!("(^| ){}", any_of(WHOLE)),
    billing_things: any_of(BILLING_THINGS),
    billing_acts: any_of(BILLING_ACTS),
});

fn any_of(items: &[&str]) -> String {
    format!("({})", items.join("|"))
}

/// The regexes the guard runs in the browser.
pub fn request_words() -> RequestWords {
    WORDS.clone()
}

impl RequestWords {
    /// As the guard's rules take them: (name, regex), the names
    /// `browser::guard::READING_KEYS`.
    pub fn pairs(&self) -> Vec<(String, String)> {
        [
            ("stems", &self.stems),
            ("acts", &self.acts),
            ("act_words", &self.act_words),
            ("asks", &self.asks),
            ("whole", &self.whole),
            ("billing_things", &self.billing_things),
            ("billing_acts", &self.billing_acts),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect()
    }
}

struct Compiled {
    stems: regex::Regex,
    acts: regex::Regex,
    act_words: regex::Regex,
    asks: regex::Regex,
    whole: regex::Regex,
    billing_things: regex::Regex,
    billing_acts: regex::Regex,
}

static COMPILED: LazyLock<Option<Compiled>> = LazyLock::new(|| {
    let w = &*WORDS;
    let re = |s: &str| regex::Regex::new(s).ok();
    Some(Compiled {
        stems: re(&w.stems)?,
        acts: re(&w.acts)?,
        act_words: re(&w.act_words)?,
        asks: re(&w.asks)?,
        whole: re(&w.whole)?,
        billing_things: re(&w.billing_things)?,
        billing_acts: re(&w.billing_acts)?,
    })
});

/// The words of `text` as the guard reads them: lowercased, split at
/// anything that is not a letter or a digit. (`guard.js` splits with
/// `/[^\p{L}\p{N}]+/u` after `toLowerCase()`.)
pub fn request_tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The text of a request the floor reads, as `personText` in `guard.js`
/// builds it: the decoded path, then the query's names and values less the
/// addresses among them (`return_to=/account/cancel` says where to go
/// next, not what to do).
pub fn url_request_text(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    let path = percent_decoded(parsed.path());
    let mut out = vec![path];
    for (name, value) in parsed.query_pairs() {
        out.push(name.into_owned());
        if !(value.starts_with('/') || value.contains("://")) {
            out.push(value.into_owned());
        }
    }
    out.join(" ")
}

fn percent_decoded(text: &str) -> String {
    let bytes: Vec<u8> = text.bytes().collect();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What `text` (a request's path, its query and fields with the addresses
/// left out, decoded; or a message) says it does; `None` for a request
/// that opens a page, shows a result, or says nothing of the cancellation.
/// The same rule as `readRequest` in `guard.js`.
pub fn read_request(text: &str) -> Option<RequestReading> {
    let c = COMPILED.as_ref()?;
    let tokens = request_tokens(text);
    let joined = tokens.join(" ");
    let any = |re: &regex::Regex| tokens.iter().any(|t| re.is_match(t));
    if c.whole.is_match(&joined) {
        return Some(RequestReading::Commits);
    }
    let stem = any(&c.stems);
    if stem && (any(&c.acts) || any(&c.act_words)) {
        return Some(RequestReading::Commits);
    }
    let billing = any(&c.billing_acts);
    let doing = any(&c.acts) || any(&c.act_words) || any(&c.asks);
    if billing && (any(&c.billing_things) || doing) {
        return Some(RequestReading::ChangesBilling);
    }
    if stem && any(&c.asks) {
        return Some(RequestReading::Confirms);
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use RequestReading::*;

    /// Written apart from the tables: real sites' addresses and fields,
    /// and phrasings from each language's grammar.
    const CASES: &[(&str, Option<RequestReading>)] = &[
        // Commits, with no plugin.
        ("/membership/cancel/complete", Some(Commits)),
        (
            "/membership/cancel/complete reason too_expensive",
            Some(Commits),
        ),
        ("/account/subscription/cancel/submit", Some(Commits)),
        ("/api/v2/cancelSubscription?step=finish", Some(Confirms)),
        ("/api/v2/cancelSubscription?step=submit", Some(Commits)),
        ("/mc/pipelines/cancellation/final", Some(Confirms)),
        ("/account action end_subscription", Some(Commits)),
        ("/settings endMembership", Some(Commits)),
        ("/cancel-now", Some(Commits)),
        ("/cancelnow", Some(Commits)),
        (
            "{\"type\":\"subscription.cancel\",\"confirm\":true,\"execute\":1}",
            Some(Commits),
        ),
        ("/vertrag/kündigen/jetzt", Some(Commits)),
        ("/kuendigung/abschliessen", Some(Commits)),
        ("/abonnement/resilier/valider", Some(Commits)),
        ("/suscripcion/cancelar/finalizar", Some(Commits)),
        ("/assinatura/cancelar/concluir", Some(Commits)),
        ("/abbonamento/disdetta/concludi", Some(Commits)),
        ("/lidmaatschap/opzeggen/afronden", Some(Commits)),
        ("/subskrypcja/anuluj/zakończ", Some(Commits)),
        ("/predplatne/zrušit/dokončit", Some(Commits)),
        ("/prenumeration/avsluta/slutför", Some(Commits)),
        ("/medlemskab/opsig/gennemfør", Some(Commits)),
        ("/tilaus/irtisano/viimeistele", Some(Commits)),
        ("/abonelik/iptal/tamamla", Some(Commits)),
        ("/podpiska/отменить/завершить", Some(Commits)),
        ("/会員/解約/完了", Some(Commits)),
        ("/订阅/取消/完成", Some(Commits)),
        ("/구독/해지/완료", Some(Commits)),
        ("/الاشتراك/إلغاء/إتمام", Some(Commits)),
        ("/מנוי/ביטול/סיום", Some(Commits)),
        ("/cancel do 1", Some(Commits)),
        // Asking to confirm: a commit anywhere but a page the host loads.
        ("/account/cancel/confirm", Some(Confirms)),
        ("/cancelplan?confirmed=1", Some(Confirms)),
        ("/kündigung/bestätigen", Some(Confirms)),
        ("/解約/確認", Some(Confirms)),
        // Billing changes.
        ("/offer/accept", Some(ChangesBilling)),
        ("/account/cancel/offer/accept", Some(ChangesBilling)),
        ("/account/pause/confirm", Some(ChangesBilling)),
        ("/weekend subscription", None),
        ("/account/pause", None),
        ("/angebot/annehmen", Some(ChangesBilling)),
        ("/promo redeem", Some(ChangesBilling)),
        // A retention offer under the cancellation's own path, whatever
        // its button says.
        ("/retention/loyalty-offer/accept", Some(ChangesBilling)),
        ("/account/cancel/loyalty/accept", Some(ChangesBilling)),
        ("/kuendigung/treuebonus/annehmen", Some(ChangesBilling)),
        ("/résiliation/offre-fidélité/accepter", Some(ChangesBilling)),
        ("/baja/oferta-fidelizacion/aceptar", Some(ChangesBilling)),
        ("/winback/claim", Some(ChangesBilling)),
        // The cancellation itself, with the retention team's page named.
        ("/account/cancel/loyalty", None),
        // Openers and results: pages.
        ("/account/cancel", None),
        ("/account/cancel/", None),
        ("/cancel/survey", None),
        ("/account/cancel/done", None),
        ("/cancelplan/done", None),
        ("/subscription/canceled", None),
        ("/paid_memberships/cancelled", None),
        ("/mc/pipelines/cancellation/ended", None),
        ("/account/cancel/completed", None),
        ("/konto/kündigen", None),
        ("/help/cancellation-policy", None),
        ("/account", None),
        // Ordinary requests with look-alike words.
        ("/api/send-event", None),
        ("/weekend/now-playing", None),
        ("/offers", None),
        ("/snowboard/final-sale", None),
        ("/frontend/process.js", None),
        ("", None),
    ];

    #[test]
    fn what_requests_say_table() {
        for (text, want) in CASES {
            assert_eq!(read_request(text), *want, "{text:?}");
        }
    }

    #[test]
    fn every_regex_compiles_in_the_crate_as_in_the_browser() {
        assert!(COMPILED.is_some());
        let w = request_words();
        for re in [
            &w.stems,
            &w.acts,
            &w.act_words,
            &w.asks,
            &w.whole,
            &w.billing_things,
            &w.billing_acts,
        ] {
            // Nothing either engine reads differently.
            for forbidden in ["\\b", "\\w", "\\d", "\\s", "(?", "\\p"] {
                assert!(!re.contains(forbidden), "{re} uses {forbidden}");
            }
        }
    }

    #[test]
    fn a_urls_text_leaves_addresses_out_and_decodes_the_path() {
        let text = url_request_text(
            "https://x.test/konto/k%C3%BCndigen/jetzt?return_to=%2Faccount%2Fcancel%2Fconfirm&src=mail",
        );
        assert_eq!(text, "/konto/kündigen/jetzt return_to src mail");
        assert_eq!(read_request(&text), Some(Commits));
        let opener = url_request_text("https://x.test/signin?return_to=/account/cancel/submit");
        assert_eq!(read_request(&opener), None, "{opener}");
    }

    #[test]
    fn words_split_as_the_browser_splits_them() {
        assert_eq!(
            request_tokens("/Account/cancel-Now?x=1&end_membership"),
            ["account", "cancel", "now", "x", "1", "end", "membership"]
        );
        assert_eq!(request_tokens("/解約/確認"), ["解約", "確認"]);
    }
}
