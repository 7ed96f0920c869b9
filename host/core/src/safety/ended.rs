//! What ended: the subscription, or only something inside it.
//!
//! "Your Extra Member slot has been cancelled" says "cancelled" as surely
//! as the subscription's own confirmation does, and a yes to removing an
//! add-on releases a request as surely as the final step's. Verification
//! needs the cancellation to be the subscription's: a page whose claim
//! speaks of an add-on, a profile, a device or a seat, or says the plan
//! goes on, and a run whose every released request names one, ended an
//! add-on — a failure with its own reason, never a receipt.
//!
//! The words are those services use for the things one ends inside a
//! subscription (Netflix's "extra member", Spotify's "Premium Family"
//! members, Disney+'s add-ons, Sky's and Canal+'s options, Amazon's
//! channels) and each language's grammar for "goes on unchanged"; the
//! tables below are tested with phrasings written apart from them.

use std::sync::LazyLock;

use super::floor::{Pattern, words};

/// Things inside a subscription that can be ended on their own.
const ADD_ONS: &[&str] = &[
    "add-on*",
    "add on*",
    "addon*",
    "extra member*",
    "extra-member*",
    "extra mitglied*",
    "extra-mitglied*",
    "zusatzmitglied*",
    "zusatzoption*",
    "zusatzpaket*",
    "option*",
    "membre supplémentaire",
    "membres supplémentaires",
    "miembro extra",
    "miembros extra",
    "membro extra",
    "membri extra",
    "profile",
    "profil",
    "profiel",
    "perfil",
    "profilo",
    "device",
    "gerät",
    "appareil",
    "dispositivo",
    "apparaat",
    "urządzenie",
    "seat",
    "slot",
    "channel",
    "kanal",
    "chaîne",
    "canal",
    "canale",
    "kanaal",
    "kanał",
    "extra user",
    "additional member",
    "family member",
    "familienmitglied",
    "ekstra medlem",
    "extra medlem",
    "lisäjäsen",
    "ek üye",
    "дополнительн*",
    "追加メンバー",
    "オプション",
    "附加",
    "추가 회원",
];

/// The subscription itself goes on unchanged: said beside an ended
/// add-on. Only "unchanged" and its kind: "stays active until March 3" is
/// what a true confirmation says too.
const GOES_ON: &[&str] = &[
    "continues unchanged",
    "continues as before",
    "plan ~ unchanged",
    "subscription ~ unchanged",
    "membership ~ unchanged",
    "unverändert",
    "inchangé*",
    "sin cambios",
    "invariato",
    "invariata",
    "ongewijzigd",
    "sem alterações",
    "bez zmian",
    "oförändrad*",
    "uændret",
    "uendret",
    "muuttumattomana",
    "değişmeden",
    "без изменений",
    "変更はありません",
    "保持不变",
];

struct Tables {
    add_ons: Vec<Pattern>,
    goes_on: Vec<Pattern>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| Tables {
    add_ons: ADD_ONS.iter().map(|p| Pattern::new(p)).collect(),
    goes_on: GOES_ON.iter().map(|p| Pattern::new(p)).collect(),
});

fn first(table: &[Pattern], tokens: &[String]) -> Option<&'static str> {
    table
        .iter()
        .find(|p| p.find(tokens, 0).is_some())
        .map(|p| p.phrase)
}

/// Why the page reads as an add-on ended rather than the subscription:
/// it says the subscription goes on, or the sentence of its claim names an
/// add-on. `claim` is the phrase the success reader affirmed.
pub fn add_on_ended(visible: &str, claim: &'static str) -> Option<String> {
    let tables = &*TABLES;
    let claim = Pattern::new(claim);
    for sentence in visible.split(['.', '!', '\n', '。', '！']) {
        let tokens = words(sentence);
        if let Some(phrase) = first(&tables.goes_on, &tokens) {
            return Some(format!(
                "the page says the subscription goes on (\"{phrase}\")"
            ));
        }
        if claim.find(&tokens, 0).is_some()
            && let Some(phrase) = first(&tables.add_ons, &tokens)
        {
            return Some(format!(
                "what the page says was cancelled is an add-on (\"{phrase}\"), not the subscription"
            ));
        }
    }
    None
}

/// Whether a released request's address names an add-on
/// (`/account/extra-member/remove`, `/addons/cancel`).
pub fn url_names_add_on(url: &str) -> bool {
    let path = url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.path().to_owned());
    let tokens = words(&path.replace(['/', '_'], " "));
    first(&TABLES.add_ons, &tokens).is_some()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn what_ended_table() {
        let cases: &[(&str, &str, bool)] = &[
            (
                "Dein Extra-Mitglied-Platz wurde gekündigt. Dein Abo läuft unverändert weiter.",
                "gekündigt",
                true,
            ),
            (
                "Your extra member slot has been cancelled. Your plan continues as before.",
                "cancelled",
                true,
            ),
            (
                "The add-on Disney+ Extra has been cancelled.",
                "cancelled",
                true,
            ),
            (
                "L'option Sport a été résiliée. Votre abonnement reste inchangé.",
                "résiliée",
                true,
            ),
            (
                "Your membership has been cancelled. It stays active until March 3.",
                "cancelled",
                false,
            ),
            (
                "Dein Abo wurde gekündigt. Es läuft bis zum 3. März weiter.",
                "gekündigt",
                false,
            ),
            ("Your membership has been cancelled.", "cancelled", false),
            (
                "Your membership has been cancelled. Your profiles are kept for 10 months.",
                "cancelled",
                false,
            ),
            ("Deine Mitgliedschaft wurde gekündigt.", "gekündigt", false),
            ("Su suscripción ha sido cancelada.", "cancelada", false),
        ];
        for (page, claim, addon) in cases {
            assert_eq!(add_on_ended(page, claim).is_some(), *addon, "{page}");
        }
    }

    #[test]
    fn which_addresses_name_an_add_on_table() {
        for (url, want) in [
            ("https://x.test/account/extra-member/remove", true),
            ("https://x.test/addons/disney-extra/cancel", true),
            ("https://x.test/profiles/3/delete", false),
            ("https://x.test/profile/delete", true),
            ("https://x.test/account/cancel/submit", false),
            ("https://x.test/membership/cancel/complete", false),
        ] {
            assert_eq!(url_names_add_on(url), want, "{url}");
        }
    }
}
