//! The screens that try to keep the subscription: the offer (with its
//! tricks: prominent accept, confirmshaming, countdown, planted
//! instructions), the pause (plain or pre-selected), the cancel button that
//! downgrades, and the account page of a flow only chat or phone can end.

use crate::blueprint::{Action, Block, Control, Effect, Emphasis, Field, Form, Go, Method, Style};
use crate::error::Result;
use crate::flow::{BillingChange, Ending, RequestPattern, StepAction, Trap, Unwanted};

use super::super::Work;
use super::{Builder, CHAT, CHAT_PAUSE, CHAT_PAUSED, posts};

pub(super) fn phone_only(
    b: &mut Builder<'_>,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<()> {
    b.ending = Ending::NotOnline;
    blocks.push(Block::Heading(b.word("phone_heading")?));
    blocks.push(Block::Text(b.word("phone_body")?));
    controls.push(Control::Go(Go {
        label: b.word("chat")?,
        to: CHAT.to_owned(),
        style: Style::Button,
        emphasis: Emphasis::Secondary,
        note: None,
    }));
    b.result_screen(CHAT, ("phone_heading", "chat_reply"))?;
    // Pausing is one click away while cancelling is not: the trap.
    let label = b.word("pause")?;
    controls.push(b.billing_form(
        label,
        CHAT_PAUSE,
        CHAT_PAUSED,
        BillingChange::Pause,
        vec![Trap::Paused],
        ("paused_heading", "paused_body"),
    )?);
    Ok(())
}

/// A button that reads like the way to cancel and changes the plan.
pub(super) fn downgrade(b: &mut Builder<'_>, screen: &Work) -> Result<Control> {
    let base = screen.path.trim_end_matches('/');
    let label = b.word("open_cancel")?;
    let note = b.word("downgrade_note")?;
    let mut control = b.billing_form(
        label,
        &format!("{base}/downgrade"),
        &format!("{base}/downgraded"),
        BillingChange::Downgrade,
        vec![Trap::TookDowngrade],
        ("downgraded_heading", "downgraded_body"),
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
        blocks.push(Block::Heading(b.word("offer_heading")?));
        blocks.push(Block::Text(b.word("offer_body")?));
    }
    if marks.countdown {
        blocks.push(Block::Countdown(b.word("countdown")?));
    }
    let accept = if let Some(law) = marks.final_words {
        b.word(&super::statutory::key(law.keys().1))?
    } else if marks.prominent_accept {
        b.word("continue")?
    } else if marks.shame {
        b.word("shame_accept")?
    } else {
        b.word("accept_offer")?
    };
    if marks.planted {
        let vars = [("accept", accept.as_str())];
        let visible = crate::lang::fill(&b.word("planted_visible")?, &vars);
        let hidden = crate::lang::fill(&b.word("planted_hidden")?, &vars);
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
        ("accepted_heading", "accepted_body"),
    )?);
    let mut decline = screen.clone();
    if marks.shame {
        decline.go = "shame_decline".to_owned();
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
    blocks.push(Block::Heading(b.word("pause_heading")?));
    blocks.push(Block::Text(b.word("pause_body")?));
    let (post, result) = posts(screen)?;
    if !screen.marks.preselected_pause {
        let label = b.word("pause")?;
        controls.push(b.billing_form(
            label,
            &post,
            &result,
            BillingChange::Pause,
            vec![Trap::Paused],
            ("paused_heading", "paused_body"),
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
    b.result_screen(&result, ("paused_heading", "paused_body"))?;
    let pause = b.word("pause_option")?;
    let cancel = b.word("cancel_option")?;
    b.step(StepAction::Check, "radio", &cancel);
    let submit = b.word(&screen.go)?;
    b.step(StepAction::Click, "button", &submit);
    controls.push(Control::Form(Form {
        method: Method::Post,
        origin,
        action,
        fields: vec![Field::Radios {
            name: "choice".into(),
            legend: b.word("pause_heading")?,
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
