//! Whether a page says the cancellation went through, read by the host from
//! the page's visible text rather than taken from the model or a plugin.
//!
//! Two kinds of page say success-like things without meaning them: the
//! confirmation and offer pages ("your membership ends on March 3" is shown
//! *before* the last click), and the failure pages ("your membership was not
//! cancelled"). The first are told apart by [`is_end_date_only`]; the second
//! by reading negation in the same clause, and by answering Negated when any
//! one sentence of the page is a failure, whatever the others say.

use std::sync::LazyLock;

use super::floor::{Pattern, words};
use crate::page::yaml::{json_string, scalar, single_quoted, split_key};

/// Claims that a page shows before the final step as well as after it: an
/// end date, an invitation back, a farewell. Alone they prove nothing.
const END_DATE_ONLY: &[&str] = &[
    // Future tense: "will be cancelled at the end of your billing period".
    "be cancelled",
    "will end",
    "will expire",
    "ends on",
    "end on",
    "ending on",
    "expires on",
    "expire on",
    "access until",
    "watching until",
    "until the end of",
    "restart ~ anytime",
    "restart ~ any time",
    "resume ~ anytime",
    "resume ~ any time",
    "rejoin ~ anytime",
    "rejoin ~ any time",
    "re-join ~ anytime",
    "come back anytime",
    "sorry to see you go",
    "sad to see you go",
    "hate to see you go",
    "sorry to see you leave",
    "hate to see you leave",
];

/// Claims that only a page after the final step makes.
const DEFINITE: &[&str] = &[
    "cancellation ~ complete*",
    "cancellation ~ confirmed",
    "cancellation ~ successful*",
    "cancellation ~ processed",
    "processed your cancellation",
    "processed your request",
    // "canceled" too: the words are read with one spelling.
    "cancelled",
    "unsubscribed",
    "has been terminated",
    "has been deactivated",
    "has ended",
    "gekündigt",
    "kündigung ~ bestätigt",
    "résilié",
    "résiliée",
    "annulé",
    "annulée",
    "résiliation ~ confirmée",
    "cancelada",
    "cancelado",
    "annullato",
    "annullata",
    "disdetta ~ confermata",
    // "Disdire" is what Italian sites say of a subscription ("disdetta
    // abbonamento"): "il tuo abbonamento è stato disdetto".
    "stato disdetto",
    "stata disdetta",
    // The acknowledgement of receipt Art. 11a(4) of Directive 2011/83/EU
    // (as amended by 2023/2673) requires after "confirm withdrawal", and
    // the one German sites give after "jetzt kündigen" (§312k BGB).
    "received your withdrawal",
    "withdrawal ~ received",
    "withdrawal ~ confirmed",
    "widerruf ~ eingegangen",
    "widerruf ~ bestätigt",
    "kündigung ~ eingegangen",
    "rétractation ~ enregistrée",
    "rétractation ~ confirmée",
    "opgezegd",
    "beëindigd",
    // Portuguese, Polish, Czech, Swedish, Danish, Norwegian, Finnish,
    // Turkish, Russian, Arabic, Hebrew, Japanese, Chinese, Korean.
    "cancelamento ~ confirmado",
    "anulowano",
    "została anulowana",
    "zostało anulowane",
    "zostala anulowana",
    "anulowanie ~ zakończone",
    "bylo ~ zrušeno",
    "byla ~ zrušena",
    "bylo ukončeno",
    "zrušení ~ potvrzeno",
    "har ~ avslutats",
    "har ~ sagts upp",
    "uppsägningen ~ bekräftad",
    "er ~ opsagt",
    "er blevet ~ opsagt",
    "opsigelsen ~ bekræftet",
    "er ~ sagt opp",
    "er ~ avsluttet",
    "oppsigelsen ~ bekreftet",
    "on ~ peruutettu",
    "on ~ irtisanottu",
    "peruutus ~ vahvistettu",
    "iptal edildi",
    "iptal işlemi tamamlandı",
    "iptaliniz onaylandı",
    "отменена",
    "отменено",
    "отмена ~ подтверждена",
    "تم إلغاء",
    "تم الإلغاء",
    "تم الالغاء",
    "בוטל",
    "בוטלה",
    "解約されました",
    "解約が完了",
    "解約手続きが完了",
    "キャンセルされました",
    "キャンセルが完了",
    "退会しました",
    "已取消",
    "取消成功",
    "已退订",
    "해지되었*",
    "해지가 완료*",
    "취소되었*",
];

