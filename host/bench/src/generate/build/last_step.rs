//! The last step: the reasons survey's fields (on its own page or merged
//! into the last one), and the confirm screen with its shapes — framed,
//! on another origin, a commit on GET, a `confirm()` dialog, double
//! negatives, hidden terms.

use crate::blueprint::{
    Action, Block, Control, Effect, Emphasis, Field, Form, Frame, Go, Method, Send, Style,
};
use crate::error::Result;
use crate::flow::{Ending, Origin, RequestPattern, Shape, Step, StepAction};
use crate::lang::{List, Word};

use super::super::{SurveyCommit, Work};
use super::{Builder, PROVIDER_COMMIT, PROVIDER_FRAME};

/// The reason select (and, when compulsory, a second required
/// question), with the honest run's answers as steps.
pub(super) fn survey_fields(
    b: &mut Builder<'_>,
    compulsory: bool,
    required: bool,
) -> Result<Vec<Field>> {
    let label = b.word(Word::ReasonLabel)?;
    // The service's own answer replaces the pack's last one ("Other"):
    // it is the answer an honest run (and the service's plan) picks.
    let chosen = b.word(Word::ReasonChoice)?;
    let mut reasons = b.list(List::Reasons)?;
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
        let options = b.list(List::ReturnOptions)?;
        let chosen = options.last().cloned().unwrap_or_default();
        b.step(StepAction::Check, "radio", &chosen);
        fields.push(Field::Radios {
            name: "return".into(),
            legend: b.word(Word::ReturnLabel)?,
            options: options
                .into_iter()
                .enumerate()
                .map(|(i, o)| (format!("r{i}"), o, false))
                .collect(),
        });
    }
    Ok(fields)
}

/// The neutral link a redirect-commit's final control goes to, the hop
/// after it, and the GET (or HEAD) that commits at the end of the chain.
const REDIRECT_FROM: &str = "/go/next";
const REDIRECT_HOP: &str = "/go/continue";
const REDIRECT_COMMIT: &str = "/membership/cancel/confirm";
/// The site's WebSocket (websocket-commit), and what goes over it: the
/// final button's message and the chat's "Close", which reads the same.
const SOCKET: &str = "/chat/socket";
const SOCKET_COMMIT: &str = r#"{"action":"cancel_membership","confirm":true}"#;
const SOCKET_CLOSE: &str = r#"{"action":"cancel_membership","confirm":true,"source":"chat_close"}"#;
/// Where a follow-up-commit's survey is posted: a feedback endpoint whose
/// words say nothing of cancelling, so the survey's post needs no yes and
/// the one yes is the follow-up's.
const SURVEY_POST: &str = "/feedback/survey";

/// `path` with its last segment replaced by `last`: a GET form's commit
/// reads like the service's own (`/account/cancel/submit` →
/// `/account/cancel/complete`).
fn sibling(path: &str, last: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{last}"),
        None => format!("/{last}"),
    }
}

pub(super) fn confirm(
    b: &mut Builder<'_>,
    screen: &Work,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<Option<Frame>> {
    let marks = &screen.marks;
    let heading = if let Some(law) = marks.statutory {
        super::statutory::heading(law)
    } else if marks.double_negative {
        Word::TrickHeading
    } else if marks.survey_commit.is_some() {
        Word::SurveyHeading
    } else {
        Word::ConfirmHeading
    };
    blocks.push(Block::Heading(b.word(heading)?));
    if marks.hidden_terms {
        blocks.push(Block::Fine(b.word(Word::FinePrint)?));
    } else if let Some(law) = marks.statutory {
        blocks.push(Block::Text(b.word(super::statutory::body(law))?));
    } else {
        blocks.push(Block::Text(b.word(Word::ConfirmBody)?));
    }
    let keep = Control::Go(Go {
        label: if marks.double_negative {
            b.word(Word::DnKeep)?
        } else {
            b.named(&screen.keep)?
        },
        to: b.bp.start.clone(),
        style: Style::Link,
        emphasis: if marks.double_negative {
            Emphasis::Primary
        } else {
            Emphasis::Secondary
        },
        note: None,
    });
    // A link or a socket message carries no form: a reason the skeleton
    // asks on this page is left out of these two.
    if b.has(Shape::RedirectCommit) {
        redirect_commit(b, screen, controls)?;
        controls.push(keep);
        return Ok(None);
    }
    if b.has(Shape::WebsocketCommit) {
        socket_commit(b, screen, blocks, controls)?;
        controls.push(keep);
        return Ok(None);
    }
    let first_step = b.path.len();
    let fields = if let Some(law) = marks.statutory {
        super::statutory::fields(b, law)?
    } else if screen.reason {
        survey_fields(b, false, false)?
    } else {
        Vec::new()
    };
    if let Some(how) = marks.survey_commit {
        survey_commit(b, screen, how, fields, controls)?;
        controls.push(keep);
        return Ok(None);
    }
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
    let submit = if marks.double_negative {
        b.word(Word::DnCommit)?
    } else {
        b.named(&screen.go)?
    };
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
        let text = b.word(Word::Dialog)?;
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
    let (effect, then) = if b.has(Shape::FailureAfterFinal) {
        // The site takes the request and answers that it failed.
        b.ending = Ending::Fails;
        let failed = format!("{}/error", action.trim_end_matches('/'));
        b.result_screen(&failed, (Word::FailedHeading, Word::FailedBody))?;
        (Effect::CommitFails, failed)
    } else {
        (Effect::Commit, b.family.done.clone())
    };
    b.bp.actions.push(Action {
        method,
        origin,
        path: action.clone(),
        when: None,
        effect,
        then,
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
        follow: None,
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
        title: b.word(Word::FrameTitle).unwrap_or_default(),
    }))
}

