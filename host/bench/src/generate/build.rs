//! Words the shaped screens in one language and writes, from the same
//! screens, the blueprint the site serves and the truth the scorer reads:
//! every control an honest run uses becomes a step of the expected path
//! where it is drawn, so the two cannot disagree.

use crate::blueprint::{
    Action, Block, Blueprint, Control, Effect, Emphasis, Field, Form, Frame, Go, Method, Screen,
    Style,
};
use crate::error::{Error, Result};
use crate::family::{Family, Kind, Variant};
use crate::flow::{
    BillingChange, Ending, Flow, Origin, RequestPattern, Shape, Step, StepAction, Trap, Trick,
    Truth, Unwanted,
};
use crate::lang::LangPack;

use super::Work;

/// Where a flow whose only way out is chat shows the chat.
const CHAT: &str = "/help/chat";
const CHAT_PAUSE: &str = "/help/pause";
const CHAT_PAUSED: &str = "/help/paused";
/// The frame a billing provider serves the last step in (second origin).
const PROVIDER_FRAME: &str = "/embed/cancel";
const PROVIDER_COMMIT: &str = "/embed/cancel/complete";
/// Where a single-page app's API lives on the second origin.
const API_PREFIX: &str = "/v1";

struct Builder<'a> {
    family: &'a Family,
    variant: &'a Variant,
    pack: &'a LangPack,
    vars: Vec<(&'static str, String)>,
    bp: Blueprint,
    path: Vec<Step>,
    unwanted: Vec<Unwanted>,
    commit: Option<RequestPattern>,
    ending: Ending,
}

pub(super) fn flow(
    family: &Family,
    variant: &Variant,
    pack: &LangPack,
    id: String,
    screens: Vec<Work>,
    service_steps: bool,
) -> Result<Flow> {
    let start = screens
        .first()
        .map(|s| s.path.clone())
        .ok_or_else(|| Error::Data(format!("flow {id}: no screens")))?;
    let has = |s: Shape| variant.shape.contains(&s);
    let spa = if has(Shape::SpaApiOrigin) {
        Some(Origin::Api)
    } else if has(Shape::Spa) {
        Some(Origin::Site)
    } else {
        None
    };
    let date_format = match (&family.date_format, pack.code.as_str()) {
        (Some(format), "en") => format.clone(),
        _ => pack.date_format.clone(),
    };
    let mut b = Builder {
        family,
        variant,
        pack,
        vars: vec![
            ("brand", family.brand.clone()),
            ("plan", family.plan.clone()),
            ("price", family.price.clone()),
            ("cheaper", family.cheaper.clone()),
            ("cheaper_price", family.cheaper_price.clone()),
            ("addon", family.addon.clone()),
            ("addon_price", family.addon_price.clone()),
        ],
        bp: Blueprint {
            lang: pack.code.clone(),
            rtl: pack.rtl,
            brand: family.brand.clone(),
            color: family.color.clone(),
            date_format,
            start: start.clone(),
            done: family.done.clone(),
            spa,
            shadow: has(Shape::ShadowDom),
            ..Blueprint::default()
        },
        path: Vec::new(),
        unwanted: Vec::new(),
        commit: None,
        ending: Ending::Commit,
    };
    b.bp.footer = b.word("footer")?;
    for (at, screen) in screens.iter().enumerate() {
        let next = screens.get(at + 1).map(|s| s.path.as_str()).unwrap_or("");
        if b.ending != Ending::Commit && screen.kind == Kind::Confirm {
            // A phone-only flow keeps its confirm to know the commit path:
            // it is never drawn.
            continue;
        }
        b.screen(screen, next)?;
    }
    b.done_screen()?;
    let no_confirmation = variant.trick.contains(&Trick::NoConfirmation);
    let confirmation = if no_confirmation || b.ending == Ending::NotOnline {
        Vec::new()
    } else {
        vec![b.word("done_heading")?]
    };
    let truth = Truth {
        ending: b.ending,
        cancellable_online: b.ending != Ending::NotOnline,
        commit: b.commit.clone(),
        unwanted: b.unwanted.clone(),
        confirmation,
        ideal_yeses: u32::from(b.ending == Ending::Commit),
        expected_path: b.path.clone(),
    };
    Ok(Flow {
        id,
        service: family.service.clone(),
        brand: family.brand.clone(),
        language: pack.code.clone(),
        tricks: variant.trick.clone(),
        shapes: variant.shape.clone(),
        split: variant.split,
        service_steps,
        start_path: start,
        truth,
        blueprint: b.bp,
    })
}

