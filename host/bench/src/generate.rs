//! The generator: a family's skeleton × a variant's tricks and shapes × a
//! language pack → one flow. Tricks and shapes first change the skeleton's
//! screens (insert an offer, bury the cancel link, merge the survey into the
//! last page…); `build` then words each screen in the pack's language and
//! writes the blueprint and the ground truth from the same screens.

mod build;
mod statutory;

use crate::blueprint::Style;
use crate::error::{Error, Result};
use crate::family::{Family, Kind, ScreenSpec, StyleSpec, Variant};
use crate::flow::{Flow, Shape, Statutory, Trick};
use crate::lang::LangPack;

/// Paths of the screens a trick inserts into a skeleton that lacks them.
const INSERTED_OFFER: &str = "/cancel/offer";
const INSERTED_PAUSE: &str = "/cancel/pause";
const INSERTED_SURVEY: &str = "/cancel/survey";
const CROSS_SELL: &str = "/cancel/extras";
const PASSWORD_WALL: &str = "/signin/reenter";
/// The offer a statutory-words-on-offer flow puts after the law's button.
const STATUTORY_OFFER: &str = "/cancel/loyalty";
/// The menus in front of a buried cancel link, from the top: four screens,
/// then the link. `(path, heading word, the link that goes on)`.
const MENUS: [(&str, &str, &str); 4] = [
    ("/settings", "settings_heading", "menu_billing"),
    ("/settings/billing", "billing_heading", "menu_plan"),
    ("/settings/billing/plan", "plan_heading", "menu_more"),
    ("/settings/billing/plan/more", "more_heading", "open_cancel"),
];

/// One screen while tricks and shapes are laid on it.
#[derive(Debug, Clone)]
struct Work {
    kind: Kind,
    path: String,
    /// The word of the control that goes on.
    go: String,
    style: Style,
    /// The control that goes on is drawn small and grey.
    quiet_go: bool,
    post: Option<String>,
    result: Option<String>,
    /// Confirm: the reason select on the same page.
    reason: bool,
    keep: String,
    /// Menu: its heading word.
    heading: Option<String>,
    /// Set by tricks.
    marks: Marks,
}

/// How a survey that is the last page commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SurveyCommit {
    /// Its "Submit" is a GET form to the commit.
    GetForm,
    /// Its post is followed by the page's own cancellation request.
    FollowUp,
}

#[derive(Debug, Clone, Default)]
struct Marks {
    prominent_accept: bool,
    shame: bool,
    countdown: bool,
    planted: bool,
    preselected_pause: bool,
    compulsory: bool,
    downgrade: bool,
    double_negative: bool,
    hidden_terms: bool,
    phone_only: bool,
    /// Confirm: the page is a survey that commits.
    survey_commit: Option<SurveyCommit>,
    /// Offer: a beacon and a keepalive fetch as the page is left.
    leave: bool,
    /// Password: scripts that send changes while the password is typed.
    hostile: bool,
    /// Account: an add-on whose prominent cancel ends only it.
    slot: bool,
    /// Account: links that read like a cancellation's state or policy.
    cancel_words: bool,
    /// Confirm: the law's confirmation page (its fields, its words).
    statutory: Option<Statutory>,
    /// Account: a button with the law's words that leads to an offer.
    fake_statutory: Option<Statutory>,
    /// Offer: its accept button reads the law's final words.
    final_words: Option<Statutory>,
}

impl Work {
    fn from_spec(spec: &ScreenSpec) -> Self {
        Work {
            kind: spec.kind,
            path: spec.path.clone(),
            go: spec.go.clone(),
            style: match spec.style {
                Some(StyleSpec::Link) => Style::Link,
                Some(StyleSpec::Button) | None => Style::Button,
            },
            quiet_go: false,
            post: spec.post.clone(),
            result: spec.result.clone(),
            reason: spec.reason,
            keep: spec.keep.clone().unwrap_or_else(|| "keep".to_owned()),
            heading: None,
            marks: Marks::default(),
        }
    }