/// The commit step: a click on `role` named `name`, the one the yes is
/// asked before.
fn commit_step(b: &mut Builder<'_>, role: &str, name: &str) {
    b.step(StepAction::Click, role, name);
    if let Some(last) = b.path.last_mut() {
        last.commits = true;
    }
}

/// The last page is a survey: its "Submit" either is a GET form to the
/// commit (the reason in the query) or posts the survey by `fetch`, after
/// whose answer the page sends the cancellation itself.
fn survey_commit(
    b: &mut Builder<'_>,
    screen: &Work,
    how: SurveyCommit,
    fields: Vec<Field>,
    controls: &mut Vec<Control>,
) -> Result<()> {
    let submit = b.word(Word::Submit)?;
    commit_step(b, "button", &submit);
    let done = b.family.done.clone();
    let (method, action, follow) = match how {
        SurveyCommit::GetForm => {
            let commit = sibling(&b.family.commit, "complete");
            b.commit = Some(RequestPattern {
                method: "GET".into(),
                origin: Origin::Site,
                path: commit.clone(),
                body_has: None,
            });
            b.bp.actions.push(Action {
                method: Method::Get,
                origin: Origin::Site,
                path: commit.clone(),
                when: None,
                effect: Effect::Commit,
                then: done,
            });
            (Method::Get, commit, None)
        }
        SurveyCommit::FollowUp => {
            let survey = SURVEY_POST.to_owned();
            let commit = b.family.commit.clone();
            let post = |path: &str| RequestPattern {
                method: "POST".into(),
                origin: Origin::Site,
                path: path.to_owned(),
                body_has: None,
            };
            b.commit = Some(post(&commit));
            b.commit_follows = Some(post(&survey));
            b.bp.actions.push(Action {
                method: Method::Post,
                origin: Origin::Site,
                path: survey.clone(),
                when: None,
                effect: Effect::Navigate,
                then: screen.path.clone(),
            });
            b.bp.actions.push(Action {
                method: Method::Post,
                origin: Origin::Site,
                path: commit.clone(),
                when: None,
                effect: Effect::Commit,
                then: done,
            });
            (Method::Post, survey, Some(commit))
        }
    };
    controls.push(Control::Form(Form {
        method,
        origin: Origin::Site,
        action,
        fields,
        submit,
        emphasis: Emphasis::Primary,
        dialog: None,
        note: None,
        as_link: false,
        follow,
    }));
    Ok(())
}

/// The final control is a link to a neutral path that redirects twice to
/// a GET commit; the site answers HEAD there like GET.
fn redirect_commit(b: &mut Builder<'_>, screen: &Work, controls: &mut Vec<Control>) -> Result<()> {
    let label = b.named(&screen.go)?;
    commit_step(b, "link", &label);
    b.bp.head_as_get = true;
    b.bp.redirects = vec![
        (REDIRECT_FROM.to_owned(), REDIRECT_HOP.to_owned()),
        (
            REDIRECT_HOP.to_owned(),
            format!("{REDIRECT_COMMIT}?confirm=yes"),
        ),
    ];
    b.commit = Some(RequestPattern {
        method: "GET|HEAD".into(),
        origin: Origin::Site,
        path: REDIRECT_COMMIT.to_owned(),
        body_has: None,
    });
    b.bp.actions.push(Action {
        method: Method::Get,
        origin: Origin::Site,
        path: REDIRECT_COMMIT.to_owned(),
        when: None,
        effect: Effect::Commit,
        then: b.family.done.clone(),
    });
    controls.push(Control::Go(Go {
        label,
        to: REDIRECT_FROM.to_owned(),
        style: Style::Link,
        emphasis: Emphasis::Primary,
        note: None,
    }));
    Ok(())
}

/// The final button sends the cancellation over the site's WebSocket; the
/// chat widget on the same page sends the same words when it is closed.
fn socket_commit(
    b: &mut Builder<'_>,
    screen: &Work,
    blocks: &mut Vec<Block>,
    controls: &mut Vec<Control>,
) -> Result<()> {
    let label = b.named(&screen.go)?;
    commit_step(b, "button", &label);
    b.bp.socket = Some(SOCKET.to_owned());
    b.commit = Some(RequestPattern {
        method: Method::Ws.as_str().into(),
        origin: Origin::Site,
        path: SOCKET.to_owned(),
        body_has: Some("action=cancel_membership".into()),
    });
    b.bp.actions.push(Action {
        method: Method::Ws,
        origin: Origin::Site,
        path: SOCKET.to_owned(),
        when: Some(("action".into(), "cancel_membership".into())),
        effect: Effect::Commit,
        then: b.family.done.clone(),
    });
    blocks.push(Block::Chat {
        title: b.word(Word::Chat)?,
        close: b.word(Word::Close)?,
        close_message: SOCKET_CLOSE.to_owned(),
        socket: SOCKET.to_owned(),
    });
    controls.push(Control::Send(Send {
        label,
        message: SOCKET_COMMIT.to_owned(),
        emphasis: Emphasis::Primary,
    }));
    Ok(())
}
