//! The practice site that `subterminator demo` serves on 127.0.0.1: a
//! streaming service called StreamFlix. Same shape as a real plugin, with
//! predicates written for that site's pages.

use subterminator_sdk::prelude::*;

pub struct Practice;

const EFFECTLESS: &[&str] = &[
    "browser_snapshot",
    "get_snapshot",
    "browser_take_screenshot",
    "browser_scroll",
    "browser_wait_for",
];

impl Service for Practice {
    fn new() -> Self {
        Practice
    }

    fn metadata(&self) -> Metadata {
        Metadata {
            id: "practice".into(),
            display_name: "StreamFlix (practice site)".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            // The demo serves the site on a free port and passes its URL.
            initial_url: "http://127.0.0.1/".into(),
            goal: "Cancel the StreamFlix membership. Open the cancellation flow, decline the \
                   retention offer, answer the survey, and finish the cancellation. Call \
                   complete_task when the page confirms the membership is cancelled."
                .into(),
            system_prompt_addition: "StreamFlix shows a discount to keep you. Decline it; the \
                                     user wants to cancel."
                .into(),
            allowed_origins: vec!["http://127.0.0.1".into()],
            login_url_patterns: vec!["*/login*".into()],
            // The site's forms (plugins/practice/practice): finishing cancels,
            // accepting the offer and restarting change the billing.
            commit_requests: vec![
                RequestPattern::new("POST", "*/cancel/finish*"),
                RequestPattern::new("POST", "*/offer/accept*"),
                RequestPattern::new("POST", "*/restart*"),
            ],
            // StreamFlix bills no one; a placeholder in the shape of a real
            // descriptor, so the scanner's path through the plugins can be
            // tried on it. No harmless requests: its survey is a GET.
            billing_descriptors: vec!["STREAMFLIX*".into()],
            ..Metadata::default()
        }
    }

