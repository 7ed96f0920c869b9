#![allow(clippy::unwrap_used, clippy::panic)]

//! Words are text wherever a page draws them: a brand, a service's plan or
//! any word of a language pack that reads as markup is shown, never run.

use super::*;
use crate::blueprint::Frame;
use crate::catalog::Catalog;

/// A word that closes a script and opens one, breaks out of an attribute
/// and adds an element, were it written as it stands.
pub(crate) const HOSTILE: &str =
    " </script><script>alert(1)</script>\"onmouseover=alert(2) x=\"<img src=x>";

/// Each piece of [`HOSTILE`] as it would stand unescaped, and as a page
/// spells it escaped.
const PIECES: [(&str, &str); 3] = [
    (
        "</script><script>alert(1)</script>",
        "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
    ),
    ("\"onmouseover=", "&quot;onmouseover="),
    ("<img src=x>", "&lt;img src=x&gt;"),
];

/// `page` never has a piece of [`HOSTILE`] unescaped, and (`drawn`) has
/// each escaped. The one place a word stands in a script, a plan's name
/// in a page's own script, it is a JSON string: its quote is `\"` there,
/// and its `<` is `\u003c`, so the other pieces cannot be in it as they
/// stand either.
pub(crate) fn only_escaped(what: &str, page: &str, drawn: bool) {
    for (raw, escaped) in PIECES {
        let bare = page
            .match_indices(raw)
            .any(|(at, _)| !(raw.starts_with('"') && page[..at].ends_with('\\')));
        assert!(!bare, "{what}: {raw:?} as it stands");
        assert!(!drawn || page.contains(escaped), "{what}: no {escaped:?}");
    }
}

fn taint(s: &mut String) {
    s.push_str(HOSTILE);
}

/// Every word of `bp` (everything but its paths) with [`HOSTILE`] after it.
fn taint_words(bp: &mut Blueprint) {
    for s in [&mut bp.lang, &mut bp.brand, &mut bp.color, &mut bp.footer] {
        taint(s);
    }
    for screen in &mut bp.screens {
        taint(&mut screen.title);
        if let Some(Frame { title, .. }) = &mut screen.frame {
            taint(title);
        }
        for block in &mut screen.blocks {
            match block {
                Block::Heading(t)
                | Block::Text(t)
                | Block::Fine(t)
                | Block::OffScreen(t)
                | Block::Countdown(t) => taint(t),
                Block::Chat {
                    title,
                    close,
                    close_message,
                    socket: _,
                } => {
                    taint(title);
                    taint(close);
                    taint(close_message);
                }
            }
        }
        for control in &mut screen.controls {
            match control {
                Control::Go(go) => {
                    taint(&mut go.label);
                    go.note.iter_mut().for_each(taint);
                }
                Control::Send(send) => {
                    taint(&mut send.label);
                    taint(&mut send.message);
                }
                Control::Form(form) => {
                    taint(&mut form.submit);
                    form.dialog.iter_mut().for_each(taint);
                    form.note.iter_mut().for_each(taint);
                    for field in &mut form.fields {
                        match field {
                            Field::Select {
                                name,
                                label,
                                options,
                                ..
                            } => {
                                taint(name);
                                taint(label);
                                options.iter_mut().for_each(taint);
                            }
                            Field::Radios {
                                name,
                                legend,
                                options,
                            } => {
                                taint(name);
                                taint(legend);
                                for (value, label, _) in options {
                                    taint(value);
                                    taint(label);
                                }
                            }
                            Field::Password { name, label } => {
                                taint(name);
                                taint(label);
                            }
                            Field::Text {
                                name, label, value, ..
                            } => {
                                taint(name);
                                taint(label);
                                taint(value);
                            }
                            Field::Hidden { name, value } => {
                                taint(name);
                                taint(value);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every page of every flow in the catalogue, each of its words made
/// hostile: every page (each screen's, each frame, the single-page app)
/// has them escaped only.
#[test]
fn every_word_of_every_flow_is_escaped_on_every_page() {
    let catalog = Catalog::load().unwrap();
    let mut pages = 0;
    for flow in catalog.flows() {
        let mut bp = flow.blueprint.clone();
        taint_words(&mut bp);
        if bp.spa.is_some() {
            only_escaped(&flow.id, &spa(&bp), true);
            pages += 1;
        }
        for screen in &bp.screens {
            only_escaped(&flow.id, &page(&bp, screen), true);
            pages += 1;
            if let Some(f) = &screen.frame {
                only_escaped(&flow.id, &frame(&bp, screen, f.origin), true);
                pages += 1;
            }
        }
    }
    assert!(pages > 500, "{pages}");
}

/// The generator's own way in: each family's brand and the names of its
/// plans (which its pack's words are filled with) made hostile, every
/// flow generated again, and every page the site would serve.
#[test]
fn a_hostile_brand_and_plan_are_escaped_on_every_served_page() {
    let mut flows = 0;
    for mut family in crate::family::all().unwrap() {
        for name in [
            &mut family.brand,
            &mut family.plan,
            &mut family.cheaper,
            &mut family.addon,
        ] {
            taint(name);
        }
        for variant in &family.flow {
            let flow = crate::generate::flow(&family, variant).unwrap();
            for ((_, path), page) in crate::site::pages(&flow.blueprint) {
                // A frame's page draws controls alone, perhaps no brand.
                let drawn = page.contains("<header>");
                only_escaped(&format!("{} {path}", flow.id), &page, drawn);
            }
            flows += 1;
        }
    }
    assert!(flows > 100, "{flows}");
}

/// A page's own script gets its values as JSON string literals that
/// cannot end the script element: the script elements are the page's
/// own, and each value reads back as it was.
#[test]
fn a_page_script_gets_its_values_as_json_strings() {
    let value = format!("/x{HOSTILE}<!--");
    let bp = Blueprint {
        lang: "en".into(),
        ..Blueprint::default()
    };
    let screen = Screen {
        path: "/x".into(),
        title: "x".into(),
        scripts: vec![
            PageScript::Leave {
                beacon: value.clone(),
                keepalive: value.clone(),
            },
            PageScript::WhileTyping {
                plan: value.clone(),
                cheaper: value.clone(),
                membership: value.clone(),
            },
        ],
        ..Screen::default()
    };
    let page = page(&bp, &screen);
    assert_eq!(page.matches("<script").count(), 2, "{page}");
    assert_eq!(page.matches("</script").count(), 2, "{page}");
    assert!(!page.contains("<img") && !page.contains("<!--"));
    let literal = js(&value);
    assert_eq!(page.matches(&literal).count(), 5);
    assert_eq!(serde_json::from_str::<String>(&literal).unwrap(), value);
}
