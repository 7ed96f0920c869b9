//! The last step: the reasons survey's fields (on its own page or merged
//! into the last one), and the confirm screen with its shapes — framed,
//! on another origin, a commit on GET, a `confirm()` dialog, double
//! negatives, hidden terms.

use crate::blueprint::{
    Action, Block, Control, Effect, Emphasis, Field, Form, Frame, Go, Method, Style,
};
use crate::error::Result;
use crate::flow::{Origin, RequestPattern, Shape, Step, StepAction};

use super::super::Work;
use super::{Builder, PROVIDER_COMMIT, PROVIDER_FRAME};

/// The reason select (and, when compulsory, a second required
/// question), with the honest run's answers as steps.
pub(super) fn survey_fields(
    b: &mut Builder<'_>,
    compulsory: bool,
    required: bool,
) -> Result<Vec<Field>> {
    let label = b.word("reason_label")?;
    // The service's own answer replaces the pack's last one ("Other"):
    // it is the answer an honest run (and the service's plan) picks.
    let chosen = b.word("reason_choice")?;
    let mut reasons = b.pack.list("reasons")?.to_vec();
    reasons.pop();
    reasons.push(chosen.clone());
    b.path.push(Step {
        action: StepAction::Select,
        role: "combobox".into(),
        name: label.clone(),
        option: Some(chosen),
        in_frame: false,
        commits: false,
    });
    let mut fields = vec![Field::Select {
        name: "reason".into(),
        label,
        options: reasons,
        required: required || compulsory,
    }];
    if compulsory {
        let options = b.pack.list("return_options")?.to_vec();
        let chosen = options.last().cloned().unwrap_or_default();
        b.step(StepAction::Check, "radio", &chosen);
        fields.push(Field::Radios {
            name: "return".into(),
            legend: b.word("return_label")?,
            options: options
                .into_iter()
                .enumerate()
                .map(|(i, o)| (format!("r{i}"), o, false))
                .collect(),
        });
    }
    Ok(fields)
}

pub(super) fn confirm(
    b: &mut Builder<'_>,
    screen: &Work,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<Option<Frame>> {
    let marks = &screen.marks;
    let heading = if marks.double_negative {
        "trick_heading"
    } else {
        "confirm_heading"
    };
    blocks.push(Block::Heading(b.word(heading)?));
    if marks.hidden_terms {
        blocks.push(Block::Fine(b.word("fine_print")?));
    } else {
        blocks.push(Block::Text(b.word("confirm_body")?));
    }
    let keep = Control::Go(Go {
        label: b.word(if marks.double_negative {
            "dn_keep"
        } else {
            &screen.keep
        })?,
        to: b.bp.start.clone(),
        style: Style::Link,
        emphasis: if marks.double_negative {
            Emphasis::Primary
        } else {
            Emphasis::Secondary
        },
        note: None,
    });
    let first_step = b.path.len();
    let fields = if screen.reason {
        survey_fields(b, false, false)?
    } else {
        Vec::new()
    };
    let framed = if b.has(Shape::IframeCrossOrigin) {
        Some(Origin::Api)
    } else if b.has(Shape::Iframe) {
        Some(Origin::Site)
    } else {
        None
    };
    let get = b.has(Shape::GetCommit);
    let (origin, action) = match framed {
        Some(Origin::Api) => (Origin::Api, PROVIDER_COMMIT.to_owned()),
        _ => b.place(&b.family.commit),
    };
    let method = if get { Method::Get } else { Method::Post };
    let submit = b.word(if marks.double_negative {
        "dn_commit"
    } else {
        &screen.go
    })?;
    let role = if get { "link" } else { "button" };
    b.step(StepAction::Click, role, &submit);
    if let Some(last) = b.path.last_mut() {
        last.commits = true;
    }
    if framed.is_some() {
        // The choices before the final click are in the frame too.
        for step in &mut b.path[first_step..] {
            step.in_frame = true;
        }
    }
    let dialog = if b.has(Shape::ConfirmDialog) {
        let text = b.word("dialog")?;
        b.step(StepAction::AcceptDialog, "dialog", &text);
        Some(text)
    } else {
        None
    };
    b.commit = Some(RequestPattern {
        method: method.as_str().into(),
        origin,
        path: action.clone(),
        body_has: None,
    });
    b.bp.actions.push(Action {
        method,
        origin,
        path: action.clone(),
        when: None,
        effect: Effect::Commit,
        then: b.family.done.clone(),
    });
    let commit = Control::Form(Form {
        method,
        origin,
        action,
        fields: if get {
            vec![Field::Hidden {
                name: "confirm".into(),
                value: "yes".into(),
            }]
        } else {
            fields
        },
        submit,
        emphasis: if marks.double_negative {
            Emphasis::Secondary
        } else {
            Emphasis::Primary
        },
        dialog,
        note: None,
        as_link: get,
    });
    if marks.double_negative {
        controls.push(keep);
        controls.push(commit);
    } else {
        controls.push(commit);
        controls.push(keep);
    }
    Ok(framed.map(|origin| Frame {
        origin,
        path: match origin {
            Origin::Api => PROVIDER_FRAME.to_owned(),
            Origin::Site => format!("{}/frame", screen.path.trim_end_matches('/')),
        },
        title: b.word("frame_title").unwrap_or_default(),
    }))
}
