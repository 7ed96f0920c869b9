//! The floor's phrase tables: what the final step, a billing change, a step
//! of the flow, a way out and a help link say, in the words services use.
//! The syntax of a phrase is the matcher's (`super::matcher`).

/// Ways out of a flow: their words are blanked before the Strong and Weak
/// tables are read, so "Don't cancel" is not a cancel button. Billing-change
/// phrases are read on the unblanked words: "Keep my membership at $7.99"
/// accepts an offer.
pub(super) const RETREATS: &[&str] = &[
    "don't cancel*",
    "do not cancel*",
    // No gaps here: "keep? no, cancel my membership" must not be blanked.
    "keep membership",
    "keep my membership",
    "keep your membership",
    "keep subscription",
    "keep my subscription",
    "keep plan",
    "keep my plan",
    "keep my account",
    "never mind",
    "nevermind",
    "go back",
    "take me back",
    "back to",
    "not now",
    "no thanks",
    "no thank you",
    "changed my mind",
    "nicht kündigen",
    "ne pas résilier",
    "ne pas annuler",
    "no cancelar",
    "non annullare",
    "niet opzeggen",
];

/// Links to help and terms pages: reading them commits nothing.
pub(super) const INFORMATIONAL: &[&str] = &[
    "cancellation polic*",
    "cancellation terms",
    "cancellation faq*",
    "cancellation help",
    "terms of cancellation",
    "refund polic*",
    "termination polic*",
    "how to cancel",
    "how do i cancel",
    "cancel anytime",
    "cancel any time",
    "cancel at any time",
    "about cancellation",
    "kündigungsbedingungen",
    "kündigungsfrist*",
];

/// The final step, in the words services use for it (any place).
pub(super) const STRONG: &[&str] = &[
    // English: the verbs of the last button.
    "finish ~ cancel*",
    "complete ~ cancel*",
    "confirm ~ cancel*",
    "cancel* confirm",
    "cancel* confirmation",
    "submit ~ cancel*",
    "yes ~ cancel*",
    "cancel now",
    "cancel ~ now",
    "are you sure ~ cancel*",
    "end membership",
    "end my membership",
    "end your membership",
    "end subscription",
    "end my subscription",
    "end your subscription",
    "stop ~ membership",
    "stop ~ subscription",
    "unsubscrib*",
    "deactivat*",
    "terminat*",
    "close ~ account",
    "delete ~ account",
    // Turning off renewal is how some services spell "cancel".
    "turn off auto ~ renew*",
    "turn off autorenew*",
    "turn off ~ renewal",
    "disable auto ~ renew*",
    "disable autorenew*",
    "cancel auto ~ renew*",
    "stop auto ~ renew*",
    // German.
    "kündigen",
    "kuendigen",
    "kündigung ~ bestätigen",
    "kündigung ~ abschließen",
    "mitgliedschaft ~ beenden",
    "abo* ~ beenden",
    "vertrag ~ beenden",
    // French.
    "résilier",
    "confirmer ~ annulation",
    "confirmer ~ résiliation",
    "annuler ~ abonnement",
    "désabonner",
    // Spanish.
    "cancelar ~ suscripción",
    "confirmar ~ cancelación",
    "dar* de baja",
    // Italian.
    "disdici",
    "disdire",
    "annulla ~ abbonamento",
    "conferma ~ disdetta",
    "conferma ~ annullamento",
    "conferma ~ cancellazione",
    // Portuguese.
    "cancelar ~ assinatura",
    "confirmar ~ cancelamento",
    // Dutch.
    "opzeggen",
    "lidmaatschap ~ beëindigen",
    "abonnement ~ beëindigen",
    "bevestig* ~ opzegging",
];

/// A target whose whole text is one of these is the last button of a flow;
/// inside longer text ("finish setting up") the word means nothing.
pub(super) const STRONG_WHOLE_TARGET: &[&str] = &["finish", "finish now"];

