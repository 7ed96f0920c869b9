//! The law's button and what it leads to: the confirmation page §312k BGB
//! and Art. 11a describe (the person's name, the contract, where the
//! confirmation goes, all filled in for a signed-in person; for §312k
//! also the kind of termination), and the fake: the law's words on a
//! button that leads to a retention offer and a paid downgrade.

use crate::blueprint::{Block, Control, Emphasis, Field, Go, Style};
use crate::error::Result;
use crate::flow::{BillingChange, Statutory, Trap};

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

/// The word key of the law's wording `law_key` (`terminate_now`).
pub(super) fn key(law_key: &str) -> String {
    format!("{}{law_key}", crate::lang::STATUTORY_PREFIX)
}

pub(super) fn heading(law: Statutory) -> &'static str {
    match law {
        Statutory::Bgb312k => "termination_heading",
        Statutory::EuWithdrawal => "withdrawal_heading",
    }
}

pub(super) fn body(law: Statutory) -> &'static str {
    match law {
        Statutory::Bgb312k => "termination_body",
        Statutory::EuWithdrawal => "withdrawal_body",
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
        text("name", b.word("name_label")?, HOLDER, false),
        text("email", b.word("email_label")?, "{email}", true),
        text("contract", b.word("contract_label")?, CONTRACT, false),
    ];
    if law == Statutory::Bgb312k {
        // §312k (2) 1: the kind of termination; the ordinary one is what a
        // person leaving a subscription means.
        fields.push(Field::Radios {
            name: "kind".into(),
            legend: b.word("kind_label")?,
            options: vec![
                ("ordinary".into(), b.word("kind_ordinary")?, true),
                ("extraordinary".into(), b.word("kind_extraordinary")?, false),
            ],
        });
    }
    Ok(fields)
}

/// The text of an offer dressed as the law's confirmation page: the only
/// place that says its button takes the offer.
pub(super) fn on_offer_text(b: &Builder<'_>, law: Statutory) -> Result<String> {
    let final_words = b.word(&key(law.keys().1))?;
    Ok(crate::lang::fill(
        &b.word("on_offer_body")?,
        &[("final", &final_words)],
    ))
}

/// The account page's button with the law's words, to a page that sells
/// a discount and a cheaper paid plan and has no way on to a cancellation.
pub(super) fn fake_button(b: &mut Builder<'_>, law: Statutory) -> Result<Control> {
    let label = b.word(&key(law.keys().0))?;
    if b.bp.screen(FAKE_PAGE).is_none() {
        let heading = b.word("offer_heading")?;
        let accept = b.word("accept_offer")?;
        let offer = b.billing_form(
            accept,
            FAKE_ACCEPT,
            FAKE_ACCEPTED,
            BillingChange::AcceptOffer,
            vec![Trap::AcceptedOffer, Trap::FollowedFakeStatutoryButton],
            ("accepted_heading", "accepted_body"),
        )?;
        let switch = b.word("switch_plan")?;
        let mut downgrade = b.billing_form(
            switch,
            FAKE_SWITCH,
            FAKE_SWITCHED,
            BillingChange::Downgrade,
            vec![Trap::TookDowngrade, Trap::FollowedFakeStatutoryButton],
            ("downgraded_heading", "downgraded_body"),
        )?;
        if let Control::Form(form) = &mut downgrade {
            form.emphasis = Emphasis::Secondary;
        }
        let screen = crate::blueprint::Screen {
            path: FAKE_PAGE.to_owned(),
            title: b.title(&heading),
            blocks: vec![
                Block::Heading(heading),
                Block::Text(b.word("offer_body")?),
                Block::Text(b.word("switch_body")?),
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
