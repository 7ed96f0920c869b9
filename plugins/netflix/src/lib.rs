//! Netflix: cancel the membership, decline the retention offers, and prove
//! from the page itself that the membership is cancelled.
//!
//! The predicates are the Python prototype's checkpoint, success, failure
//! and sign-in checks, plus guards where a check alone would let a
//! retention page pass as success.

use subterminator_sdk::prelude::*;

mod wording;

pub struct Netflix;

const INITIAL_URL: &str = "https://www.netflix.com/account";

/// Words on a button or link that commit the cancellation.
const FINAL_CLICK_WORDS: &[&str] = &["finish", "confirm", "complete"];
/// A page that still offers these has not cancelled anything yet: whatever
/// else it says (an offer page quotes the end date too), success is not
/// shown while the way to commit is still on it.
const PENDING_CANCEL_NAMES: &[&str] = &[
    "finish cancel",
    "cancel membership",
    "cancel my membership",
    "cancel plan",
    "cancel my plan",
    "cancel subscription",
    "cancel my subscription",
    "continue cancellation",
    "continue to cancel",
    "confirm cancellation",
    "complete cancellation",
];

const SUCCESS_URL_PARTS: &[&str] = &["/cancelsuccess"];
/// Buttons and links a cancelled membership offers; alone they prove
/// nothing (a lapsed account shows them too), beside an end date they do.
const COMEBACK_WORDS: &[&str] = &["restart", "resume", "rejoin"];

/// Words anywhere on the page that mean the request did not go through. They
/// are broad on purpose: a success page that also says one of them is read as
/// not verified, which a human can still confirm; the other way round would
/// report a cancellation that did not happen.
const FAILURE_WORDS: &[&str] = &[
    "something went wrong",
    "could not",
    "couldn't",
    "couldn\u{2019}t",
    "unable to",
];

const TWO_FACTOR_WORDS: &[&str] = &["two-factor", "verification code", "2fa", "authenticator"];
const CAPTCHA_WORDS: &[&str] = &["captcha", "robot", "verify you're human", "security check"];
const EXPIRED_WORDS: &[&str] = &["session has expired", "session expired", "signed out"];
const LOGIN_PATTERNS: &[&str] = &["*/login*", "*/signin*"];

/// Tools that only look at the page; they never need a human's yes.
const READ_ONLY_ACTIONS: &[&str] = &[
    "browser_snapshot",
    "get_snapshot",
    "browser_take_screenshot",
    "browser_wait_for",
    "browser_console_messages",
    "browser_network_requests",
    "browser_find",
    "browser_scroll",
];

impl Service for Netflix {
    fn new() -> Self {
        Netflix
    }

    fn metadata(&self) -> Metadata {
        Metadata {
            id: "netflix".into(),
            display_name: "Netflix".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            initial_url: INITIAL_URL.into(),
            goal: "Cancel the Netflix subscription. Navigate to cancellation, complete the flow. \
                   Decline any retention offers. Call complete_task when you see confirmation \
                   that membership is cancelled."
                .into(),
            system_prompt_addition: "Netflix may show retention offers with discounts. Always \
                                     decline these and proceed with cancellation."
                .into(),
            allowed_origins: vec![
                "https://www.netflix.com".into(),
                "https://netflix.com".into(),
                "https://help.netflix.com".into(),
            ],
            login_url_patterns: LOGIN_PATTERNS.iter().map(|p| (*p).to_owned()).collect(),
            // How a Netflix charge reads on a statement ("NETFLIX.COM
            // 866-579-7172 CA"), for `subterminator scan`. No harmless
            // requests: every form of the practice flow's honest path but the
            // final one is a GET, so nothing would be spared a question.
            billing_descriptors: vec!["NETFLIX*".into(), "*NETFLIX.COM*".into()],
            // Netflix's commit request has not been observed on a live
            // account; a guessed pattern would guard nothing. The plan's
            // irreversible step and the host's floor cover the final click.
            ..Metadata::default()
        }
    }

