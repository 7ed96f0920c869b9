#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use Strength::{BillingChange, Strong, Weak};

/// Checks every row and reports all mismatches at once.
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

/// An element's accessible name or visible text, read alone.
const TARGETS: &[(&str, Option<Strength>)] = &[
    // The final button, in its many English spellings.
    ("Finish Cancellation", Some(Strong)),
    ("Finish cancelation", Some(Strong)),
    ("FINISH MY CANCELLATION", Some(Strong)),
    ("Complete cancellation", Some(Strong)),
    ("Confirm Cancellation", Some(Strong)),
    ("Confirm and cancel", Some(Strong)),
    ("Cancellation: confirm", Some(Strong)),
    ("Submit cancellation", Some(Strong)),
    ("Yes, cancel", Some(Strong)),
    ("Yes cancel my subscription", Some(Strong)),
    ("Yes, I want to cancel", Some(Strong)),
    ("End membership now", Some(Strong)),
    ("End now", Some(Strong)),
    // On a button or link, "end membership" opens the flow as "cancel
    // membership" does (Amazon's opener); a page that says it commits.
    ("End my membership", Some(Weak)),
    ("End subscription", Some(Weak)),
    ("End my subscription completely", Some(Weak)),
    ("Cancel now", Some(Strong)),
    ("Cancel subscription now", Some(Strong)),
    ("Unsubscribe", Some(Strong)),
    ("Deactivate account", Some(Strong)),
    ("Terminate contract", Some(Strong)),
    ("Close my account", Some(Strong)),
    ("Delete account", Some(Strong)),
    ("Turn off auto-renew", Some(Strong)),
    ("Finish", Some(Strong)),
    // Disguises that show the person "finish cancellation".
    ("Fіnish cancellation", Some(Strong)),
    ("ﬁnish cancellation", Some(Strong)),
    ("𝐅𝐢𝐧𝐢𝐬𝐡 𝐜𝐚𝐧𝐜𝐞𝐥𝐥𝐚𝐭𝐢𝐨𝐧", Some(Strong)),
    ("Fin\u{200b}ish cancel\u{ad}lation", Some(Strong)),
    ("Ｆｉｎｉｓｈ ｃａｎｃｅｌｌａｔｉｏｎ", Some(Strong)),
    // A way out in the same text does not hide the commit.
    ("Keep my membership (cancel now)", Some(Strong)),
    ("Never mind — finish cancellation", Some(Strong)),
    ("Keep? No — cancel my membership now", Some(Strong)),
    ("Keep it, cancel membership", Some(Weak)),
    // Other languages.
    ("Kündigen", Some(Weak)),
    ("Jetzt kündigen", Some(Strong)),
    ("Kündigung bestätigen", Some(Strong)),
    ("Mitgliedschaft beenden", Some(Weak)),
    ("jetzt ku\u{308}ndigen", Some(Strong)),
    ("Jetzt kuendigen", Some(Strong)),
    ("Résilier", Some(Weak)),
    ("Confirmer l’annulation", Some(Strong)),
    ("Annuler l'abonnement", Some(Weak)),
    ("Se désabonner", Some(Strong)),
    ("Cancelar suscripción", Some(Weak)),
    ("Confirmar cancelación", Some(Strong)),
    ("Darme de baja", Some(Weak)),
    ("Disdici", Some(Weak)),
    ("Annulla l'abbonamento", Some(Weak)),
    ("Cancelar assinatura", Some(Weak)),
    ("Opzeggen", Some(Weak)),
    ("Lidmaatschap beëindigen", Some(Weak)),
    // Changes to what the person pays.
    ("Pause membership", Some(BillingChange)),
    ("Pause", Some(BillingChange)),
    ("Switch plan", Some(BillingChange)),
    ("Change plan", Some(BillingChange)),
    ("Downgrade to Basic", Some(BillingChange)),
    ("Upgrade", Some(BillingChange)),
    ("Accept offer", Some(BillingChange)),
    ("Accept this special offer", Some(BillingChange)),
    ("Claim offer", Some(BillingChange)),
    ("Redeem", Some(BillingChange)),
    ("Get 50% off", Some(BillingChange)),
    ("Keep my membership at $7.99", Some(BillingChange)),
    (
        "No thanks, keep my membership at $7.99/month",
        Some(BillingChange),
    ),
    ("Stay and save", Some(BillingChange)),
    ("Apply discount", Some(BillingChange)),
    ("Get 1 month free", Some(BillingChange)),
    ("Mitgliedschaft pausieren", Some(BillingChange)),
    ("Restart membership", Some(BillingChange)),
    ("Undo cancellation", Some(BillingChange)),
    ("Subscribe", Some(BillingChange)),
    // Steps of the flow, and "Cancel" closing a dialog.
    ("Cancel Membership", Some(Weak)),
    ("Cancel subscription", Some(Weak)),
    ("Cancel plan", Some(Weak)),
    ("Cancel my plan", Some(Weak)),
    ("Cancel", Some(Weak)),
    ("Continue to cancel", Some(Weak)),
    ("Continue cancellation", Some(Weak)),
    ("Annuler", Some(Weak)),
    ("Abbrechen", Some(Weak)),
    // Ways out, help pages and the ordinary steps: no prompt.
    ("Don't cancel", None),
    ("Don’t cancel my membership", None),
    ("No, do not cancel", None),
    ("Keep membership", None),
    ("Keep my membership", None),
    ("Never mind", None),
    ("Go back", None),
    ("Back to account", None),
    ("Nicht kündigen", None),
    ("Cancellation policy", None),
    ("Cancellation terms", None),
    ("Refund policy", None),
    ("How to cancel", None),
    ("Cancel anytime", None),
    ("Too expensive", None),
    ("I'm not using it", None),
    ("Other", None),
    ("Continue", None),
    ("Confirm", None),
    ("Submit", None),
    ("Next", None),
    ("Back", None),
    ("Help", None),
    ("Account", None),
    ("Sign out", None),
    ("Finish setting up your profile", None),
    ("At the end of your plan", None),
    ("Episode 3", None),
    ("", None),
];

