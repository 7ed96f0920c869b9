//! Hulu: cancel the subscription from secure.hulu.com's Account page, decline
//! the offer to pause and any discount, and prove from the page itself that
//! the subscription is canceled.
//!
//! Hulu is billed through many partners (Roku, Amazon, Apple, Google Play,
//! Disney+, Spotify, mobile carriers, TV providers…), and such a
//! subscription cannot be canceled on hulu.com at all. The Account page
//! names the partner in a sentence ("You're billed through Roku"); the
//! [`partner`] module reads that name and says where to cancel instead, so
//! the run ends with a reason a person can act on, before anything is asked.

use subterminator_sdk::prelude::*;

mod partner;

pub struct Hulu;

const INITIAL_URL: &str = "https://secure.hulu.com/account";

/// Names of the final button. "Cancel Your Subscription", the link that only
/// opens the flow on the Account page, contains none of them.
const FINAL_NAMES: &[&str] = &[
    "cancel subscription",
    "yes, cancel",
    "confirm cancellation",
    "finish cancellation",
    "complete cancellation",
];

/// Buttons that change what the person pays instead of canceling: pausing,
/// taking a discount, switching plan, or subscribing again.
const BILLING_CHANGE_NAMES: &[&str] = &[
    "pause",
    "accept offer",
    "accept this offer",
    "accept the offer",
    "accept discount",
    "claim offer",
    "claim this offer",
    "claim discount",
    "redeem",
    "switch to",
    "switch plan",
    "change plan",
    "upgrade",
    "downgrade",
    "keep hulu for",
    "get this offer",
    "restart",
    "resume",
    "reactivate",
    "resubscribe",
];

/// Actions that press what they target: only these can commit by the
/// target's own words. Choosing a pause length or a survey answer does not.
const PRESS_ACTIONS: &[&str] = &["browser_click", "browser_press_key"];

/// Elements that still lead towards the final step: a page that offers one
/// has not canceled anything yet, whatever it says about an end date.
const PENDING_NAMES: &[&str] = &[
    "cancel subscription",
    "cancel your subscription",
    "continue to cancel",
    "yes, cancel",
    "confirm cancellation",
];

/// What the page says right after the final step.
const SUCCESS_WORDS: &[&str] = &[
    "subscription has been canceled",
    "subscription has been cancelled",
    "you've canceled your subscription",
    "you've cancelled your subscription",
    "you\u{2019}ve canceled your subscription",
    "you\u{2019}ve cancelled your subscription",
    "you have canceled your subscription",
    "you have cancelled your subscription",
    "your cancellation is complete",
];

/// What the Account page says of a subscription canceled before this run.
const ALREADY_CANCELLED_WORDS: &[&str] = &[
    "your subscription is canceled",
    "your subscription is cancelled",
    "your subscription was canceled",
    "your subscription was cancelled",
    "you canceled your subscription on",
    "you cancelled your subscription on",
];

/// Hulu's error pages.
const ERROR_WORDS: &[&str] = &[
    "something went wrong",
    "we're having trouble",
    "we\u{2019}re having trouble",
    "please try again later",
];

/// Sentences that say the cancellation did not go through. Each is about
/// canceling; a word like "could not" alone appears on ordinary pages.
const NOT_CANCELLED_WORDS: &[&str] = &[
    "was not canceled",
    "was not cancelled",
    "wasn't canceled",
    "wasn't cancelled",
    "wasn\u{2019}t canceled",
    "wasn\u{2019}t cancelled",
    "has not been canceled",
    "has not been cancelled",
    "couldn't cancel",
    "couldn\u{2019}t cancel",
    "could not cancel",
    "unable to cancel",
    "can't cancel your subscription right now",
];

/// Help pages describe every case ("if you're billed through a partner…"):
/// they tell nothing about this account.
const HELP_HOST: &str = "help.hulu.com";

const TWO_FACTOR_WORDS: &[&str] = &[
    "6-digit code",
    "one-time code",
    "one-time passcode",
    "verification code",
    "enter the code",
    "check your email inbox",
];
const CAPTCHA_WORDS: &[&str] = &[
    "captcha",
    "i'm not a robot",
    "verify you're human",
    "verify you are human",
];
const EXPIRED_WORDS: &[&str] = &["your session has expired", "session expired"];
const LOGIN_PATTERNS: &[&str] = &["*auth.hulu.com/*", "*/login*"];

