//! The law's button laid on a skeleton: which tricks and shapes a site
//! that draws it honestly may still carry, and the screens it leaves (the
//! button, then its confirmation page, nothing between), or, faked, the
//! mark that draws it beside the service's own link.

use crate::blueprint::Style;
use crate::family::{Kind, Variant};
use crate::flow::{Shape, Statutory, Trick};

use super::{Work, confirm};

/// Tricks a site with the law's button honestly drawn may still carry:
/// none puts a screen between the button and its confirmation page.
const STATUTORY_TRICKS: [Trick; 3] = [
    Trick::HiddenTerms,
    Trick::NoConfirmation,
    Trick::StatutoryWordsOnOffer,
];
/// Shapes the law's confirmation page (a form of prefilled fields) is
/// drawn in: not a commit by link or socket, not a survey that commits.
const STATUTORY_SHAPES: [Shape; 13] = [
    Shape::Links,
    Shape::Buttons,
    Shape::Spa,
    Shape::SpaApiOrigin,
    Shape::ShadowDom,
    Shape::Iframe,
    Shape::IframeCrossOrigin,
    Shape::ConfirmDialog,
    Shape::SignInWall,
    Shape::HostileSignInWall,
    Shape::FailureAfterFinal,
    Shape::CancelWordsInLinks,
    Shape::AddOnEnded,
];

/// The law's button: the tricks that fake it need it named, and a site
/// that draws it honestly keeps the law's shape (button, then its
/// confirmation page, nothing between).
pub(super) fn check(variant: &Variant) -> Result<(), &'static str> {
    let fake = variant.trick.contains(&Trick::FakeStatutoryButton);
    let on_offer = variant.trick.contains(&Trick::StatutoryWordsOnOffer);
    match variant.statutory {
        None if fake || on_offer => Err("a trick that fakes the law's button needs `statutory`"),
        None => Ok(()),
        Some(_) if fake && on_offer => {
            Err("the law's button is either a fake or real with an offer behind it, not both")
        }
        // The fake sits beside the service's own flow, which keeps its tricks.
        Some(_) if fake => Ok(()),
        Some(_) => {
            if !variant.trick.iter().all(|t| STATUTORY_TRICKS.contains(t)) {
                return Err(
                    "only hidden-terms, no-confirmation and statutory-words-on-offer go with the law's button",
                );
            }
            if !variant.shape.iter().all(|s| STATUTORY_SHAPES.contains(s)) {
                return Err(
                    "the law's confirmation page is a form: no commit by link, redirect, socket or survey",
                );
            }
            Ok(())
        }
    }
}

/// The law's button on the account page. Honest: it leads straight to
/// the law's confirmation page (the skeleton's offers and survey are not
/// on that way). Faked: the account page carries it beside the service's
/// own link, and it leads to an offer.
pub(super) fn apply(
    law: Statutory,
    variant: &Variant,
    screens: &mut Vec<Work>,
) -> Result<(), &'static str> {
    if screens.first().map(|s| s.kind) != Some(Kind::Account) {
        return Err("the law's button is drawn on an account screen, which must come first");
    }
    if variant.trick.contains(&Trick::FakeStatutoryButton) {
        screens[0].marks.fake_statutory = Some(law);
        return Ok(());
    }
    let (open, final_word) = law.keys();
    let at = confirm(screens)?;
    let mut last = screens.remove(at);
    last.go = format!("{}{final_word}", crate::lang::STATUTORY_PREFIX);
    last.reason = false;
    last.marks.statutory = Some(law);
    screens.truncate(1);
    screens[0].go = format!("{}{open}", crate::lang::STATUTORY_PREFIX);
    screens[0].style = Style::Button;
    screens.push(last);
    Ok(())
}