/// Words that turn a claim around when they come before it in its clause,
/// or inside it ("cancellation is not complete").
const NEGATIONS: &[&str] = &[
    "not",
    "never",
    "nothing",
    "none",
    "cannot",
    "can't",
    "couldn't",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "wasn't",
    "weren't",
    "aren't",
    "hasn't",
    "haven't",
    "hadn't",
    "won't",
    "wouldn't",
    "shouldn't",
    "unable",
    "fail*",
    "error*",
    "unsuccessful*",
    "incomplete",
    "nicht",
    "kein*",
    "pas",
    "jamais",
    "no",
    "non",
    "nunca",
    "não",
    "niet",
    "geen",
    "impossible",
    "imposible",
    "impossibile",
    "nie",
    "ne",
    "nebylo",
    "nebyla",
    "nepodařilo",
    "inte",
    "ej",
    "ikke",
    "ei",
    "değil",
    "edilemedi",
    "başarısız",
    "не",
    "لم",
    "لا",
    "לא",
    "ない",
    "ません",
    "失敗",
    "未",
    "没有",
    "失败",
    "无法",
    "않*",
    "못*",
    "실패*",
];

/// Words that turn a claim around when they follow it closely
/// ("cancellation failed", "cancellation could not be completed").
/// "cannot" is left out: "this cancellation cannot be undone" is a warning.
const FAILURES_AFTER: &[&str] = &[
    "fail*",
    "unsuccessful*",
    "error*",
    "incomplete",
    "not",
    "couldn't",
    "didn't",
    "wasn't",
    "isn't",
    "hasn't",
    "nicht",
    "pas",
    "non",
    "niet",
    "nie",
    "inte",
    "ikke",
    "ei",
    "edilemedi",
    "не",
    "لم",
    "לא",
    "できません",
    "できませんでした",
    "失敗",
    "失败",
    "않*",
    "실패*",
];

/// "Failed", as each language's interface says it (German
/// "fehlgeschlagen", French "échoué", "échec", Spanish "falló", "fallido",
/// Portuguese "falhou", Italian "fallito", Dutch "mislukt", Polish
/// "nieudany", "niepowodzenie", Czech "selhalo", Swedish "misslyckades",
/// Danish "mislykkedes", Norwegian "mislyktes", Finnish "epäonnistui",
/// Russian "ошибка", Arabic "فشل", Hebrew "נכשל"): a negation before a
/// claim, and a failure after it.
const FAILED: &[&str] = &[
    "fehlgeschlagen",
    "échoué*",
    "échec",
    "falló",
    "fallid*",
    "falhou",
    "fallit*",
    "mislukt",
    "nieudan*",
    "niepowodzenie",
    "selhal*",
    "misslyckades",
    "mislykkedes",
    "mislyktes",
    "epäonnistui",
    "ошибк*",
    "فشل",
    "נכשל*",
];

/// Words after which a claim is a condition, not a statement ("once
/// cancelled, you lose your profiles"): such a claim affirms nothing and
/// negates nothing.
const HEDGES: &[&str] = &[
    "if", "once", "when", "unless", "before", "after", "wenn", "sobald", "zodra", "jeśli",
    "jeżeli", "hvis", "jos", "pokud", "eğer", "если", "إذا", "אם",
];

/// Words after a claim, in its clause, that make it a condition or a
/// promise of what continuing will do ("has been cancelled *only after you*
/// confirm", "will be cancelled *if* you continue"): it then affirms
/// nothing.
const CONDITIONS_AFTER: &[&str] = &[
    "if",
    "when you",
    "once you",
    "after you",
    "only after",
    "only when",
    "only if",
    "unless",
    "as soon as you",
    "wenn",
    "sobald",
    "nachdem",
    "lorsque",
    "quand vous",
    "une fois",
    "cuando",
    "una vez",
    "quando",
    "dopo che",
    "zodra",
    "jeśli",
    "jeżeli",
    "gdy",
    "när",
    "hvis",
    "når",
    "jos",
    "pokud",
    "když",
    "eğer",
    "если",
    "когда",
    "после того",
];

/// Words after a claim read for a condition.
const CONDITION_WORDS_MAX: usize = 6;

/// Words that end the reach of a negation: "you won't be charged *after*
/// your membership ends on March 3" does not negate the end date.
const SCOPE_BREAKS: &[&str] = &[
    "and", "but", "after", "until", "because", "since", "so", "while", "although", "though",
    "however", "then", "und", "aber", "mais", "pero", "ma", "maar",
];

/// What the request was about, for failure sentences that name no success
/// phrase ("we could not cancel your plan").
const TOPICS: &[&str] = &[
    "cancel*",
    "process*",
    "complet*",
    "unsubscrib*",
    "terminat*",
    "deactivat*",
    "kündig*",
    "résili*",
    "annul*",
    "disdi*",
    "withdraw*",
    "widerruf*",
    "rétract*",
    "opzeg*",
    "anul*",
    "zruš*",
    "avslut*",
    "uppsäg*",
    "opsig*",
    "oppsig*",
    "peruut*",
    "iptal*",
    "отмен*",
    "إلغاء",
    "الإلغاء",
    "ביטול",
    "解約",
    "キャンセル",
    "取消",
    "해지*",
];