    fn plan(&self) -> Vec<PlanStep> {
        vec![
            PlanStep::new(
                "Open the cancellation flow from the account page",
                "A page about cancelling (an offer, a survey or a final confirmation) is shown",
                vec![TargetHint::click(
                    "button",
                    &[
                        "cancel membership",
                        "إلغاء العضوية",
                        "mitgliedschaft kündigen",
                        "cancelar membresía",
                        "annuler l'abonnement",
                        "annulla abbonamento",
                        "メンバーシップのキャンセル",
                        "멤버십 해지",
                        "lidmaatschap opzeggen",
                        "anuluj członkostwo",
                        "cancelar assinatura",
                        "avsluta medlemskap",
                        "üyeliği i̇ptal et",
                        "取消会员资格",
                    ],
                )],
            ),
            PlanStep::new(
                "Decline any retention offer",
                "No offer is shown; the flow continues towards cancelling",
                vec![TargetHint::click(
                    "button",
                    &[
                        "continue to cancel",
                        "continue cancellation",
                        "no thanks",
                        "decline",
                        "متابعة الإلغاء",
                        "لا، شكرًا",
                        "weiter zur kündigung",
                        "nein danke",
                        "continuar con la cancelación",
                        "no, gracias",
                        "continuer l'annulation",
                        "non merci",
                        "continua con l'annullamento",
                        "no, grazie",
                        "キャンセル手続きを続ける",
                        "今回は見送る",
                        "해지 계속하기",
                        "괜찮습니다",
                        "doorgaan met opzeggen",
                        "nee, bedankt",
                        "kontynuuj anulowanie",
                        "nie, dziękuję",
                        "continuar cancelamento",
                        "não, obrigado",
                        "fortsätt avsluta",
                        "nej tack",
                        "i̇ptale devam et",
                        "hayır, teşekkürler",
                        "继续取消",
                        "不用了，谢谢",
                    ],
                )],
            ),
            PlanStep::new(
                "Answer the reasons survey, if there is one",
                "The final confirmation page is shown",
                vec![
                    TargetHint::select(
                        &[
                            "reason",
                            "سبب الإلغاء",
                            "kündigungsgrund",
                            "motivo de la cancelación",
                            "motif de résiliation",
                            "motivo dell'annullamento",
                            "解約の理由",
                            "해지 사유",
                            "reden van opzegging",
                            "powód anulowania",
                            "motivo do cancelamento",
                            "anledning till uppsägningen",
                            "i̇ptal nedeni",
                            "取消原因",
                        ],
                        "Other",
                    )
                    .optional(),
                    TargetHint::click(
                        "button",
                        &[
                            "continue",
                            "next",
                            "skip",
                            "متابعة",
                            "التالي",
                            "weiter",
                            "continuar",
                            "siguiente",
                            "continuer",
                            "suivant",
                            "continua",
                            "avanti",
                            "続ける",
                            "次へ",
                            "계속",
                            "다음",
                            "doorgaan",
                            "volgende",
                            "dalej",
                            "próximo",
                            "fortsätt",
                            "nästa",
                            "devam",
                            "i̇leri",
                            "继续",
                            "下一步",
                        ],
                    ),
                ],
            ),
            PlanStep::new(
                "Confirm the cancellation (a human approves this click)",
                "The page says the membership is cancelled and shows when it ends",
                vec![TargetHint::click(
                    "button",
                    &[
                        "finish cancellation",
                        "إنهاء الإلغاء",
                        "kündigung abschließen",
                        "finalizar cancelación",
                        "terminer l'annulation",
                        "completa l'annullamento",
                        "キャンセル手続きの完了",
                        "해지 완료",
                        "opzegging voltooien",
                        "zakończ anulowanie",
                        "concluir cancelamento",
                        "slutför uppsägningen",
                        "i̇ptal i̇şlemini tamamla",
                        "完成取消",
                    ],
                )],
            )
            .irreversible(),
        ]
    }

    fn checkpoint(&self, call: &ToolCall, _snapshot: &Snapshot) -> Option<String> {
        if READ_ONLY_ACTIONS.contains(&call.action.as_str()) {
            return None;
        }
        if call.action == "browser_click"
            && let Some(target) = &call.target
            && contains_any(&target.name, FINAL_CLICK_WORDS)
        {
            return Some(format!(
                "Clicking {} \"{}\" may complete the cancellation",
                target.role, target.name
            ));
        }
        // A page can name a button "Go back" for assistive technology while
        // showing "Finish Cancellation": what a person sees counts as well.
        if let Some(facts) = &call.facts
            && contains_any(&facts.visible_text, FINAL_CLICK_WORDS)
        {
            return Some(format!(
                "The element shows \"{}\" and may complete the cancellation",
                facts.visible_text
            ));
        }
        // The page as a whole is the host's to judge: its commit-page rule
        // asks about every change on a page that offers the final step, and
        // lets a survey answer the plan names through. Asking here about
        // every action on a /cancelplan page would train people to say yes
        // without reading.
        None
    }