#[test]
fn target_texts() {
    check(TARGETS.iter().map(|(text, want)| {
        let got = sign_in_text(text, Place::Target).map(|s| s.strength);
        ((*text).to_owned(), got, *want)
    }));
}

/// Titles and headings: the page's own words.
const PAGE_TEXTS: &[(Place, &str, Option<Strength>)] = &[
    (Place::Heading, "Confirm your cancellation", Some(Strong)),
    (
        Place::Heading,
        "Are you sure you want to cancel?",
        Some(Strong),
    ),
    (Place::Heading, "End your membership?", Some(Strong)),
    (Place::Title, "End subscription", Some(Strong)),
    (Place::Title, "Finish cancellation", Some(Strong)),
    (Place::Title, "Netflix - Cancel membership", Some(Weak)),
    // "Finish" alone is a button's word, not a page's.
    (Place::Title, "Finish", None),
    (Place::Heading, "Membership", None),
    (Place::Heading, "Wait! Before you go...", None),
    (
        Place::Heading,
        "You keep access until the end of your plan",
        None,
    ),
];

#[test]
fn page_texts() {
    check(PAGE_TEXTS.iter().map(|(place, text, want)| {
        let got = sign_in_text(text, *place).map(|s| (s.strength, s.place));
        ((*text).to_owned(), got, want.map(|w| (w, *place)))
    }));
}

const URLS: &[(&str, Option<Strength>)] = &[
    ("https://www.netflix.com/cancelplan/confirm", Some(Strong)),
    ("https://example.com/account/cancel/confirm", Some(Strong)),
    ("https://example.com/account/confirmCancel", Some(Strong)),
    ("https://example.com/account/confirmcancel", Some(Strong)),
    (
        "https://example.com/account/cancellationConfirmation",
        Some(Strong),
    ),
    ("https://example.com/unsubscribe?id=3", Some(Strong)),
    ("https://example.com/account/finish-cancel", Some(Strong)),
    ("https://example.com/#/cancel/confirm", Some(Strong)),
    ("https://example.de/konto/k%C3%BCndigen", Some(Weak)),
    ("/cancel/confirm", Some(Strong)),
    ("https://example.com/account?action=cancel", Some(Weak)),
    ("https://example.com/account/pause", Some(BillingChange)),
    ("https://example.com/help/cancellation-policy", None),
    ("http://127.0.0.1:8765/retention.html", None),
    // The host names the site, not the step.
    ("https://unsubscribe.example.com/home", None),
    ("", None),
];