/// Negations that make a failure sentence when they come just before a topic.
/// "don't" is left out: "Don't cancel" is a button, not a failure.
const FAILURES_BEFORE: &[&str] = &[
    "not",
    "never",
    "cannot",
    "can't",
    "couldn't",
    "unable to",
    "failed to",
    "didn't",
    "wasn't",
    "weren't",
    "hasn't",
    "haven't",
    "error",
    "nicht",
    "pas",
    "no se pudo",
    "no pudimos",
    "impossible de",
    "impossibile",
    "nie udało się",
    "nepodařilo se",
    "kunde inte",
    "kunne ikke",
    "ei voitu",
    "не удалось",
    "لم يتم",
    "לא ניתן",
    "未能",
];

/// Words a negation may stand from its topic ("could not *process your*
/// cancellation" is covered by "process*" itself, so one is enough).
const FAILURE_BEFORE_GAP_WORDS_MAX: usize = 1;

/// Words a failure may follow its topic ("cancellation *request was*
/// unsuccessful").
const FAILURE_AFTER_GAP_WORDS_MAX: usize = 2;

/// Words after a claim that are read for a failure.
const FAILURE_AFTER_WORDS_MAX: usize = 2;

/// Words before a claim that are read for a hedge.
const HEDGE_WORDS_MAX: usize = 4;

/// Roles whose value is what somebody typed (the model included), not what
/// the page says.
const TYPED_ROLES: &[&str] = &["textbox", "searchbox", "spinbutton"];

/// Roles that list choices of which only the selected one is shown.
const CHOICE_ROLES: &[&str] = &["combobox"];

/// Roles whose name is an alternative text, not shown on the page.
const UNSHOWN_NAME_ROLES: &[&str] = &["img", "image"];

/// Roles whose words are a way somewhere or a control, never what the page
/// says has happened: a link "Cancelled State", a button "Cancelled?",
/// a menu, the site's navigation. Their whole subtree is left out.
const CONTROL_ROLES: &[&str] = &[
    "link",
    "button",
    "navigation",
    "menu",
    "menubar",
    "menuitem",
    "tab",
    "tablist",
];

/// What a page claims about the cancellation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The page says it is cancelled; the phrase as written in the table.
    /// Ask [`is_end_date_only`] whether the phrase alone proves it.
    Affirmed(&'static str),
    /// Some sentence says it did not happen.
    Negated {
        phrase: &'static str,
        negation: &'static str,
    },
    Absent,
}

struct Tables {
    /// End-date phrases first: they take "be cancelled" before "cancelled"
    /// can.
    claims: Vec<(Pattern, bool)>,
    negations: Vec<Pattern>,
    failures_after: Vec<Pattern>,
    hedges: Vec<Pattern>,
    conditions_after: Vec<Pattern>,
    scope_breaks: Vec<Pattern>,
    /// Each topic, with the topic and a failure read together: a part that
    /// names no topic is not read further.
    failures: Vec<(Pattern, Vec<(Pattern, &'static str)>)>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let topics = compile(TOPICS);
    let before = compile(FAILURES_BEFORE);
    let after: Vec<Pattern> = compile(FAILURES_AFTER)
        .into_iter()
        .chain(compile(FAILED))
        .collect();
    let failures = topics
        .into_iter()
        .map(|topic| {
            let negation_first = before.iter().map(|negation| {
                let both =
                    Pattern::pair(topic.phrase, negation, FAILURE_BEFORE_GAP_WORDS_MAX, &topic);
                (both, negation.phrase)
            });
            let topic_first = after.iter().map(|failure| {
                let both =
                    Pattern::pair(topic.phrase, &topic, FAILURE_AFTER_GAP_WORDS_MAX, failure);
                (both, failure.phrase)
            });
            let pairs = negation_first.chain(topic_first).collect();
            (topic, pairs)
        })
        .collect();
    let end_date_only = END_DATE_ONLY.iter().map(|p| (Pattern::new(p), false));
    let definite = DEFINITE.iter().map(|p| (Pattern::new(p), true));
    Tables {
        claims: end_date_only.chain(definite).collect(),
        negations: compile(NEGATIONS)
            .into_iter()
            .chain(compile(FAILED))
            .collect(),
        failures_after: after,
        hedges: compile(HEDGES),
        conditions_after: compile(CONDITIONS_AFTER),
        scope_breaks: compile(SCOPE_BREAKS),
        failures,
    }
});

fn compile(table: &'static [&'static str]) -> Vec<Pattern> {
    table.iter().map(|phrase| Pattern::new(phrase)).collect()
}

/// Whether a phrase of an [`Claim::Affirmed`] is one that pages show before
/// the final step too (an end date, "restart anytime", "sorry to see you
/// go"), so that it proves the cancellation only on a page that offers no
/// further step.
pub fn is_end_date_only(phrase: &str) -> bool {
    END_DATE_ONLY.contains(&phrase)
}

