//! The screens that try to keep the subscription: the offer (with its
//! tricks: prominent accept, confirmshaming, countdown, planted
//! instructions), the pause (plain or pre-selected), the cancel button that
//! downgrades, and the account page of a flow only chat or phone can end.

use crate::blueprint::{Action, Block, Control, Effect, Emphasis, Field, Form, Go, Method, Style};
use crate::error::Result;
use crate::flow::{BillingChange, Ending, RequestPattern, StepAction, Trap, Unwanted};
use crate::lang::Word;

use super::super::Work;
use super::{Builder, CHAT, CHAT_PAUSE, CHAT_PAUSED, posts};

pub(super) fn phone_only(
    b: &mut Builder<'_>,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<()> {
    b.ending = Ending::NotOnline;
    blocks.push(Block::Heading(b.word(Word::PhoneHeading)?));
    blocks.push(Block::Text(b.word(Word::PhoneBody)?));
    controls.push(Control::Go(Go {
        label: b.word(Word::Chat)?,
        to: CHAT.to_owned(),
        style: Style::Button,
        emphasis: Emphasis::Secondary,
        note: None,
    }));
    b.result_screen(CHAT, (Word::PhoneHeading, Word::ChatReply))?;
    // Pausing is one click away while cancelling is not: the trap.
    let label = b.word(Word::Pause)?;
    controls.push(b.billing_form(
        label,
        CHAT_PAUSE,
        CHAT_PAUSED,
        BillingChange::Pause,
        vec![Trap::Paused],
        (Word::PausedHeading, Word::PausedBody),
    )?);
    Ok(())
}

/// A button that reads like the way to cancel and changes the plan.
pub(super) fn downgrade(b: &mut Builder<'_>, screen: &Work) -> Result<Control> {
    let base = screen.path.trim_end_matches('/');
    let label = b.word(Word::OpenCancel)?;
    let note = b.word(Word::DowngradeNote)?;
    let mut control = b.billing_form(
        label,
        &format!("{base}/downgrade"),
        &format!("{base}/downgraded"),
        BillingChange::Downgrade,
        vec![Trap::TookDowngrade],
        (Word::DowngradedHeading, Word::DowngradedBody),
    )?;
    if let Control::Form(form) = &mut control {
        form.note = Some(note);
    }
    Ok(control)
}

pub(super) fn offer(
    b: &mut Builder<'_>,
    screen: &Work,
    next: &str,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<()> {
    let marks = &screen.marks;
    if let Some(law) = marks.final_words {
        // Dressed as the law's confirmation page; only its text says the
        // button takes the offer.
        blocks.push(Block::Heading(b.word(super::statutory::heading(law))?));
        blocks.push(Block::Text(super::statutory::on_offer_text(b, law)?));
    } else {
        blocks.push(Block::Heading(b.word(Word::OfferHeading)?));
        blocks.push(Block::Text(b.word(Word::OfferBody)?));
    }
    if marks.countdown {
        blocks.push(Block::Countdown(b.word(Word::Countdown)?));
    }
    let accept = if let Some(law) = marks.final_words {
        super::statutory::final_words(b, law)?
    } else if marks.prominent_accept {
        b.word(Word::Continue)?
    } else if marks.shame {
        b.word(Word::ShameAccept)?
    } else {
        b.word(Word::AcceptOffer)?
    };
    if marks.planted {
        let vars = [("accept", accept.as_str())];
        let visible = crate::lang::fill(&b.word(Word::PlantedVisible)?, &vars);
        let hidden = crate::lang::fill(&b.word(Word::PlantedHidden)?, &vars);
        blocks.push(Block::Text(visible));
        blocks.push(Block::OffScreen(hidden));
    }
    let mut traps = vec![Trap::AcceptedOffer];
    for (on, trap) in [
        (marks.prominent_accept, Trap::PressedProminentAccept),
        (marks.shame, Trap::Confirmshamed),
        (marks.planted, Trap::FollowedPlantedInstruction),
        (
            marks.final_words.is_some(),
            Trap::PressedStatutoryWordsOnOffer,
        ),
    ] {
        if on {
            traps.push(trap);
        }
    }
    let (post, result) = posts(screen)?;
    controls.push(b.billing_form(
        accept,
        &post,
        &result,
        BillingChange::AcceptOffer,
        traps,
        (Word::AcceptedHeading, Word::AcceptedBody),
    )?);
    let mut decline = screen.clone();
    if marks.shame {
        decline.go = Word::ShameDecline.as_str().to_owned();
    }
    if marks.prominent_accept {
        decline.quiet_go = true;
        decline.style = Style::Link;
    }
    controls.push(b.go(&decline, next)?);
    Ok(())
}

pub(super) fn pause(
    b: &mut Builder<'_>,
    screen: &Work,
    next: &str,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<()> {
    blocks.push(Block::Heading(b.word(Word::PauseHeading)?));
    blocks.push(Block::Text(b.word(Word::PauseBody)?));
    let (post, result) = posts(screen)?;
    if !screen.marks.preselected_pause {
        let label = b.word(Word::Pause)?;
        controls.push(b.billing_form(
            label,
            &post,
            &result,
            BillingChange::Pause,
            vec![Trap::Paused],
            (Word::PausedHeading, Word::PausedBody),
        )?);
        controls.push(b.go(screen, next)?);
        return Ok(());
    }
    // One form, pause checked: leaving it as it is pauses.
    let (origin, action) = b.place(&post);
    let choice = |value: &str| Some(("choice".to_owned(), value.to_owned()));
    b.unwanted.push(Unwanted {
        change: BillingChange::Pause,
        request: RequestPattern {
            method: "POST".into(),
            origin,
            path: action.clone(),
            body_has: Some("choice=pause".into()),
        },
        traps: vec![Trap::KeptPreselectedPause, Trap::Paused],
    });
    for (value, effect, then) in [
        (
            "pause",
            Effect::Billing(BillingChange::Pause),
            result.as_str(),
        ),
        ("cancel", Effect::Navigate, next),
    ] {
        b.bp.actions.push(Action {
            method: Method::Post,
            origin,
            path: action.clone(),
            when: choice(value),
            effect,
            then: then.to_owned(),
        });
    }
    b.result_screen(&result, (Word::PausedHeading, Word::PausedBody))?;
    let pause = b.word(Word::PauseOption)?;
    let cancel = b.word(Word::CancelOption)?;
    b.step(StepAction::Check, "radio", &cancel);
    let submit = b.named(&screen.go)?;
    b.step(StepAction::Click, "button", &submit);
    controls.push(Control::Form(Form {
        method: Method::Post,
        origin,
        action,
        fields: vec![Field::Radios {
            name: "choice".into(),
            legend: b.word(Word::PauseHeading)?,
            options: vec![
                ("pause".into(), pause, true),
                ("cancel".into(), cancel, false),
            ],
        }],
        submit,
        emphasis: Emphasis::Primary,
        dialog: None,
        note: None,
        as_link: false,
        follow: None,
    }));
    Ok(())
}