#[test]
fn urls() {
    check(URLS.iter().map(|(url, want)| {
        let got = sign_in_url(url).map(|s| (s.strength, s.place));
        ((*url).to_owned(), got, want.map(|w| (w, Place::Url)))
    }));
}

struct Case {
    targets: &'static [&'static str],
    title: &'static str,
    headings: &'static [&'static str],
    url: &'static str,
    /// What `judge` answers.
    want: Option<(Strength, Place)>,
    /// What `judge_each` says of the target alone.
    want_target: Option<Strength>,
}

const BENIGN_URL: &str = "https://example.com/account";

const JUDGE: &[Case] = &[
    // A benign accessible name never hides the visible text, in either order.
    Case {
        targets: &["Go back", "Finish cancellation"],
        title: "Account",
        headings: &[],
        url: BENIGN_URL,
        want: Some((Strong, Place::Target)),
        want_target: Some(Strong),
    },
    Case {
        targets: &["Finish cancellation", "Go back"],
        title: "Account",
        headings: &[],
        url: BENIGN_URL,
        want: Some((Strong, Place::Target)),
        want_target: Some(Strong),
    },
    Case {
        targets: &["Keep membership", "Get 50% off"],
        title: "Before you go",
        headings: &[],
        url: BENIGN_URL,
        want: Some((BillingChange, Place::Target)),
        want_target: Some(BillingChange),
    },
    // A way out on a page that commits: the page's sign, for the caller's rule.
    Case {
        targets: &["Back to account"],
        title: "Account",
        headings: &["Confirm your cancellation"],
        url: BENIGN_URL,
        want: Some((Strong, Place::Heading)),
        want_target: None,
    },
    // A go-ahead word on a page that commits is Weak on the target.
    Case {
        targets: &["Confirm"],
        title: "Account",
        headings: &["Confirm your cancellation"],
        url: BENIGN_URL,
        want: Some((Strong, Place::Heading)),
        want_target: Some(Weak),
    },
    Case {
        targets: &["Next"],
        title: "Account",
        headings: &[],
        url: "https://example.com/unsubscribe",
        want: Some((Strong, Place::Url)),
        want_target: Some(Weak),
    },
    Case {
        targets: &["Cancel"],
        title: "Finish cancellation",
        headings: &[],
        url: BENIGN_URL,
        want: Some((Strong, Place::Title)),
        want_target: Some(Weak),
    },
    // Ties go to the target.
    Case {
        targets: &["Finish cancellation"],
        title: "Finish cancellation",
        headings: &[],
        url: BENIGN_URL,
        want: Some((Strong, Place::Target)),
        want_target: Some(Strong),
    },
    Case {
        targets: &["Get 50% off"],
        title: "Account",
        headings: &[],
        url: "https://example.com/cancel/confirm",
        want: Some((Strong, Place::Url)),
        want_target: Some(BillingChange),
    },
    Case {
        targets: &["Cancel membership"],
        title: "Account",
        headings: &["Membership"],
        url: BENIGN_URL,
        want: Some((Weak, Place::Target)),
        want_target: Some(Weak),
    },
    // The ordinary steps of a flow: nothing to ask.
    Case {
        targets: &["Continue"],
        title: "Account",
        headings: &["Why are you leaving?"],
        url: BENIGN_URL,
        want: None,
        want_target: None,
    },
    Case {
        targets: &["Too expensive"],
        title: "StreamFlix - Before you go",
        headings: &["Wait! Before you go..."],
        url: "http://127.0.0.1:8765/retention.html",
        want: None,
        want_target: None,
    },
    Case {
        targets: &[],
        title: "",
        headings: &["Confirm your cancellation"],
        url: "",
        want: Some((Strong, Place::Heading)),
        want_target: None,
    },
];