/// "Continue to cancel" in the languages Hulu's plan reads: the offer's
/// way on and the survey's.
const CONTINUE_TO_CANCEL: &[&str] = &[
    "continue to cancel",
    "متابعة الإلغاء",
    "weiter zur kündigung",
    "continuar con la cancelación",
    "continuer la résiliation",
    "continua con l'annullamento",
    "解約手続きを続ける",
    "해지 계속하기",
    "doorgaan met opzeggen",
    "kontynuuj anulowanie",
    "continuar cancelamento",
    "fortsätt avsluta",
    "i̇ptale devam et",
    "继续取消",
];

impl Service for Hulu {
    fn new() -> Self {
        Hulu
    }

    fn metadata(&self) -> Metadata {
        Metadata {
            id: "hulu".into(),
            display_name: "Hulu".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            initial_url: INITIAL_URL.into(),
            goal: "Cancel the Hulu subscription from the Account page. Select Cancel Your \
                   Subscription, decline the offer to pause and any discount or plan switch \
                   with Continue to Cancel, answer why you are leaving, and confirm with \
                   Cancel Subscription. Call complete_task when the page says the \
                   subscription has been canceled."
                .into(),
            system_prompt_addition: "Hulu offers to pause the subscription, and sometimes a \
                                     discount or the cheaper Hulu (With Ads) plan, before the \
                                     last step: decline them all. If the Account page says \
                                     the subscription is billed through a partner (Roku, \
                                     Amazon, Apple, Google Play, Disney+, Spotify, a mobile \
                                     carrier), stop: it cannot be canceled on hulu.com."
                .into(),
            allowed_origins: vec![
                "https://secure.hulu.com".into(),
                "https://www.hulu.com".into(),
                "https://help.hulu.com".into(),
                "https://auth.hulu.com".into(),
            ],
            login_url_patterns: LOGIN_PATTERNS.iter().map(|p| (*p).to_owned()).collect(),
            commit_requests: vec![RequestPattern::new("POST", "*/account/cancel/submit*")],
            // How a Hulu charge reads on a statement ("HULU 877-8244858 CA",
            // "HLU*HULU 12345-ABCDE"), for `subterminator scan`. No harmless
            // requests: the practice flow's survey is a GET, and its only
            // other posts (pause, accept an offer) change the billing.
            billing_descriptors: vec!["HULU*".into(), "HLU*HULU*".into()],
            ..Metadata::default()
        }
    }