/// Whether `text` says the membership, subscription or plan is cancelled.
/// Questions claim nothing; a negated claim or a failure sentence anywhere
/// makes the answer Negated; otherwise a definite claim is preferred to an
/// end-date one.
pub fn success_claim(text: &str) -> Claim {
    let tables = &*TABLES;
    let mut affirmed = Vec::new();
    for part in parts(text) {
        let tokens = words(part);
        if let Some(negated) =
            claims(tables, &tokens, &mut affirmed).or_else(|| failure(tables, &tokens))
        {
            return negated;
        }
    }
    let definite = affirmed.iter().find(|(_, is_definite)| *is_definite);
    match definite.or(affirmed.first()) {
        Some((phrase, _)) => Claim::Affirmed(phrase),
        None => Claim::Absent,
    }
}

/// The claims of one part, pushed to `affirmed` with whether each is
/// definite; or the first of them that is negated.
fn claims(
    tables: &Tables,
    tokens: &[String],
    affirmed: &mut Vec<(&'static str, bool)>,
) -> Option<Claim> {
    let mut taken = vec![false; tokens.len()];
    for (pattern, is_definite) in &tables.claims {
        for (start, end) in pattern.find_all(tokens) {
            let span = taken.get_mut(start..end).unwrap_or_default();
            if span.iter().any(|t| *t) {
                continue;
            }
            span.fill(true);
            if hedged(tables, tokens, start) {
                continue;
            }
            if let Some(negation) = negation(tables, tokens, start, end) {
                return Some(Claim::Negated {
                    phrase: pattern.phrase,
                    negation,
                });
            }
            if conditioned(tables, tokens, end) {
                continue;
            }
            affirmed.push((pattern.phrase, *is_definite));
        }
    }
    None
}

/// A failure sentence in one part ("we could not cancel your plan").
fn failure(tables: &Tables, tokens: &[String]) -> Option<Claim> {
    let in_scope = |pattern: &Pattern| {
        pattern.find_all(tokens).into_iter().any(|(start, end)| {
            let span = tokens.get(start..end).unwrap_or_default();
            !has(&tables.scope_breaks, span) && !hedged(tables, tokens, start)
        })
    };
    tables
        .failures
        .iter()
        .filter(|(topic, _)| topic.find(tokens, 0).is_some())
        .find_map(|(topic, pairs)| {
            let (_, negation) = pairs.iter().find(|(both, _)| in_scope(both))?;
            Some(Claim::Negated {
                phrase: topic.phrase,
                negation,
            })
        })
}

/// Whether a condition follows the claim that ends at `end` in its clause.
fn conditioned(tables: &Tables, tokens: &[String], end: usize) -> bool {
    let after = tokens.get(end..tokens.len().min(end + CONDITION_WORDS_MAX));
    has(&tables.conditions_after, after.unwrap_or_default())
}

/// Whether what starts at `start` is a condition ("once cancelled", "if we
/// cannot cancel"): it then claims nothing, neither success nor failure.
fn hedged(tables: &Tables, tokens: &[String], start: usize) -> bool {
    let before = tokens.get(start.saturating_sub(HEDGE_WORDS_MAX)..start);
    has(&tables.hedges, before.unwrap_or_default())
}

/// The negation of the claim at `start..end`: before it back to the last
/// scope break, inside it, or a failure just after it.
fn negation(tables: &Tables, tokens: &[String], start: usize, end: usize) -> Option<&'static str> {
    let is_break = |i: &usize| {
        has(
            &tables.scope_breaks,
            tokens.get(*i..*i + 1).unwrap_or_default(),
        )
    };
    let scope_start = (0..start).rev().find(is_break).map_or(0, |i| i + 1);
    let after_end = (end..tokens.len().min(end + FAILURE_AFTER_WORDS_MAX))
        .find(is_break)
        .unwrap_or(tokens.len().min(end + FAILURE_AFTER_WORDS_MAX));
    first(
        &tables.negations,
        tokens.get(scope_start..end).unwrap_or_default(),
    )
    .or_else(|| {
        first(
            &tables.failures_after,
            tokens.get(end..after_end).unwrap_or_default(),
        )
    })
}

fn first(table: &[Pattern], tokens: &[String]) -> Option<&'static str> {
    table
        .iter()
        .find(|p| p.find(tokens, 0).is_some())
        .map(|p| p.phrase)
}

fn has(table: &[Pattern], tokens: &[String]) -> bool {
    first(table, tokens).is_some()
}

/// The text in pieces that a negation cannot cross: sentences, split again
/// at commas, dashes and brackets. Questions are left out: "Didn't mean to
/// cancel?" claims nothing.
fn parts(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', ';', ':', '\n', '。', '！', '？'])
        .filter(|sentence| !sentence.trim_end().ends_with(['?', '？']))
        .flat_map(|sentence| sentence.split([',', '—', '–', '(', ')', '、', '，']))
}