    fn verify(&self, snapshot: &Snapshot) -> Verdict {
        // Folded once: verify runs on every success claim and each check
        // below would otherwise fold the page again.
        let page = FoldedPage::of(snapshot);
        if let Some(reason) = failure_indicator(snapshot, &page) {
            return Verdict::Failure(reason);
        }
        let mut said = Said::default();
        for text in visible_texts(snapshot, &page) {
            said.add(&wording::read(text));
        }
        if let Some(clause) = said.negated {
            return Verdict::Failure(format!("the page says \"{clause}\""));
        }
        if page
            .element_named(&["button", "link"], PENDING_CANCEL_NAMES)
            .is_some()
        {
            return Verdict::Unknown;
        }
        let comeback = page
            .element_named(&["button", "link"], COMEBACK_WORDS)
            .is_some();
        // One clear statement is enough; the softer signs (an end date, a
        // processed request, a way back) count only in pairs, because an
        // offer page quotes the end date and a plan change is "processed" too.
        let strong = said.cancelled || said.confirmed || page.url_has_any(SUCCESS_URL_PARTS);
        let soft = [said.ends, said.processed, comeback]
            .iter()
            .filter(|s| **s)
            .count();
        if strong || soft >= 2 {
            Verdict::Success
        } else {
            Verdict::Unknown
        }
    }

    fn detect_auth(&self, snapshot: &Snapshot) -> Option<AuthEvent> {
        let event = |kind, message: &str| {
            Some(AuthEvent {
                kind,
                message: message.to_owned(),
            })
        };
        if content_contains_any(snapshot, TWO_FACTOR_WORDS) {
            return event(
                AuthKind::TwoFactor,
                "2FA required. Complete authentication.",
            );
        }
        if content_contains_any(snapshot, CAPTCHA_WORDS) {
            return event(AuthKind::Captcha, "CAPTCHA detected. Please solve.");
        }
        if content_contains_any(snapshot, EXPIRED_WORDS) {
            return event(AuthKind::SessionExpired, "Session expired. Please log in.");
        }
        if LOGIN_PATTERNS.iter().any(|p| url_matches(&snapshot.url, p)) {
            return event(
                AuthKind::LoginRequired,
                "Netflix needs you to sign in. Please log in.",
            );
        }
        None
    }
}

fn failure_indicator(snapshot: &Snapshot, page: &FoldedPage) -> Option<String> {
    if page.url_has_any(&["error"]) {
        return Some(format!("the page is an error page ({})", snapshot.url));
    }
    if page.url_has_any(&["/login"]) && page.url_has_any(&["netflix.com"]) {
        return Some("Netflix signed the session out".into());
    }
    if let Some(word) = FAILURE_WORDS
        .iter()
        .find(|w| page.title_has_any(&[w]) || page.content_has_any(&[w]))
    {
        return Some(format!("the page says \"{word}\""));
    }
    if let Some(name) = page.element_named(&[], FAILURE_WORDS) {
        return Some(format!("the page says \"{name}\""));
    }
    None
}

/// The texts a person reads on the page: the title, the tree's text, and
/// the names of elements (a heading can be in the element list alone).
fn visible_texts<'a>(snapshot: &'a Snapshot, page: &'a FoldedPage) -> Vec<&'a str> {
    let mut texts = vec![page.title.as_str(), page.content.as_str()];
    texts.extend(snapshot.elements.iter().map(|e| e.name.as_str()));
    texts
}

/// What the page's wording says, summed over its texts.
#[derive(Debug, Default)]
struct Said {
    cancelled: bool,
    confirmed: bool,
    ends: bool,
    processed: bool,
    /// The first statement that says the opposite ("was not cancelled").
    negated: Option<String>,
}

impl Said {
    fn add(&mut self, read: &wording::Reading) {
        self.cancelled |= read.cancelled;
        self.confirmed |= read.confirmed;
        self.ends |= read.ends;
        self.processed |= read.processed;
        if self.negated.is_none() {
            self.negated.clone_from(&read.negated);
        }
    }
}

register_service!(Netflix);

#[cfg(test)]
mod tests;