    fn plan(&self) -> Vec<PlanStep> {
        vec![
            PlanStep::new(
                "Open the cancellation flow from the Account page",
                "The offer to pause, or another page of the cancellation flow, is shown",
                vec![TargetHint::click(
                    "link",
                    &[
                        "cancel your subscription",
                        "إلغاء الاشتراك",
                        "abo kündigen",
                        "cancelar suscripción",
                        "résilier l'abonnement",
                        "annulla abbonamento",
                        "解約する",
                        "구독 해지",
                        "abonnement opzeggen",
                        "anuluj subskrypcję",
                        "cancelar assinatura",
                        "avsluta prenumerationen",
                        "aboneliği iptal et",
                        "取消订阅",
                    ],
                )],
            ),
            PlanStep::new(
                "Decline the offer to pause",
                "The offer to pause is gone; an offer, the survey or the last step is shown",
                vec![TargetHint::click("button", CONTINUE_TO_CANCEL)],
            ),
            PlanStep::new(
                "Decline the discount and the cheaper plan, if they are offered",
                "The survey of reasons is shown",
                vec![TargetHint::click(
                    "button",
                    &[
                        "no thanks",
                        "لا، شكرًا",
                        "nein danke",
                        "no, gracias",
                        "non merci",
                        "no, grazie",
                        "今回は見送る",
                        "괜찮습니다",
                        "nee, bedankt",
                        "nie, dziękuję",
                        "não, obrigado",
                        "nej tack",
                        "hayır, teşekkürler",
                        "不用了，谢谢",
                    ],
                )],
            ),
            PlanStep::new(
                "Say why you are leaving",
                "The page asking to cancel the subscription, with its end date, is shown",
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
                    TargetHint::click("button", CONTINUE_TO_CANCEL),
                ],
            ),
            PlanStep::new(
                "Cancel the subscription (a human approves this click)",
                "The page says the subscription has been canceled and until when Hulu plays",
                vec![TargetHint::click(
                    "button",
                    &[
                        "cancel subscription",
                        "تأكيد الإلغاء",
                        "kündigung bestätigen",
                        "confirmar cancelación",
                        "confirmer la résiliation",
                        "conferma l'annullamento",
                        "解約を確定する",
                        "해지 확인",
                        "opzegging bevestigen",
                        "potwierdź anulowanie",
                        "confirmar cancelamento",
                        "bekräfta uppsägningen",
                        "i̇ptali onayla",
                        "确认取消",
                    ],
                )],
            )
            .irreversible(),
        ]
    }

    fn checkpoint(&self, call: &ToolCall, _snapshot: &Snapshot) -> Option<String> {
        if !PRESS_ACTIONS.contains(&call.action.as_str()) {
            return None;
        }
        // What the page calls the element and what a person sees on it both
        // count: a button can be named "Go Back" and show "Cancel Subscription".
        let mut texts: Vec<&str> = Vec::new();
        if let Some(target) = &call.target {
            texts.push(&target.name);
        }
        if let Some(facts) = &call.facts {
            texts.push(&facts.visible_text);
        }
        if texts.iter().any(|t| contains_any(t, FINAL_NAMES)) {
            return Some("This button cancels the Hulu subscription".into());
        }
        if texts.iter().any(|t| contains_any(t, BILLING_CHANGE_NAMES)) {
            return Some(
                "This button pauses Hulu, takes an offer or changes the plan: it changes what \
                 Hulu bills you instead of canceling"
                    .into(),
            );
        }
        None
    }

    fn verify(&self, snapshot: &Snapshot) -> Verdict {
        let page = FoldedPage::of(snapshot);
        if page.url_has_any(&[HELP_HOST]) {
            return Verdict::Unknown;
        }
        if let Some(reason) = partner::billed_elsewhere(&page_texts(snapshot)) {
            return Verdict::Failure(reason);
        }
        if page.content_has_any(ERROR_WORDS) || page.title_has_any(ERROR_WORDS) {
            return Verdict::Failure("Hulu showed an error page".into());
        }
        if let Some(words) = NOT_CANCELLED_WORDS
            .iter()
            .find(|w| page.content_has_any(&[w]) || page.title_has_any(&[w]))
        {
            return Verdict::Failure(format!(
                "the page says the subscription was not canceled (\"{words}\")"
            ));
        }
        if page
            .element_named(&["button", "link"], PENDING_NAMES)
            .is_some()
        {
            return Verdict::Unknown;
        }
        let says = |words: &[&str]| {
            page.content_has_any(words)
                || snapshot
                    .elements
                    .iter()
                    .any(|e| e.role == "heading" && contains_any(&e.name, words))
        };
        if says(SUCCESS_WORDS) {
            Verdict::Success
        } else if says(ALREADY_CANCELLED_WORDS) {
            Verdict::AlreadyCancelled
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
                "Hulu sent a one-time code to your email. Enter it in the browser to go on.",
            );
        }
        if content_contains_any(snapshot, CAPTCHA_WORDS) {
            return event(
                AuthKind::Captcha,
                "Hulu wants to check you are not a robot. Solve it in the browser.",
            );
        }
        if content_contains_any(snapshot, EXPIRED_WORDS) {
            return event(
                AuthKind::SessionExpired,
                "Your Hulu session has expired. Log in again in the browser.",
            );
        }
        if LOGIN_PATTERNS.iter().any(|p| url_matches(&snapshot.url, p)) {
            return event(
                AuthKind::LoginRequired,
                "Hulu needs you to log in. Log in in the browser window.",
            );
        }
        None
    }
}

/// The texts a person reads: the tree's text, then the names of headings and
/// text elements (a heading can be in the element list alone).
fn page_texts(snapshot: &Snapshot) -> Vec<&str> {
    let mut texts = vec![snapshot.content.as_str()];
    texts.extend(
        snapshot
            .elements
            .iter()
            .filter(|e| !e.name.is_empty())
            .map(|e| e.name.as_str()),
    );
    texts
}

register_service!(Hulu);

#[cfg(test)]
mod tests;