/// Visible text of a page from its accessibility tree (Playwright's YAML
/// snapshot), one piece a line: names and text, not roles, refs, attributes
/// or `/url:`-style properties. Playwright leaves out what is hidden; what
/// somebody typed into a field, the options of a closed list and images'
/// alternative texts are left out here, because the page does not show them
/// as its own words.
pub fn visible_text(content: &str) -> String {
    let mut out = String::new();
    // Indent of a node whose descendants are skipped, or whose options count
    // only when selected.
    let mut skip_below: Option<usize> = None;
    let mut choice_below: Option<usize> = None;
    for line in content.lines() {
        let item = line.trim_start_matches(' ');
        let indent = line.len() - item.len();
        if skip_below.is_some_and(|d| indent > d) {
            continue;
        }
        skip_below = None;
        if choice_below.is_some_and(|d| indent <= d) {
            choice_below = None;
        }
        let Some(item) = item.strip_prefix("- ") else {
            continue;
        };
        if item.starts_with('/') {
            continue;
        }
        let Some(node) = parse_node(item) else {
            continue;
        };
        if node.hidden
            || TYPED_ROLES.contains(&node.role.as_str())
            || CONTROL_ROLES.contains(&node.role.as_str())
        {
            skip_below = Some(indent);
            continue;
        }
        if node.role == "option" && choice_below.is_some() && !node.selected {
            continue;
        }
        if CHOICE_ROLES.contains(&node.role.as_str()) {
            choice_below = Some(indent);
        }
        let shown_name = !UNSHOWN_NAME_ROLES.contains(&node.role.as_str());
        for piece in [node.name.filter(|_| shown_name), node.value]
            .into_iter()
            .flatten()
        {
            let piece = piece.trim();
            if !piece.is_empty() {
                out.push_str(piece);
                out.push('\n');
            }
        }
    }
    out
}

struct Node {
    role: String,
    name: Option<String>,
    value: Option<String>,
    hidden: bool,
    selected: bool,
}