    fn plan(&self) -> Vec<PlanStep> {
        vec![
            PlanStep::new(
                "Open the cancellation flow",
                "The retention offer is shown",
                vec![TargetHint::click(
                    "button",
                    &[
                        "cancel membership",
                        "إلغاء الاشتراك",
                        "abo kündigen",
                        "cancelar membresía",
                        "annuler l'abonnement",
                        "annulla abbonamento",
                        "メンバーシップのキャンセル",
                        "멤버십 해지",
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
                "Decline the retention offer",
                "The reasons survey is shown",
                vec![TargetHint::click(
                    "button",
                    &[
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
                    ],
                )],
            ),
            PlanStep::new(
                "Answer the reasons survey",
                "The final confirmation is shown",
                vec![
                    TargetHint::select(
                        &[
                            "reason for leaving",
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
                    ),
                    TargetHint::click(
                        "button",
                        &[
                            "continue",
                            "متابعة",
                            "weiter",
                            "continuar",
                            "continuer",
                            "continua",
                            "続ける",
                            "계속",
                            "doorgaan",
                            "dalej",
                            "fortsätt",
                            "devam",
                            "继续",
                        ],
                    ),
                ],
            ),
            PlanStep::new(
                "Finish the cancellation (you approve this click)",
                "The page says the membership has been cancelled",
                vec![TargetHint::click(
                    "button",
                    &[
                        "finish cancellation",
                        "تأكيد الإلغاء",
                        "kündigung bestätigen",
                        "finalizar cancelación",
                        "terminer l'annulation",
                        "conferma l'annullamento",
                        "キャンセル手続きの完了",
                        "해지 완료",
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

    fn checkpoint(&self, call: &ToolCall, snapshot: &Snapshot) -> Option<String> {
        if EFFECTLESS.contains(&call.action.as_str()) {
            return None;
        }
        let target = call.target.as_ref();
        if target.is_some_and(|t| contains_any(&t.name, &["finish", "confirm"])) {
            return Some("This click finishes the cancellation".into());
        }
        if url_contains_any(snapshot, &["/confirm"]) {
            return Some("This is the final confirmation page".into());
        }
        None
    }

    fn verify(&self, snapshot: &Snapshot) -> Verdict {
        if url_contains_any(snapshot, &["/error"])
            || content_contains_any(snapshot, &["something went wrong"])
        {
            return Verdict::Failure("the site reported an error".into());
        }
        let cancelled = has_element(snapshot, "heading", &["has been cancelled"])
            && has_element(snapshot, "button", &["restart membership"]);
        if cancelled
            && !has_element(
                snapshot,
                "button",
                &["finish cancellation", "cancel membership"],
            )
        {
            Verdict::Success
        } else {
            Verdict::Unknown
        }
    }

    fn detect_auth(&self, snapshot: &Snapshot) -> Option<AuthEvent> {
        url_matches(&snapshot.url, "*/login*").then(|| AuthEvent {
            kind: AuthKind::LoginRequired,
            message: "StreamFlix needs you to sign in. Please log in.".into(),
        })
    }
}

register_service!(Practice);

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, elements: &[(&str, &str)]) -> Snapshot {
        Snapshot {
            url: url.into(),
            elements: elements.iter().map(|(r, n)| Element::new(*r, *n)).collect(),
            ..Snapshot::default()
        }
    }

    #[test]
    fn verify_table() {
        let cases = [
            (
                "cancelled page",
                page(
                    "http://127.0.0.1:1/cancelled",
                    &[
                        ("heading", "Your membership has been cancelled"),
                        ("button", "Restart Membership"),
                    ],
                ),
                true,
            ),
            (
                "heading alone",
                page(
                    "http://127.0.0.1:1/cancelled",
                    &[("heading", "Your membership has been cancelled")],
                ),
                false,
            ),
            (
                "confirm page",
                page(
                    "http://127.0.0.1:1/confirm",
                    &[
                        ("heading", "Finish your cancellation"),
                        ("button", "Finish Cancellation"),
                    ],
                ),
                false,
            ),
            (
                "error page",
                page(
                    "http://127.0.0.1:1/error",
                    &[
                        ("heading", "Your membership has been cancelled"),
                        ("button", "Restart Membership"),
                    ],
                ),
                false,
            ),
        ];
        for (name, snap, want) in cases {
            assert_eq!(Practice.verify(&snap) == Verdict::Success, want, "{name}");
        }
    }

    #[test]
    fn final_click_needs_approval_whatever_it_is_called() {
        let call = ToolCall {
            action: "browser_click".into(),
            arguments_json: r#"{"element":"a harmless button"}"#.into(),
            target: Some(Element::new("button", "Finish Cancellation")),
            facts: None,
        };
        assert!(
            Practice
                .checkpoint(&call, &page("http://127.0.0.1:1/", &[]))
                .is_some()
        );
        let look = ToolCall {
            action: "browser_snapshot".into(),
            ..ToolCall::default()
        };
        assert!(
            Practice
                .checkpoint(&look, &page("http://127.0.0.1:1/confirm", &[]))
                .is_none()
        );
    }

    #[test]
    fn only_the_finish_step_is_irreversible() {
        let marks: Vec<bool> = Practice.plan().iter().map(|s| s.irreversible).collect();
        assert_eq!(marks, [false, false, false, true]);
    }

    #[test]
    fn commit_requests_name_the_sites_billing_forms() {
        let commits = Practice.metadata().commit_requests;
        let cases = [
            ("POST", "http://127.0.0.1:8/cancel/finish", true),
            ("POST", "http://127.0.0.1:8/offer/accept", true),
            ("POST", "http://127.0.0.1:8/restart", true),
            ("GET", "http://127.0.0.1:8/cancel", false),
            ("GET", "http://127.0.0.1:8/confirm?reason=Other", false),
            ("POST", "http://127.0.0.1:8/login", false),
        ];
        for (method, url, want) in cases {
            let got = commits.iter().any(|c| c.matches(method, url));
            assert_eq!(got, want, "{method} {url}");
        }
    }

    #[test]
    fn sign_in_page_is_detected() {
        assert!(
            Practice
                .detect_auth(&page("http://127.0.0.1:1/login?next=%2F", &[]))
                .is_some()
        );
        assert!(
            Practice
                .detect_auth(&page("http://127.0.0.1:1/", &[]))
                .is_none()
        );
    }
}
