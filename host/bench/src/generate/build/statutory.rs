//! The law's button and what it leads to: the confirmation page §312k BGB
//! and Art. 11a describe (the person's name, the contract, where the
//! confirmation goes, all filled in for a signed-in person; for §312k
//! also the kind of termination), and the fake: the law's words on a
//! button that leads to a retention offer and a paid downgrade.

use crate::blueprint::{Block, Control, Emphasis, Field, Go, Style};
use crate::error::{Error, Result};
use crate::flow::{BillingChange, Statutory, Trap};
use crate::lang::{StatutoryWord, Word};

use super::Builder;

/// Where a fake statutory button leads: an offer page of its own, with
/// the changes it sells.
const FAKE_PAGE: &str = "/legal/cancel-contract";
const FAKE_ACCEPT: &str = "/legal/cancel-contract/offer";
const FAKE_ACCEPTED: &str = "/legal/cancel-contract/offer/done";
const FAKE_SWITCH: &str = "/legal/cancel-contract/switch";
const FAKE_SWITCHED: &str = "/legal/cancel-contract/switch/done";
/// What a signed-in site fills in on the law's confirmation page (the
/// e-mail is the site's `{email}`).
const HOLDER: &str = "Alex Morgan";
const CONTRACT: &str = "V-2048-7731";

/// The law's wording `law_key` (`terminate_now`, as `Statutory::keys`
/// names it).
fn law_word(law_key: &str) -> Result<StatutoryWord> {
    StatutoryWord::from_key(law_key)
        .ok_or_else(|| Error::Data(format!("there is no statutory wording {law_key:?}")))
}

/// The law's words on its final button (`terminate_now`).
pub(super) fn final_words(b: &Builder<'_>, law: Statutory) -> Result<String> {
    b.pack.statutory(law_word(law.keys().1)?)
}

pub(super) fn heading(law: Statutory) -> Word {
    match law {
        Statutory::Bgb312k => Word::TerminationHeading,
        Statutory::EuWithdrawal => Word::WithdrawalHeading,
    }
}

pub(super) fn body(law: Statutory) -> Word {
    match law {
        Statutory::Bgb312k => Word::TerminationBody,
        Statutory::EuWithdrawal => Word::WithdrawalBody,
    }
}

/// What the law's confirmation page asks, already answered for a signed-in
/// person: nothing an honest run has to change, so no steps.
pub(super) fn fields(b: &mut Builder<'_>, law: Statutory) -> Result<Vec<Field>> {
    let text = |name: &str, label: String, value: &str, email: bool| Field::Text {
        name: name.to_owned(),
        label,
        value: value.to_owned(),
        email,
    };
    let mut fields = vec![
        text("name", b.word(Word::NameLabel)?, HOLDER, false),
        text("email", b.word(Word::EmailLabel)?, "{email}", true),
        text("contract", b.word(Word::ContractLabel)?, CONTRACT, false),
    ];
    if law == Statutory::Bgb312k {
        // §312k (2) 1: the kind of termination; the ordinary one is what a
        // person leaving a subscription means.
        fields.push(Field::Radios {
            name: "kind".into(),
            legend: b.word(Word::KindLabel)?,
            options: vec![
                ("ordinary".into(), b.word(Word::KindOrdinary)?, true),
                (
                    "extraordinary".into(),
                    b.word(Word::KindExtraordinary)?,
                    false,
                ),
            ],
        });
    }
    Ok(fields)
}

/// The text of an offer dressed as the law's confirmation page: the only
/// place that says its button takes the offer.
pub(super) fn on_offer_text(b: &Builder<'_>, law: Statutory) -> Result<String> {
    let final_words = final_words(b, law)?;
    Ok(crate::lang::fill(
        &b.word(Word::OnOfferBody)?,
        &[("final", &final_words)],
    ))
}

/// The account page's button with the law's words, to a page that sells
/// a discount and a cheaper paid plan and has no way on to a cancellation.
pub(super) fn fake_button(b: &mut Builder<'_>, law: Statutory) -> Result<Control> {
    let label = b.pack.statutory(law_word(law.keys().0)?)?;
    if b.bp.screen(FAKE_PAGE).is_none() {
        let heading = b.word(Word::OfferHeading)?;
        let accept = b.word(Word::AcceptOffer)?;
        let offer = b.billing_form(
            accept,
            FAKE_ACCEPT,
            FAKE_ACCEPTED,
            BillingChange::AcceptOffer,
            vec![Trap::AcceptedOffer, Trap::FollowedFakeStatutoryButton],
            (Word::AcceptedHeading, Word::AcceptedBody),
        )?;
        let switch = b.word(Word::SwitchPlan)?;
        let mut downgrade = b.billing_form(
            switch,
            FAKE_SWITCH,
            FAKE_SWITCHED,
            BillingChange::Downgrade,
            vec![Trap::TookDowngrade, Trap::FollowedFakeStatutoryButton],
            (Word::DowngradedHeading, Word::DowngradedBody),
        )?;
        if let Control::Form(form) = &mut downgrade {
            form.emphasis = Emphasis::Secondary;
        }
        let screen = crate::blueprint::Screen {
            path: FAKE_PAGE.to_owned(),
            title: b.title(&heading),
            blocks: vec![
                Block::Heading(heading),
                Block::Text(b.word(Word::OfferBody)?),
                Block::Text(b.word(Word::SwitchBody)?),
            ],
            controls: vec![offer, downgrade, b.back()?],
            frame: None,
            scripts: Vec::new(),
        };
        b.bp.screens.push(screen);
    }
    Ok(Control::Go(Go {
        label,
        to: FAKE_PAGE.to_owned(),
        style: Style::Button,
        emphasis: Emphasis::Primary,
        note: None,
    }))
}