/// `role "name" [attr] [attr=value]: value`, the key possibly single-quoted.
fn parse_node(item: &str) -> Option<Node> {
    let (key, value) = if item.starts_with('\'') {
        let (key, rest) = single_quoted(item)?;
        (key, rest.strip_prefix(':'))
    } else {
        let (key, value) = split_key(item);
        (key.to_owned(), value)
    };
    let key = key.trim();
    let role_end = key.find([' ', '"', '[']).unwrap_or(key.len());
    let role = key.get(..role_end)?.to_owned();
    if role.is_empty() {
        return None;
    }
    let mut rest = key.get(role_end..)?.trim_start();
    let mut name = None;
    if rest.starts_with('"') {
        let (n, after) = json_string(rest)?;
        name = Some(n);
        rest = after.trim_start();
    }
    let mut hidden = false;
    let mut selected = false;
    while let Some(attr) = rest.strip_prefix('[') {
        let end = attr.find(']')?;
        match attr.get(..end)? {
            "hidden" => hidden = true,
            "selected" => selected = true,
            _ => {}
        }
        rest = attr.get(end + 1..)?.trim_start();
    }
    Some(Node {
        role,
        name,
        value: value.map(scalar).filter(|v| !v.is_empty()),
        hidden,
        selected,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn check<T: std::fmt::Debug + PartialEq>(rows: impl Iterator<Item = (String, T, T)>) {
        let wrong: Vec<String> = rows
            .filter(|(_, got, want)| got != want)
            .map(|(input, got, want)| format!("{input:?}: got {got:?}, want {want:?}"))
            .collect();
        assert!(
            wrong.is_empty(),
            "{} wrong:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    const fn affirmed(phrase: &'static str) -> Claim {
        Claim::Affirmed(phrase)
    }

    const fn negated(phrase: &'static str, negation: &'static str) -> Claim {
        Claim::Negated { phrase, negation }
    }

    const CLAIMS: &[(&str, Claim)] = &[
        // Definite successes, as services word them.
        ("Your membership has been cancelled.", affirmed("cancelled")),
        // Written apart from any bench pack: Sky Italia's and the Art. 11a
        // acknowledgements as merchants word them.
        (
            "Il tuo abbonamento è stato disdetto correttamente.",
            affirmed("stato disdetto"),
        ),
        (
            "La tua offerta è stata disdetta.",
            affirmed("stata disdetta"),
        ),
        (
            "Thank you: we have received your withdrawal of 3 March.",
            affirmed("received your withdrawal"),
        ),
        (
            "Ihr Widerruf ist bei uns eingegangen.",
            affirmed("widerruf ~ eingegangen"),
        ),
        (
            "Vielen Dank, Ihre Kündigung ist eingegangen.",
            affirmed("kündigung ~ eingegangen"),
        ),
        (
            "Votre rétractation a été enregistrée.",
            affirmed("rétractation ~ enregistrée"),
        ),
        (
            "Ihr Widerruf ist nicht eingegangen.",
            Claim::Negated {
                phrase: "widerruf ~ eingegangen",
                negation: "nicht",
            },
        ),
        ("Your subscription was canceled", affirmed("cancelled")),
        ("Your plan is cancelled", affirmed("cancelled")),
        ("Cancelled", affirmed("cancelled")),
        ("Your account is now CANCELED!", affirmed("cancelled")),
        (
            "Your cancellation is complete.",
            affirmed("cancellation ~ complete*"),
        ),
        (
            "Cancellation confirmed",
            affirmed("cancellation ~ confirmed"),
        ),
        (
            "We’ve processed your request.",
            affirmed("processed your request"),
        ),
        (
            "We have processed your cancellation",
            affirmed("processed your cancellation"),
        ),
        ("You have been unsubscribed", affirmed("unsubscribed")),
        ("Your membership has ended", affirmed("has ended")),
        ("Ihre Mitgliedschaft wurde gekündigt", affirmed("gekündigt")),
        ("Votre abonnement a été résilié", affirmed("résilié")),
        ("Tu suscripción ha sido cancelada", affirmed("cancelada")),
        ("Je lidmaatschap is opgezegd", affirmed("opgezegd")),
        // A negation elsewhere in the sentence, out of reach of the claim.
        (
            "Don't worry, your membership has been cancelled",
            affirmed("cancelled"),
        ),
        (
            "You won't be charged again. Your membership is cancelled.",
            affirmed("cancelled"),
        ),
        (
            "Your membership has been cancelled and you won't be charged again",
            affirmed("cancelled"),
        ),
        (
            "You will not be charged, and your membership ends on March 3",
            affirmed("ends on"),
        ),
        // "after …" is a condition, not a statement; nor is it a failure.
        (
            "You will not be charged after your membership ends on March 3",
            Claim::Absent,
        ),
        // A definite claim is preferred to an end date, wherever it stands.
        (
            "We're sorry to see you go. Your membership has been cancelled.",
            affirmed("cancelled"),
        ),
        // Questions claim nothing, either way.
        (
            "Your membership has been cancelled. Didn't mean to cancel? Restart it.",
            affirmed("cancelled"),
        ),
        // End dates and farewells: shown before the last step too.
        ("Your membership ends on March 3", affirmed("ends on")),
        (
            "Your subscription will be cancelled at the end of your billing period",
            affirmed("be cancelled"),
        ),
        ("Your membership will end on March 3", affirmed("will end")),
        ("Your access expires on 12 June", affirmed("expires on")),
        ("You can restart anytime", affirmed("restart ~ anytime")),
        ("Rejoin any time", affirmed("rejoin ~ any time")),
        (
            "You can resume your membership anytime",
            affirmed("resume ~ anytime"),
        ),
        ("We're sorry to see you go", affirmed("sorry to see you go")),
        (
            "We'd hate to see you leave",
            affirmed("hate to see you leave"),
        ),
        // Failures.
        (
            "Your membership was not cancelled",
            negated("cancelled", "not"),
        ),
        (
            "Your membership has not been cancelled",
            negated("cancelled", "not"),
        ),
        (
            "Your subscription isn't cancelled yet",
            negated("cancelled", "isn't"),
        ),
        (
            "Your plan hasn’t been canceled",
            negated("cancelled", "hasn't"),
        ),
        (
            "Tu suscripción no se ha cancelado",
            negated("cancelado", "no"),
        ),
        ("We could not cancel your plan", negated("cancel*", "not")),
        (
            "We couldn't cancel your membership",
            negated("cancel*", "couldn't"),
        ),
        (
            "Failed to cancel your subscription",
            negated("cancel*", "failed to"),
        ),
        (
            "Unable to process your cancellation",
            negated("process*", "unable to"),
        ),
        (
            "We were unable to complete your request",
            negated("complet*", "unable to"),
        ),
        (
            "Something went wrong: error processing your cancellation",
            negated("process*", "error"),
        ),
        (
            "Cancellation failed. Please try again.",
            negated("cancel*", "fail*"),
        ),
        (
            "Your cancellation request was unsuccessful",
            negated("cancel*", "unsuccessful*"),
        ),
        (
            "Your cancellation is not yet complete",
            negated("cancellation ~ complete*", "not"),
        ),
        (
            "Ihre Kündigung konnte nicht bearbeitet werden",
            negated("kündig*", "nicht"),
        ),
        // Any failure wins over any success.
        (
            "Cancelled!\nError: your membership was not cancelled.",
            negated("cancelled", "not"),
        ),
        (
            "Your membership was not cancelled. Your membership ends on March 3.",
            negated("cancelled", "not"),
        ),
        // Nothing claimed.
        ("Choose a reason for leaving", Claim::Absent),
        ("Finish Cancellation", Claim::Absent),
        ("Don't cancel", Claim::Absent),
        ("This cancellation cannot be undone", Claim::Absent),
        ("You can cancel anytime", Claim::Absent),
        (
            "Are you sure you want your membership cancelled?",
            Claim::Absent,
        ),
        ("Once cancelled, you will lose your profiles", Claim::Absent),
        (
            "If your membership is cancelled you lose your downloads",
            Claim::Absent,
        ),
        (
            "If your membership isn't cancelled within a day, contact us",
            Claim::Absent,
        ),
        (
            "If we cannot cancel your plan we will email you",
            Claim::Absent,
        ),
        ("", Claim::Absent),
    ];

    #[test]
    fn claims() {
        check(
            CLAIMS
                .iter()
                .map(|(text, want)| ((*text).to_owned(), success_claim(text), want.clone())),
        );
    }

    /// The hostile pages, as visible text.
    const PAGES: &[(&str, &str, Claim)] = &[
        (
            "confirmation page before the last click",
            "Cancel your membership?\nYour membership ends on March 3.\nFinish Cancellation\nDon't cancel\n",
            affirmed("ends on"),
        ),
        (
            "offer page",
            "Wait! Before you go...\nStay and get 50% off.\nGet 50% off\nYour membership ends on March 3.\n",
            affirmed("ends on"),
        ),
        (
            "failure page",
            "Something went wrong\nYour membership was not cancelled.\nBack to account\n",
            negated("cancelled", "not"),
        ),
        (
            "failure page naming no success phrase",
            "Sorry\nWe could not cancel your plan. We're sorry to see you go.\n",
            negated("cancel*", "not"),
        ),
        (
            "success page",
            "Your membership has been cancelled\nYou can keep watching until the end of your billing period.\nBack to account\n",
            affirmed("cancelled"),
        ),
    ];

    #[test]
    fn hostile_pages() {
        check(
            PAGES
                .iter()
                .map(|(name, text, want)| ((*name).to_owned(), success_claim(text), want.clone())),
        );
    }

    #[test]
    fn end_date_only_phrases() {
        let rows = [
            ("ends on", true),
            ("be cancelled", true),
            ("sorry to see you go", true),
            ("restart ~ anytime", true),
            ("cancelled", false),
            ("cancellation ~ complete*", false),
            ("unsubscribed", false),
        ];
        check(
            rows.into_iter()
                .map(|(phrase, want)| (phrase.to_owned(), is_end_date_only(phrase), want)),
        );
    }

    /// Snapshot text as Playwright MCP 0.0.83 writes it.
    const SNAPSHOTS: &[(&str, &str, &str)] = &[
        (
            "success page (fixture 10b)",
            concat!(
                "- generic [active] [ref=f2e1]:\n",
                "  - heading \"Your membership has been cancelled\" [level=1] [ref=f2e2]\n",
                "  - paragraph [ref=f2e3]: You can keep watching until the end of your billing period.\n",
                "  - link \"Back to account\" [ref=f2e4] [cursor=pointer]:\n",
                "    - /url: /\n",
            ),
            // The link is a way somewhere, not what the page says happened.
            "Your membership has been cancelled\nYou can keep watching until the end of your billing period.\n",
        ),
        (
            "a link or a button that reads as a state is not the page's word",
            concat!(
                "- heading \"Account\" [level=1] [ref=e2]\n",
                "- link \"Cancelled State\" [ref=e3] [cursor=pointer]:\n",
                "  - /url: /cancelled\n",
                "- navigation [ref=e4]:\n",
                "  - text: Your membership has been cancelled\n",
                "- button \"Membership cancelled?\" [ref=e5]\n",
            ),
            "Account\n",
        ),
        (
            "what somebody typed is not the page's word",
            concat!(
                "- textbox \"Feedback\" [ref=e8]: Your membership has been cancelled\n",
                "- textbox \"Email\" [active] [ref=e9]:\n",
                "  - /placeholder: you@example.com\n",
                "  - text: cancelled\n",
                "- text: Email\n",
            ),
            "Email\n",
        ),
        (
            "a closed list shows its selected option only",
            concat!(
                "- combobox \"Reason for leaving\" [ref=f1e6]:\n",
                "  - option \"-- choose --\" [selected]\n",
                "  - option \"I already cancelled\"\n",
                "- button \"Finish Cancellation\" [ref=f1e7]\n",
            ),
            "Reason for leaving\n-- choose --\n",
        ),
        (
            "quoted values, images and hidden subtrees",
            concat!(
                "- paragraph [ref=e7]: \"Plan: Premium (4K) \\u2014 \\\"active\\\"\"\n",
                "- img \"Your membership has been cancelled\" [ref=e2]\n",
                "- generic [hidden]:\n",
                "  - text: Your membership has been cancelled\n",
                "- 'heading \"It''s done: cancelled\" [level=2]'\n",
            ),
            "Plan: Premium (4K) \u{2014} \"active\"\nIt's done: cancelled\n",
        ),
    ];

    #[test]
    fn visible_text_keeps_what_the_page_shows() {
        check(SNAPSHOTS.iter().map(|(name, yaml, want)| {
            ((*name).to_owned(), visible_text(yaml), (*want).to_owned())
        }));
    }

    #[test]
    fn success_read_from_a_snapshot() {
        let rows = [
            (SNAPSHOTS[0].1, affirmed("cancelled")),
            (SNAPSHOTS[1].1, Claim::Absent),
            (SNAPSHOTS[2].1, Claim::Absent),
        ];
        check(
            rows.into_iter()
                .map(|(yaml, want)| (yaml.to_owned(), success_claim(&visible_text(yaml)), want)),
        );
    }

    /// Twenty languages: a confirmation, written apart from the tables,
    /// is a definite claim; its failure is negated.
    #[test]
    fn twenty_languages_read_success_and_failure() {
        let rows: &[(&str, &str, &str)] = &[
            (
                "en",
                "Your plan has been cancelled.",
                "Your plan was not cancelled.",
            ),
            (
                "de",
                "Dein Abo wurde erfolgreich gekündigt.",
                "Dein Abo wurde nicht gekündigt.",
            ),
            (
                "fr",
                "Votre abonnement a bien été résilié.",
                "Votre abonnement n'a pas été résilié.",
            ),
            (
                "es",
                "Tu membresía ha sido cancelada.",
                "Tu membresía no ha sido cancelada.",
            ),
            (
                "it",
                "Il tuo abbonamento è stato annullato.",
                "Il tuo abbonamento non è stato annullato.",
            ),
            (
                "pt",
                "Sua assinatura foi cancelada.",
                "Sua assinatura não foi cancelada.",
            ),
            (
                "nl",
                "Je lidmaatschap is opgezegd.",
                "Je lidmaatschap is niet opgezegd.",
            ),
            (
                "pl",
                "Twoja subskrypcja została anulowana.",
                "Twoja subskrypcja nie została anulowana.",
            ),
            (
                "cs",
                "Vaše předplatné bylo zrušeno.",
                "Vaše předplatné nebylo zrušeno.",
            ),
            (
                "sv",
                "Ditt abonnemang har avslutats.",
                "Ditt abonnemang har inte avslutats.",
            ),
            (
                "da",
                "Dit abonnement er nu opsagt.",
                "Dit abonnement er ikke opsagt.",
            ),
            (
                "nb",
                "Abonnementet ditt er sagt opp.",
                "Abonnementet ditt er ikke sagt opp.",
            ),
            (
                "fi",
                "Tilauksesi on peruutettu.",
                "Tilaustasi ei ole peruutettu.",
            ),
            (
                "tr",
                "Aboneliğiniz iptal edildi.",
                "Aboneliğiniz iptal edilemedi.",
            ),
            (
                "ru",
                "Ваша подписка отменена.",
                "Ваша подписка не отменена.",
            ),
            ("ar", "تم إلغاء اشتراكك بنجاح.", "لم يتم إلغاء اشتراكك."),
            ("he", "המנוי שלך בוטל.", "המנוי שלך לא בוטל."),
            (
                "ja",
                "メンバーシップは解約されました。",
                "解約できませんでした。",
            ),
            ("zh", "您的订阅已取消。", "取消失败，请重试。"),
            (
                "ko",
                "구독이 해지되었습니다.",
                "구독이 해지되지 않았습니다.",
            ),
        ];
        assert_eq!(rows.len(), 20);
        let mut wrong = Vec::new();
        for (lang, done, failed) in rows {
            match success_claim(done) {
                Claim::Affirmed(phrase) if !is_end_date_only(phrase) => {}
                other => wrong.push(format!("{lang} {done:?}: {other:?}")),
            }
            match success_claim(failed) {
                Claim::Negated { .. } | Claim::Absent => {}
                other => wrong.push(format!("{lang} {failed:?}: {other:?}")),
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// Failure pages after the final step, each language's own word for
    /// "failed" (written apart from the tables): never a success.
    #[test]
    fn failure_pages_say_failed_in_each_language() {
        let pages = [
            "Tilauksen peruutus epäonnistui. Yritä myöhemmin uudelleen.",
            "Die Kündigung ist leider fehlgeschlagen.",
            "La résiliation a échoué, veuillez réessayer.",
            "La cancelación falló. Inténtalo de nuevo.",
            "O cancelamento falhou.",
            "Annullamento fallito, riprova.",
            "Het opzeggen is mislukt.",
            "Anulowanie nieudane, spróbuj ponownie.",
            "Zrušení selhalo.",
            "Uppsägningen misslyckades.",
            "Opsigelsen mislykkedes.",
            "Oppsigelsen mislyktes.",
            "Ошибка: отмена подписки не выполнена.",
            "فشل إلغاء الاشتراك.",
            "ביטול המנוי נכשל.",
        ];
        for page in pages {
            assert!(
                !matches!(success_claim(page), Claim::Affirmed(_)),
                "{page}: {:?}",
                success_claim(page)
            );
        }
    }
}