#[test]
fn judge_takes_the_strongest_and_the_target_on_ties() {
    check(JUDGE.iter().map(|c| {
        let each = judge_each(c.targets, c.title, c.headings, c.url);
        let got = (
            judge(c.targets, c.title, c.headings, c.url).map(|s| (s.strength, s.place)),
            each.target.map(|s| s.strength),
        );
        let input = format!("{:?} {:?} {:?} {:?}", c.targets, c.title, c.headings, c.url);
        (input, got, (c.want, c.want_target))
    }));
}

#[test]
fn signs_name_the_phrase_as_written() {
    let rows = [
        ("Finish Cancellation", Some("finish ~ cancel*")),
        ("Get 50% off", Some("# off")),
        ("Jetzt kündigen", Some("jetzt kündigen")),
        ("Cancel Membership", Some("cancel ~ membership")),
        ("Help", None),
    ];
    check(rows.into_iter().map(|(text, want)| {
        let got = sign_in_text(text, Place::Target).map(|s| s.phrase);
        (text.to_owned(), got, want)
    }));
}

#[test]
fn words_fold_spelling_apostrophes_and_case() {
    let rows: [(&str, &[&str]); 6] = [
        ("Don’t CANCEL", &["dont", "cancel"]),
        ("Confirmer l'annulation", &["confirmer", "l", "annulation"]),
        ("Cancelled, cancellation", &["canceled", "cancelation"]),
        ("Kündigung bestätigen", &["kundigung", "bestatigen"]),
        ("Straße", &["strasse"]),
        ("auto-renew: off!", &["auto", "renew", "off"]),
    ];
    check(rows.into_iter().map(|(text, want)| {
        let want: Vec<String> = want.iter().map(|w| (*w).to_owned()).collect();
        (text.to_owned(), words(text), want)
    }));
}