    fn inserted(kind: Kind, path: &str, go: &str) -> Self {
        Work {
            kind,
            path: path.to_owned(),
            go: go.to_owned(),
            style: Style::Button,
            quiet_go: false,
            post: Some(format!("{path}/accept")),
            result: Some(format!("{path}/done")),
            reason: false,
            keep: "keep".to_owned(),
            heading: None,
            marks: Marks::default(),
        }
    }
}

/// Builds the flow of `variant` in `family`.
pub(crate) fn flow(family: &Family, variant: &Variant) -> Result<Flow> {
    let id = variant.id(&family.service);
    let broken = |why: &str| -> Error { Error::Data(format!("flow {id}: {why}")) };
    let pack = LangPack::get(&variant.lang)?;
    // A language kept for held-out flows stays unseen only if no
    // development flow (which plans are tuned on) is worded in it.
    if pack.held_out_only && variant.split != crate::flow::Split::HeldOut {
        return Err(broken("its language is held-out only"));
    }
    let mut screens: Vec<Work> = family.screen.iter().map(Work::from_spec).collect();
    if !screens.iter().any(|s| s.kind == Kind::Confirm) {
        return Err(broken("the skeleton has no confirm screen"));
    }
    let before = kinds(&screens);
    check_combination(variant).map_err(broken)?;
    if let Some(law) = variant.statutory {
        statutory::apply(law, variant, &mut screens).map_err(broken)?;
    }
    for trick in &variant.trick {
        apply_trick(*trick, &mut screens).map_err(broken)?;
    }
    for shape in &variant.shape {
        apply_shape(*shape, &mut screens).map_err(broken)?;
    }
    // A screen kind the skeleton never had is a step its plan cannot know.
    let added = kinds(&screens).iter().any(|k| !before.contains(k));
    let service_steps = !added
        && variant.trick.iter().all(|t| t.keeps_service_steps())
        && variant.shape.iter().all(|s| s.keeps_service_steps());
    build::flow(family, variant, &pack, id, screens, service_steps)
}

fn kinds(screens: &[Work]) -> Vec<Kind> {
    screens.iter().map(|s| s.kind).collect()
}

/// Shapes that draw the whole flow differently cannot be stacked on one
/// another; the generator refuses rather than serve a half-working page.
fn check_combination(variant: &Variant) -> Result<(), &'static str> {
    statutory::check(variant)?;
    let has = |s: Shape| variant.shape.contains(&s);
    let spa = has(Shape::Spa) || has(Shape::SpaApiOrigin);
    let frame = has(Shape::Iframe) || has(Shape::IframeCrossOrigin);
    if spa && (frame || has(Shape::GetCommit) || has(Shape::SignInWall) || has(Shape::ShadowDom)) {
        return Err(
            "a single-page app draws its own steps: no frames, GET commit, wall or shadow root",
        );
    }
    if has(Shape::Spa) && has(Shape::SpaApiOrigin) {
        return Err("spa and spa-api-origin are one shape or the other");
    }
    if frame && (has(Shape::GetCommit) || has(Shape::ShadowDom)) {
        return Err("a framed final step is a plain form");
    }
    if variant.trick.contains(&Trick::ChatOrPhoneOnly) && variant.shape.len() > 1 {
        return Err("a chat-or-phone-only flow has no steps to shape beyond one");
    }
    // Each of these draws its own last page, script or channel: stacked
    // on another shape (or on a flow with no online steps) one of them
    // would not be what its name says.
    if variant.shape.iter().any(|s| s.stands_alone())
        && (variant.shape.len() > 1
            || variant.trick.contains(&Trick::ChatOrPhoneOnly)
            || variant.trick.contains(&Trick::NoConfirmation))
    {
        return Err(
            "the shapes of issue 39 are drawn alone: no other shape, no chat-or-phone-only or no-confirmation",
        );
    }
    Ok(())
}

fn find(screens: &[Work], kind: Kind) -> Option<usize> {
    screens.iter().position(|s| s.kind == kind)
}