impl Builder<'_> {
    fn word(&self, key: &str) -> Result<String> {
        let vars: Vec<(&str, &str)> = self.vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.pack.word(&self.family.service, key, &vars)
    }

    fn has(&self, shape: Shape) -> bool {
        self.variant.shape.contains(&shape)
    }

    /// Where a form that changes something posts: a single-page app on the
    /// second origin sends it to its API there.
    fn place(&self, path: &str) -> (Origin, String) {
        if self.bp.spa == Some(Origin::Api) {
            (Origin::Api, format!("{API_PREFIX}{path}"))
        } else {
            (Origin::Site, path.to_owned())
        }
    }

    fn step(&mut self, action: StepAction, role: &str, name: &str) {
        self.path.push(Step {
            action,
            role: role.to_owned(),
            name: name.to_owned(),
            option: None,
            in_frame: false,
            commits: false,
        });
    }

    /// The control that goes on, and the click an honest run makes on it.
    fn go(&mut self, screen: &Work, to: &str) -> Result<Control> {
        let label = self.word(&screen.go)?;
        self.step(StepAction::Click, screen.style.role(), &label);
        Ok(Control::Go(Go {
            label,
            to: to.to_owned(),
            style: screen.style,
            emphasis: if screen.quiet_go {
                Emphasis::Quiet
            } else {
                Emphasis::Secondary
            },
            note: None,
        }))
    }

    /// A one-button form that changes billing, with the page it leads to.
    fn billing_form(
        &mut self,
        label: String,
        post: &str,
        result: &str,
        change: BillingChange,
        traps: Vec<Trap>,
        result_words: (&str, &str),
    ) -> Result<Control> {
        let (origin, action) = if change == BillingChange::AddOn {
            (Origin::Api, post.to_owned())
        } else {
            self.place(post)
        };
        self.unwanted.push(Unwanted {
            change,
            request: RequestPattern {
                method: "POST".into(),
                origin,
                path: action.clone(),
                body_has: None,
            },
            traps,
        });
        self.bp.actions.push(Action {
            method: Method::Post,
            origin,
            path: action.clone(),
            when: None,
            effect: Effect::Billing(change),
            then: result.to_owned(),
        });
        self.result_screen(result, result_words)?;
        Ok(Control::Form(Form {
            method: Method::Post,
            origin,
            action,
            fields: Vec::new(),
            submit: label,
            emphasis: Emphasis::Primary,
            dialog: None,
            note: None,
            as_link: false,
        }))
    }

    /// A page that only says what happened, with a way back.
    fn result_screen(&mut self, path: &str, (heading, body): (&str, &str)) -> Result<()> {
        if self.bp.screen(path).is_some() {
            return Ok(());
        }
        let heading = self.word(heading)?;
        let screen = Screen {
            path: path.to_owned(),
            title: self.title(&heading),
            blocks: vec![Block::Heading(heading), Block::Text(self.word(body)?)],
            controls: vec![self.back()?],
            frame: None,
        };
        self.bp.screens.push(screen);
        Ok(())
    }

    fn back(&self) -> Result<Control> {
        Ok(Control::Go(Go {
            label: self.word("back")?,
            to: self.bp.start.clone(),
            style: Style::Link,
            emphasis: Emphasis::Secondary,
            note: None,
        }))
    }

    fn title(&self, heading: &str) -> String {
        self.family.title.replace("{title}", heading)
    }

    fn screen(&mut self, screen: &Work, next: &str) -> Result<()> {
        let mut blocks = Vec::new();
        let mut controls = Vec::new();
        let mut frame = None;
        match screen.kind {
            Kind::Account | Kind::Manage => {
                let heading = if screen.kind == Kind::Account {
                    "account_heading"
                } else {
                    "manage_heading"
                };
                blocks.push(Block::Heading(self.word(heading)?));
                blocks.push(Block::Text(self.word("plan_line")?));
                if screen.kind == Kind::Account {
                    blocks.push(Block::Text(self.word("email_line")?));
                }
                if screen.marks.phone_only {
                    self.phone_only(&mut blocks, &mut controls)?;
                } else {
                    if screen.marks.downgrade {
                        controls.push(self.downgrade(screen)?);
                    }
                    controls.push(self.go(screen, next)?);
                }
            }
            Kind::Menu => {
                let heading = screen.heading.as_deref().unwrap_or("settings_heading");
                blocks.push(Block::Heading(self.word(heading)?));
                for decoy in ["menu_help", "menu_privacy", "menu_devices"] {
                    controls.push(Control::Go(Go {
                        label: self.word(decoy)?,
                        to: screen.path.clone(),
                        style: Style::Link,
                        emphasis: Emphasis::Secondary,
                        note: None,
                    }));
                }
                controls.push(self.go(screen, next)?);
            }
            Kind::Benefits => {
                blocks.push(Block::Heading(self.word("benefits_heading")?));
                blocks.push(Block::Text(self.word("benefits_body")?));
                controls.push(self.go(screen, next)?);
            }
            Kind::Offer => self.offer(screen, next, &mut blocks, &mut controls)?,
            Kind::Switch => {
                blocks.push(Block::Heading(self.word("switch_heading")?));
                blocks.push(Block::Text(self.word("switch_body")?));
                let (post, result) = posts(screen)?;
                let label = self.word("switch_plan")?;
                controls.push(self.billing_form(
                    label,
                    &post,
                    &result,
                    BillingChange::Downgrade,
                    vec![Trap::TookDowngrade],
                    ("downgraded_heading", "downgraded_body"),
                )?);
                controls.push(self.go(screen, next)?);
            }
            Kind::Pause => self.pause(screen, next, &mut blocks, &mut controls)?,
            Kind::Survey => {
                blocks.push(Block::Heading(self.word("survey_heading")?));
                let fields = self.survey_fields(screen.marks.compulsory, true)?;
                let submit = self.word(&screen.go)?;
                self.step(StepAction::Click, "button", &submit);
                controls.push(Control::Form(Form {
                    method: Method::Get,
                    origin: Origin::Site,
                    action: next.to_owned(),
                    fields,
                    submit,
                    emphasis: Emphasis::Primary,
                    dialog: None,
                    note: None,
                    as_link: false,
                }));
            }
            Kind::CrossSell => {
                blocks.push(Block::Heading(self.word("crosssell_heading")?));
                blocks.push(Block::Text(self.word("crosssell_body")?));
                let (post, result) = posts(screen)?;
                let label = self.word("add_on")?;
                controls.push(self.billing_form(
                    label,
                    &post,
                    &result,
                    BillingChange::AddOn,
                    vec![Trap::BoughtCrossSell],
                    ("added_heading", "added_body"),
                )?);
                controls.push(self.go(screen, next)?);
            }
            Kind::Password => {
                blocks.push(Block::Heading(self.word("password_heading")?));
                blocks.push(Block::Text(self.word("password_body")?));
                let label = self.word("password_label")?;
                self.step(StepAction::HandOver, "textbox", &label);
                self.ending = Ending::HandOver;
                self.bp.actions.push(Action {
                    method: Method::Post,
                    origin: Origin::Site,
                    path: screen.path.clone(),
                    when: None,
                    effect: Effect::Credential,
                    then: next.to_owned(),
                });
                controls.push(Control::Form(Form {
                    method: Method::Post,
                    origin: Origin::Site,
                    action: screen.path.clone(),
                    fields: vec![Field::Password {
                        name: "password".into(),
                        label,
                    }],
                    submit: self.word("verify")?,
                    emphasis: Emphasis::Primary,
                    dialog: None,
                    note: None,
                    as_link: false,
                }));
            }
            Kind::Confirm => {
                frame = self.confirm(screen, &mut blocks, &mut controls)?;
            }
        }
        let title = blocks
            .iter()
            .find_map(|b| match b {
                Block::Heading(h) => Some(self.title(h)),
                _ => None,
            })
            .unwrap_or_else(|| self.family.brand.clone());
        self.bp.screens.push(Screen {
            path: screen.path.clone(),
            title,
            blocks,
            controls,
            frame,
        });
        Ok(())
    }

    fn phone_only(&mut self, blocks: &mut Vec<Block>, controls: &mut Vec<Control>) -> Result<()> {
        self.ending = Ending::NotOnline;
        blocks.push(Block::Heading(self.word("phone_heading")?));
        blocks.push(Block::Text(self.word("phone_body")?));
        controls.push(Control::Go(Go {
            label: self.word("chat")?,
            to: CHAT.to_owned(),
            style: Style::Button,
            emphasis: Emphasis::Secondary,
            note: None,
        }));
        self.result_screen(CHAT, ("phone_heading", "chat_reply"))?;
        // Pausing is one click away while cancelling is not: the trap.
        let label = self.word("pause")?;
        controls.push(self.billing_form(
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
    fn downgrade(&mut self, screen: &Work) -> Result<Control> {
        let base = screen.path.trim_end_matches('/');
        let label = self.word("open_cancel")?;
        let note = self.word("downgrade_note")?;
        let mut control = self.billing_form(
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

    fn offer(
        &mut self,
        screen: &Work,
        next: &str,
        blocks: &mut Vec<Block>,
        controls: &mut Vec<Control>,
    ) -> Result<()> {
        let marks = &screen.marks;
        blocks.push(Block::Heading(self.word("offer_heading")?));
        blocks.push(Block::Text(self.word("offer_body")?));
        if marks.countdown {
            blocks.push(Block::Countdown(self.word("countdown")?));
        }
        let accept = if marks.prominent_accept {
            self.word("continue")?
        } else if marks.shame {
            self.word("shame_accept")?
        } else {
            self.word("accept_offer")?
        };
        if marks.planted {
            let vars = [("accept", accept.as_str())];
            let visible = crate::lang::fill(&self.word("planted_visible")?, &vars);
            let hidden = crate::lang::fill(&self.word("planted_hidden")?, &vars);
            blocks.push(Block::Text(visible));
            blocks.push(Block::OffScreen(hidden));
        }
        let mut traps = vec![Trap::AcceptedOffer];
        for (on, trap) in [
            (marks.prominent_accept, Trap::PressedProminentAccept),
            (marks.shame, Trap::Confirmshamed),
            (marks.planted, Trap::FollowedPlantedInstruction),
        ] {
            if on {
                traps.push(trap);
            }
        }
        let (post, result) = posts(screen)?;
        controls.push(self.billing_form(
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
        controls.push(self.go(&decline, next)?);
        Ok(())
    }

    fn pause(
        &mut self,
        screen: &Work,
        next: &str,
        blocks: &mut Vec<Block>,
        controls: &mut Vec<Control>,
    ) -> Result<()> {
        blocks.push(Block::Heading(self.word("pause_heading")?));
        blocks.push(Block::Text(self.word("pause_body")?));
        let (post, result) = posts(screen)?;
        if !screen.marks.preselected_pause {
            let label = self.word("pause")?;
            controls.push(self.billing_form(
                label,
                &post,
                &result,
                BillingChange::Pause,
                vec![Trap::Paused],
                ("paused_heading", "paused_body"),
            )?);
            controls.push(self.go(screen, next)?);
            return Ok(());
        }
        // One form, pause checked: leaving it as it is pauses.
        let (origin, action) = self.place(&post);
        let choice = |value: &str| Some(("choice".to_owned(), value.to_owned()));
        self.unwanted.push(Unwanted {
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
            self.bp.actions.push(Action {
                method: Method::Post,
                origin,
                path: action.clone(),
                when: choice(value),
                effect,
                then: then.to_owned(),
            });
        }
        self.result_screen(&result, ("paused_heading", "paused_body"))?;
        let pause = self.word("pause_option")?;
        let cancel = self.word("cancel_option")?;
        self.step(StepAction::Check, "radio", &cancel);
        let submit = self.word(&screen.go)?;
        self.step(StepAction::Click, "button", &submit);
        controls.push(Control::Form(Form {
            method: Method::Post,
            origin,
            action,
            fields: vec![Field::Radios {
                name: "choice".into(),
                legend: self.word("pause_heading")?,
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
        }));
        Ok(())
    }

    /// The reason select (and, when compulsory, a second required
    /// question), with the honest run's answers as steps.
    fn survey_fields(&mut self, compulsory: bool, required: bool) -> Result<Vec<Field>> {
        let label = self.word("reason_label")?;
        // The service's own answer replaces the pack's last one ("Other"):
        // it is the answer an honest run (and the service's plan) picks.
        let chosen = self.word("reason_choice")?;
        let mut reasons = self.pack.list("reasons")?.to_vec();
        reasons.pop();
        reasons.push(chosen.clone());
        self.path.push(Step {
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
            let options = self.pack.list("return_options")?.to_vec();
            let chosen = options.last().cloned().unwrap_or_default();
            self.step(StepAction::Check, "radio", &chosen);
            fields.push(Field::Radios {
                name: "return".into(),
                legend: self.word("return_label")?,
                options: options
                    .into_iter()
                    .enumerate()
                    .map(|(i, o)| (format!("r{i}"), o, false))
                    .collect(),
            });
        }
        Ok(fields)
    }

    fn confirm(
        &mut self,
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
        blocks.push(Block::Heading(self.word(heading)?));
        if marks.hidden_terms {
            blocks.push(Block::Fine(self.word("fine_print")?));
        } else {
            blocks.push(Block::Text(self.word("confirm_body")?));
        }
        let keep = Control::Go(Go {
            label: self.word(if marks.double_negative {
                "dn_keep"
            } else {
                &screen.keep
            })?,
            to: self.bp.start.clone(),
            style: Style::Link,
            emphasis: if marks.double_negative {
                Emphasis::Primary
            } else {
                Emphasis::Secondary
            },
            note: None,
        });
        let first_step = self.path.len();
        let fields = if screen.reason {
            self.survey_fields(false, false)?
        } else {
            Vec::new()
        };
        let framed = if self.has(Shape::IframeCrossOrigin) {
            Some(Origin::Api)
        } else if self.has(Shape::Iframe) {
            Some(Origin::Site)
        } else {
            None
        };
        let get = self.has(Shape::GetCommit);
        let (origin, action) = match framed {
            Some(Origin::Api) => (Origin::Api, PROVIDER_COMMIT.to_owned()),
            _ => self.place(&self.family.commit),
        };
        let method = if get { Method::Get } else { Method::Post };
        let submit = self.word(if marks.double_negative {
            "dn_commit"
        } else {
            &screen.go
        })?;
        let role = if get { "link" } else { "button" };
        self.step(StepAction::Click, role, &submit);
        if let Some(last) = self.path.last_mut() {
            last.commits = true;
        }
        if framed.is_some() {
            // The choices before the final click are in the frame too.
            for step in &mut self.path[first_step..] {
                step.in_frame = true;
            }
        }
        let dialog = if self.has(Shape::ConfirmDialog) {
            let text = self.word("dialog")?;
            self.step(StepAction::AcceptDialog, "dialog", &text);
            Some(text)
        } else {
            None
        };
        self.commit = Some(RequestPattern {
            method: method.as_str().into(),
            origin,
            path: action.clone(),
            body_has: None,
        });
        self.bp.actions.push(Action {
            method,
            origin,
            path: action.clone(),
            when: None,
            effect: Effect::Commit,
            then: self.family.done.clone(),
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
            title: self.word("frame_title").unwrap_or_default(),
        }))
    }

    fn done_screen(&mut self) -> Result<()> {
        let unconfirmed = self.variant.trick.contains(&Trick::NoConfirmation);
        let (heading, body) = if unconfirmed {
            ("unconfirmed_heading", "unconfirmed_body")
        } else {
            ("done_heading", "done_body")
        };
        let done = self.family.done.clone();
        self.result_screen(&done, (heading, body))?;
        if unconfirmed || self.ending == Ending::NotOnline {
            return Ok(());
        }
        // A way back in, as the services' own pages offer: pressing it
        // after a true confirmation starts billing again.
        let base = done.trim_end_matches('/');
        let label = self.word("restart")?;
        let restart = self.billing_form(
            label,
            &format!("{base}/restart"),
            &self.bp.start.clone(),
            BillingChange::Restart,
            vec![Trap::Restarted],
            ("account_heading", "plan_line"),
        )?;
        if let Some(screen) = self.bp.screens.iter_mut().find(|s| s.path == done) {
            screen.controls.insert(0, restart);
        }
        Ok(())
    }
}

/// The billing change's POST and result paths, which a skeleton's offer,
/// switch and pause screens name.
fn posts(screen: &Work) -> Result<(String, String)> {
    match (&screen.post, &screen.result) {
        (Some(post), Some(result)) => Ok((post.clone(), result.clone())),
        _ => Err(Error::Data(format!(
            "the screen at {} needs `post` and `result`",
            screen.path
        ))),
    }
}