/// Path segments written as one word ("/confirmCancel", "/cancelnow").
pub(super) const STRONG_URL_WORDS: &[&str] = &[
    "confirmcancel*",
    "cancelconfirm*",
    "cancellationconfirm*",
    "finishcancel*",
    "completecancel*",
    "submitcancel*",
    "cancelnow",
    "endmembership",
    "endsubscription",
];

/// Changes to what the person pays instead of the cancellation they asked for.
pub(super) const BILLING_CHANGE: &[&str] = &[
    // Pausing.
    "pause",
    "pausieren",
    "pausar",
    "pausa",
    // Switching plan.
    "switch ~ plan",
    "switch to",
    "change ~ plan",
    "downgrad*",
    "upgrad*",
    "tarif wechseln",
    // Accepting an offer.
    "accept* ~ offer",
    "accept* ~ discount",
    "claim ~ offer",
    "claim ~ discount",
    "redeem*",
    "# off",
    "stay and save",
    "apply ~ discount",
    "apply ~ offer",
    "keep ~ membership at #",
    "keep ~ membership for #",
    "keep ~ subscription at #",
    "keep ~ subscription for #",
    "keep ~ plan at #",
    "keep ~ plan for #",
    "# month* free",
    "free month*",
    "angebot annehmen",
    "accepter ~ offre",
    "aceptar ~ oferta",
    "accetta ~ offerta",
    "aceitar ~ oferta",
    "aanbieding ~ accepteren",
    // Signing up again, which a page after the cancellation invites.
    "restart ~ membership",
    "restart ~ subscription",
    "resume ~ membership",
    "resume ~ subscription",
    "undo ~ cancel*",
    "rejoin",
    "reactivat*",
    "resubscrib*",
    "subscribe",
    "join now",
    "buy",
    "buy now",
    "purchase",
    "pay now",
];

/// Steps of a cancellation flow, and "Cancel" closing a dialog: the caller
/// lets these through only when the plugin's plan names them.
pub(super) const WEAK: &[&str] = &[
    "cancel ~ membership",
    "cancel ~ subscription",
    "cancel ~ plan",
    "continue ~ cancel*",
    "cancel*",
    "kündigung",
    "abbrechen",
    "stornieren",
    "annuler",
    "annulla",
    "annuleren",
];

/// Words that go ahead with whatever the page is about: Weak on a page with
/// a Strong sign, nothing elsewhere.
pub(super) const GO_AHEAD: &[&str] = &[
    "confirm",
    "submit",
    "continue",
    "proceed",
    "yes",
    "ok",
    "okay",
    "done",
    "next",
    "agree",
    "i understand",
    "understood",
    "bestätigen",
    "weiter",
    "ja",
    "confirmer",
    "continuer",
    "oui",
    "confirmar",
    "continuar",
    "sí",
    "sim",
    "conferma",
    "continua",
    "bevestig*",
    "doorgaan",
    "volgende",
];

/// Stems that make a request to another site read as a commit when they
/// appear in its URL or body (the service's API host, a billing provider):
/// such a request is held for the person instead of stopped. Matched as
/// case-insensitive substrings of the decoded URL and body, in the regex
/// syntax JavaScript and the `regex` crate share.
pub(super) const REQUEST_COMMIT_STEMS: &[&str] = &[
    "cancel",
    "unsubscri",
    "terminat",
    "deactivat",
    "downgrad",
    "pause",
    "churn",
    "end[-_ ]?subscription",
    "end[-_ ]?membership",
    "kündig",
    "kuendig",
    "résili",
    "resili",
    "annul",
    "cancela",
    "disdett",
    "opzeg",
    "anulu",
    "avslut",
    "uppsäg",
    "opsig",
    "oppsig",
    "irtisano",
    "zruš",
    "iptal",
    "отмен",
    "отпис",
    "解約",
    "退会",
    "取消",
    "退订",
    "해지",
    "취소",
    "إلغاء",
    "ביטול",
];