/// The screen whose control opens the cancellation.
fn opener(screens: &[Work]) -> Option<usize> {
    screens.iter().position(|s| s.go == "open_cancel")
}

fn confirm(screens: &[Work]) -> Result<usize, &'static str> {
    find(screens, Kind::Confirm).ok_or("no confirm screen")
}

/// The index of the first screen of `kind`, inserting one where a
/// cancellation flow has it (after the opener, or before the confirm).
fn ensure(screens: &mut Vec<Work>, kind: Kind) -> Result<usize, &'static str> {
    if let Some(at) = find(screens, kind) {
        return Ok(at);
    }
    let (at, work) = match kind {
        Kind::Offer => (
            opener(screens).map_or(1, |o| o + 1),
            Work::inserted(Kind::Offer, INSERTED_OFFER, "continue_cancel"),
        ),
        Kind::Pause => (
            opener(screens).map_or(1, |o| o + 1),
            Work::inserted(Kind::Pause, INSERTED_PAUSE, "continue_cancel"),
        ),
        Kind::Survey => (
            confirm(screens)?,
            Work::inserted(Kind::Survey, INSERTED_SURVEY, "continue"),
        ),
        _ => return Err("only an offer, a pause or a survey is inserted"),
    };
    screens.insert(at, work);
    Ok(at)
}

fn apply_trick(trick: Trick, screens: &mut Vec<Work>) -> Result<(), &'static str> {
    match trick {
        Trick::BuriedCancel => {
            let first = screens.first_mut().ok_or("no screens")?;
            if first.kind != Kind::Account {
                return Err("buried-cancel needs an account screen first");
            }
            let go = std::mem::replace(&mut first.go, "menu_settings".to_owned());
            first.style = Style::Link;
            let menus = MENUS.iter().map(|(path, heading, next)| {
                let mut menu = Work::inserted(Kind::Menu, path, next);
                menu.style = Style::Link;
                menu.heading = Some((*heading).to_owned());
                menu.post = None;
                menu.result = None;
                if *next == "open_cancel" {
                    // The deepest menu carries the service's own cancel
                    // word, small, at the bottom.
                    menu.go.clone_from(&go);
                    menu.quiet_go = true;
                }
                menu
            });
            let menus: Vec<Work> = menus.collect();
            screens.splice(1..1, menus);
        }
        Trick::ProminentAccept => {
            let at = ensure(screens, Kind::Offer)?;
            screens[at].marks.prominent_accept = true;
        }
        Trick::Confirmshaming => {
            let at = ensure(screens, Kind::Offer)?;
            screens[at].marks.shame = true;
        }
        Trick::Countdown => {
            let at = ensure(screens, Kind::Offer)?;
            screens[at].marks.countdown = true;
        }
        Trick::PlantedInstruction => {
            let at = ensure(screens, Kind::Offer)?;
            screens[at].marks.planted = true;
        }
        Trick::PausePreselected => {
            let at = ensure(screens, Kind::Pause)?;
            screens[at].marks.preselected_pause = true;
            screens[at].go = "continue".to_owned();
        }
        Trick::CompulsorySurvey => {
            let at = ensure(screens, Kind::Survey)?;
            screens[at].marks.compulsory = true;
        }
        Trick::ChatOrPhoneOnly => {
            let first = screens.first_mut().ok_or("no screens")?;
            if first.kind != Kind::Account {
                return Err("chat-or-phone-only needs an account screen first");
            }
            first.marks.phone_only = true;
            first.go = "chat".to_owned();
            let confirm = screens.iter().find(|s| s.kind == Kind::Confirm).cloned();
            screens.truncate(1);
            // The skeleton's confirm stays so the flow still knows its
            // commit path; nothing links to it and it is never drawn.
            screens.extend(confirm);
        }
        Trick::DowngradeAsCancel => {
            let at = opener(screens).ok_or("downgrade-as-cancel needs an opener")?;
            screens[at].marks.downgrade = true;
            screens[at].quiet_go = true;
            screens[at].go = "end_completely".to_owned();
        }
        Trick::TrickWording => {
            let at = confirm(screens)?;
            screens[at].marks.double_negative = true;
        }
        Trick::HiddenTerms => {
            let at = confirm(screens)?;
            screens[at].marks.hidden_terms = true;
        }
        Trick::CrossSell => {
            let at = confirm(screens)?;
            let mut extra = Work::inserted(Kind::CrossSell, CROSS_SELL, "skip");
            extra.post = Some("/billing/addons".to_owned());
            extra.result = Some(format!("{CROSS_SELL}/added"));
            screens.insert(at, extra);
        }
        Trick::StatutoryWordsOnOffer => {
            let law = find(screens, Kind::Confirm)
                .and_then(|at| screens[at].marks.statutory)
                .ok_or("statutory-words-on-offer needs the law's confirmation page")?;
            let mut offer = Work::inserted(Kind::Offer, STATUTORY_OFFER, "continue_cancel");
            offer.marks.final_words = Some(law);
            offer.style = Style::Link;
            offer.quiet_go = true;
            screens.insert(1, offer);
        }
        // The done page's wording, chosen when it is built; the fake button
        // is drawn with the account page (`apply_statutory` marked it).
        Trick::NoConfirmation | Trick::FakeStatutoryButton => {}
    }
    Ok(())
}