/// Twenty languages, each with phrasings written apart from the tables:
/// the final step reads Strong; a retreat never does; ordinary words of a
/// flow ask nothing (no Strong, no billing change).
#[test]
fn twenty_languages() {
    // (language, final-step phrasings, retreats, ordinary words)
    type Row = (
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
    );
    let rows: &[Row] = &[
        (
            "en",
            &["Yes, cancel my plan", "Confirm the cancellation now"],
            &["Don't cancel", "Keep my membership"],
            &["Continue", "Back", "Account", "Help centre", "Settings"],
        ),
        (
            "de",
            &["Ja, jetzt kündigen", "Kündigung jetzt abschließen"],
            &["Nicht kündigen", "Zurück"],
            &["Weiter", "Konto", "Hilfe", "Einstellungen"],
        ),
        (
            "fr",
            &["Oui, résilier", "Terminer ma résiliation"],
            &["Ne pas résilier", "Retour"],
            &["Continuer", "Compte", "Aide", "Paramètres"],
        ),
        (
            "es",
            &["Sí, cancelar", "Finalizar la cancelación"],
            &["No cancelar", "Volver"],
            &["Continuar", "Cuenta", "Ayuda", "Ajustes"],
        ),
        (
            "it",
            &["Sì, annulla", "Completa il tuo annullamento"],
            &["Non annullare", "Indietro"],
            &["Continua", "Account", "Aiuto", "Impostazioni"],
        ),
        (
            "pt",
            &["Sim, cancelar", "Concluir o cancelamento"],
            &["Não cancelar", "Voltar"],
            &["Continuar", "Conta", "Ajuda", "Configurações"],
        ),
        (
            "nl",
            &["Ja, opzeggen", "Opzegging nu voltooien"],
            &["Niet opzeggen", "Terug"],
            &["Doorgaan", "Account", "Hulp", "Instellingen"],
        ),
        (
            "pl",
            &["Tak, anuluj", "Potwierdź anulowanie subskrypcji"],
            &["Nie anuluj", "Wróć"],
            &["Dalej", "Konto", "Pomoc", "Ustawienia"],
        ),
        (
            "cs",
            &["Ano, zrušit", "Potvrdit zrušení předplatného"],
            &["Nerušit", "Zpět"],
            &["Pokračovat", "Účet", "Nápověda", "Nastavení"],
        ),
        (
            "sv",
            &["Ja, avsluta", "Bekräfta din uppsägning"],
            &["Avsluta inte", "Gå tillbaka"],
            &["Fortsätt", "Konto", "Hjälp", "Inställningar"],
        ),
        (
            "da",
            &["Ja, opsig", "Bekræft din opsigelse"],
            &["Opsig ikke", "Gå tilbage"],
            &["Fortsæt", "Konto", "Hjælp", "Indstillinger"],
        ),
        (
            "nb",
            &["Ja, si opp", "Bekreft oppsigelsen din"],
            &["Ikke si opp", "Gå tilbake"],
            &["Fortsett", "Konto", "Hjelp", "Innstillinger"],
        ),
        (
            "fi",
            &["Kyllä, peruuta", "Vahvista peruutus nyt"],
            &["Älä peruuta", "Takaisin"],
            &["Jatka", "Tili", "Ohje", "Asetukset"],
        ),
        (
            "tr",
            &["Evet, iptal et", "İptali onayla"],
            &["İptal etme", "Geri dön"],
            &["Devam", "Hesap", "Yardım", "Ayarlar"],
        ),
        (
            "ru",
            &["Да, отменить", "Подтвердить отмену подписки"],
            &["Не отменять", "Назад"],
            &["Продолжить", "Аккаунт", "Помощь", "Настройки"],
        ),
        (
            "ar",
            &["نعم، إلغاء الاشتراك", "تأكيد الإلغاء الآن"],
            &["رجوع"],
            &["متابعة", "الحساب", "المساعدة", "الإعدادات"],
        ),
        (
            "he",
            &["כן, בטל", "אישור ביטול המנוי"],
            &["חזרה"],
            &["המשך", "חשבון", "עזרה", "הגדרות"],
        ),
        (
            "ja",
            &["はい、解約します", "解約手続きを完了する"],
            &["解約しない", "戻る"],
            &["次へ", "アカウント", "ヘルプ", "設定"],
        ),
        (
            "zh",
            &["确认取消订阅", "是的，立即取消"],
            &["不取消", "返回"],
            &["下一步", "账户", "帮助", "设置"],
        ),
        (
            "ko",
            &["예, 해지합니다", "구독 해지 확인하기"],
            &["해지하지 않기", "돌아가기"],
            &["다음", "계정", "도움말", "설정"],
        ),
    ];
    assert_eq!(rows.len(), 20);
    let mut wrong = Vec::new();
    for (lang, finals, retreats, ordinary) in rows {
        for text in *finals {
            let got = sign_in_text(text, Place::Target).map(|s| s.strength);
            if got != Some(Strength::Strong) {
                wrong.push(format!("{lang} final {text:?}: {got:?}"));
            }
        }
        for text in retreats.iter().chain(ordinary.iter()) {
            let got = sign_in_text(text, Place::Target).map(|s| s.strength);
            if matches!(got, Some(Strength::Strong | Strength::BillingChange)) {
                wrong.push(format!("{lang} {text:?} would ask: {got:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Scripts without spaces keep their negations: 解約しない is not 解約する.
#[test]
fn unspaced_scripts_keep_their_negations() {
    assert_eq!(
        words("解約しない"),
        ["解", "約", "し", "な", "い"].map(str::to_owned)
    );
    // Japanese and Korean: "cancel the plan" opens a flow, as "Cancel
    // subscription" does; a yes, or "I cancel", is the last step; the
    // negation is nothing.
    let cases = [
        ("はい、解約する", Some(Strength::Strong)),
        ("プランを解約する", Some(Strength::Weak)),
        ("解約しない", None),
        ("구독 해지하기", Some(Strength::Weak)),
        ("예, 해지합니다", Some(Strength::Strong)),
    ];
    for (text, want) in cases {
        assert_eq!(
            sign_in_text(text, Place::Target).map(|s| s.strength),
            want,
            "{text}"
        );
    }
    assert_ne!(
        sign_in_text("不取消", Place::Target).map(|s| s.strength),
        Some(Strength::Strong)
    );
    // A Russian word stays Russian; a disguised Latin one is read as Latin.
    assert_eq!(words("Отменить"), ["отменить"].map(str::to_owned));
    assert_eq!(words("Fіnish"), ["finish"].map(str::to_owned));
}