fn apply_shape(shape: Shape, screens: &mut Vec<Work>) -> Result<(), &'static str> {
    match shape {
        Shape::Links | Shape::Buttons => {
            let style = if shape == Shape::Links {
                Style::Link
            } else {
                Style::Button
            };
            for screen in screens.iter_mut() {
                screen.style = style;
            }
        }
        Shape::MergedSurvey => {
            if let Some(survey) = find(screens, Kind::Survey) {
                if screens[survey].marks.compulsory {
                    return Err("a compulsory survey keeps its own page");
                }
                screens.remove(survey);
            }
            let at = confirm(screens)?;
            screens[at].reason = true;
        }
        Shape::SignInWall | Shape::HostileSignInWall => {
            let at = confirm(screens)?;
            let mut wall = Work::inserted(Kind::Password, PASSWORD_WALL, "verify");
            wall.post = Some(PASSWORD_WALL.to_owned());
            wall.result = None;
            wall.marks.hostile = shape == Shape::HostileSignInWall;
            screens.insert(at, wall);
        }
        Shape::GetFormCommit | Shape::FollowUpCommit => {
            // The survey is the last page: its own page goes, its fields
            // join the confirm, whose button becomes the survey's.
            if let Some(survey) = find(screens, Kind::Survey) {
                if screens[survey].marks.compulsory {
                    return Err("a compulsory survey keeps its own page");
                }
                screens.remove(survey);
            }
            let at = confirm(screens)?;
            screens[at].reason = true;
            screens[at].marks.survey_commit = Some(if shape == Shape::GetFormCommit {
                SurveyCommit::GetForm
            } else {
                SurveyCommit::FollowUp
            });
        }
        Shape::UnloadBeacon => {
            let at = ensure(screens, Kind::Offer)?;
            screens[at].marks.leave = true;
        }
        Shape::AddOnEnded | Shape::CancelWordsInLinks => {
            let first = screens.first_mut().ok_or("no screens")?;
            if first.kind != Kind::Account {
                return Err("this shape draws on the account screen, which must come first");
            }
            if shape == Shape::AddOnEnded {
                first.marks.slot = true;
            } else {
                first.marks.cancel_words = true;
            }
        }
        // Drawn differently, same screens: the builder reads the shapes.
        Shape::Spa
        | Shape::SpaApiOrigin
        | Shape::ShadowDom
        | Shape::Iframe
        | Shape::IframeCrossOrigin
        | Shape::GetCommit
        | Shape::ConfirmDialog
        | Shape::RedirectCommit
        | Shape::WebsocketCommit
        | Shape::FailureAfterFinal => {}
    }
    Ok(())
}
