//! HTML from a blueprint: a page per screen (or one single-page app for all
//! of them), the frame a framed last step lives in, every control drawn as
//! the flow's shapes say. Pages keep their placeholders (`{end_date}`,
//! `{{api_origin}}`…); the site fills them when it serves.
//!
//! Every page is a `maud::html!` template, so every word of the flow is
//! escaped where it lands; the only markup written as it stands is the
//! crate's own constant CSS and scripts (`PreEscaped`, each said where).
//! The line breaks the templates write (`"\n"`) are the ones the pages have
//! always had: they are text in the DOM the runs click through, kept so
//! the pages stay what the bench's scores were taken on.

mod script;

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::blueprint::{
    API_ORIGIN, Block, Blueprint, Control, Emphasis, Field, Form, Go, Method, PageScript,
    SITE_ORIGIN, Screen, Style,
};
use crate::flow::Origin;

/// Seconds on the offer's countdown when the page loads.
const COUNTDOWN_SECONDS: u32 = 299;

/// One stylesheet for every flow; the brand colour is the only change.
/// `.fine` is the hidden-terms trick: 9px, nearly the background's colour.
const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 0; background: #f3f3f3; color: #1a1a1a; }
header { background: #111; padding: 14px 32px; }
header strong { color: var(--brand); font-size: 22px; }
main { max-width: 680px; margin: 28px auto; background: #fff; padding: 24px 32px; border-radius: 8px; }
button, .button { font-size: 15px; font-weight: 600; padding: 10px 22px; margin: 8px 8px 8px 0; border-radius: 6px; border: 0; cursor: pointer; display: inline-block; text-decoration: none; }
.primary { background: var(--brand); color: #fff; font-size: 19px; padding: 14px 34px; }
.secondary { background: #fff; color: #1a1a1a; border: 1px solid #888; }
.quiet { background: none; color: #999; font-size: 11px; padding: 0; margin: 18px 0 0; border: 0; display: inline-block; }
a.quiet { text-decoration: underline; }
.note { font-size: 12px; color: #666; margin-left: 4px; }
.fine { font-size: 9px; color: #dcdcdc; }
.offscreen { position: absolute; left: -10000px; top: auto; width: 1px; height: 1px; overflow: hidden; }
.countdown { font-weight: 700; color: #b00020; }
label { display: block; margin: 12px 0 4px; }
fieldset { border: 0; padding: 0; margin: 12px 0; }
fieldset label { display: inline; margin: 0 12px 0 4px; }
select, input { font-size: 16px; padding: 6px; }
iframe { width: 100%; height: 200px; border: 1px solid #ddd; border-radius: 6px; }
nav.menu a { display: block; margin: 6px 0; }
aside.chat { position: fixed; right: 24px; bottom: 24px; width: 260px; background: #fff; border: 1px solid #ccc; border-radius: 10px; padding: 12px 16px; box-shadow: 0 4px 16px rgba(0,0,0,.15); }
footer { text-align: center; color: #777; font-size: 12px; margin: 24px; }
";

/// What a frame's page adds to the stylesheet.
const FRAME_STYLE: &str = " body { background: #fff; }";

/// The page of one screen, whole.
pub(crate) fn page(bp: &Blueprint, screen: &Screen) -> String {
    let mut uses = Uses::default();
    uses.blocks(&screen.blocks);
    let body = html! {
        (blocks(&screen.blocks))
        @match &screen.frame {
            Some(frame) => {
                @let src = match frame.origin {
                    Origin::Api => format!("{API_ORIGIN}{}", frame.path),
                    Origin::Site => frame.path.clone(),
                };
                iframe title=(frame.title) src=(src) {}
            }
            None => {
                (controls(bp, &screen.controls, Origin::Site, false))
            }
        }
    };
    if screen.frame.is_none() {
        uses.controls(bp, &screen.controls);
    }
    let scripts = html! {
        (uses.scripts(bp))
        @for s in &screen.scripts {
            // The crate's own script, its values JSON-encoded (`js`).
            script { (PreEscaped(page_script(s))) } "\n"
        }
    };
    document(bp, &screen.title, &body, &scripts).into_string()
}

/// A page's own script, with its site paths written in.
fn page_script(script: &PageScript) -> String {
    match script {
        PageScript::Leave { beacon, keepalive } => script::LEAVE
            .replace("\"{beacon}\"", &js(beacon))
            .replace("\"{keepalive}\"", &js(keepalive)),
        PageScript::WhileTyping {
            plan,
            cheaper,
            membership,
        } => script::WHILE_TYPING
            .replace("\"{plan}\"", &js(plan))
            .replace("\"{cheaper}\"", &js(cheaper))
            .replace("\"{membership}\"", &js(membership)),
    }
}

/// A JavaScript string literal of `s` (JSON's), safe inside a `<script>`:
/// HTML does not escape a script's text, so its `<` is written `\u003c`
/// (the same string to JavaScript), and nothing in it can close the
/// element or open a comment.
fn js(s: &str) -> String {
    serde_json::Value::String(s.to_owned())
        .to_string()
        .replace('<', "\\u003c")
}

/// The frame a framed last step is drawn in: its controls alone, every
/// form and link leaving the frame for the whole window.
pub(crate) fn frame(bp: &Blueprint, screen: &Screen, origin: Origin) -> String {
    let mut uses = Uses::default();
    uses.controls(bp, &screen.controls);
    html! {
        (DOCTYPE)
        html lang=(bp.lang) dir=(dir(bp)) {
            head {
                meta charset="utf-8";
                title { (screen.title) }
                (style(bp, FRAME_STYLE))
            }
            body {
                (controls(bp, &screen.controls, origin, true))
                (uses.scripts(bp))
            }
        }
    }
    .into_string()
}

/// The single-page app: every screen a hidden section, shown by path.
pub(crate) fn spa(bp: &Blueprint) -> String {
    let mut uses = Uses::default();
    for screen in &bp.screens {
        uses.blocks(&screen.blocks);
        uses.controls(bp, &screen.controls);
    }
    let body = html! {
        @for screen in &bp.screens {
            section data-path=(screen.path) data-title=(screen.title) hidden {
                (blocks(&screen.blocks))
                (controls(bp, &screen.controls, Origin::Site, false))
            }
        }
    };
    let title = bp.screens.first().map(|s| s.title.as_str()).unwrap_or("");
    document(bp, title, &body, &uses.scripts(bp)).into_string()
}

fn document(bp: &Blueprint, title: &str, body: &Markup, scripts: &Markup) -> Markup {
    html! {
        (DOCTYPE) "\n"
        html lang=(bp.lang) dir=(dir(bp)) {
            "\n"
            head {
                "\n"
                meta charset="utf-8"; "\n"
                title { (title) } "\n"
                (style(bp, "")) "\n"
            }
            "\n"
            body {
                "\n"
                header { strong { (bp.brand) } } "\n"
                main { "\n" (body) "\n" } "\n"
                footer { (bp.footer) } "\n"
                (scripts)
            }
            "\n"
        }
        "\n"
    }
}

/// The stylesheet with the brand's colour (escaped like any word of the
/// flow) and `extra`; the scripts find it by its id.
fn style(bp: &Blueprint, extra: &'static str) -> Markup {
    html! {
        // The crate's constant CSS: a style element's text is not HTML.
        style id="st-style" { ":root { --brand: " (bp.color) "; }" (PreEscaped(STYLE)) (PreEscaped(extra)) }
    }
}

fn dir(bp: &Blueprint) -> &'static str {
    if bp.rtl { "rtl" } else { "ltr" }
}

/// Which of the shared scripts a page needs, from what it draws: a page
/// with none is plain HTML.
#[derive(Debug, Default)]
struct Uses {
    countdown: bool,
    confirm: bool,
    shadow: bool,
    socket: bool,
    follow: bool,
}

impl Uses {
    fn blocks(&mut self, blocks: &[Block]) {
        for block in blocks {
            match block {
                Block::Countdown(_) => self.countdown = true,
                Block::Chat { .. } => self.socket = true,
                _ => {}
            }
        }
    }

    /// `controls` drawn by [`controls`].
    fn controls(&mut self, bp: &Blueprint, controls: &[Control]) {
        self.shadow |= bp.shadow;
        for control in controls {
            if let Control::Form(form) = control {
                self.confirm |= form.dialog.is_some();
                // Only a plain form is drawn with `data-follow`.
                self.follow |= form.follow.is_some() && !form.as_link && bp.spa.is_none();
            }
        }
    }

    fn scripts(&self, bp: &Blueprint) -> Markup {
        let mut wanted = Vec::new();
        if self.countdown {
            wanted.push(script::COUNTDOWN);
        }
        if bp.spa.is_some() {
            wanted.push(script::SPA);
        } else if self.confirm {
            wanted.push(script::DIALOG);
        }
        if self.shadow {
            wanted.push(script::SHADOW);
        }
        if self.socket {
            wanted.push(script::SOCKET);
        }
        if self.follow {
            wanted.push(script::FOLLOW);
        }
        html! {
            @for s in wanted {
                // The crate's own constant scripts (render/script.rs).
                script { (PreEscaped(s)) } "\n"
            }
        }
    }
}

fn blocks(blocks: &[Block]) -> Markup {
    // The first heading is the page's; the others are its sections'.
    let first_heading = blocks.iter().position(|b| matches!(b, Block::Heading(_)));
    html! {
        @for (at, block) in blocks.iter().enumerate() {
            @match block {
                Block::Heading(text) => {
                    @if Some(at) == first_heading { h1 { (text) } } @else { h2 { (text) } }
                }
                Block::Text(text) => { p { (text) } }
                Block::Fine(text) => { p class="fine" { (text) } }
                Block::OffScreen(text) => { div class="offscreen" { (text) } }
                Block::Chat { title, close, close_message, socket } => {
                    aside class="chat" role="dialog" aria-label=(title) data-socket=(socket) {
                        p { strong { (title) } }
                        button type="button" class="button secondary" data-ws=(close_message) { (close) }
                    }
                }
                Block::Countdown(text) => {
                    p class="countdown" role="timer" data-countdown=(COUNTDOWN_SECONDS) {
                        @for (i, part) in text.split("{countdown}").enumerate() {
                            @if i > 0 { span class="clock" { (clock(COUNTDOWN_SECONDS)) } }
                            (part)
                        }
                    }
                }
            }
            "\n"
        }
    }
}

fn clock(seconds: u32) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

/// The controls of a screen, on a page served by `page_origin`; `framed`
/// when that page is a frame (everything then targets the whole window).
fn controls(bp: &Blueprint, controls: &[Control], page_origin: Origin, framed: bool) -> Markup {
    let drawn = html! {
        @for control in controls {
            @match control {
                Control::Go(go) => { (self::go(bp, go, page_origin, framed)) }
                Control::Form(form) => { (self::form(bp, form, page_origin, framed)) }
                Control::Send(send) => {
                    p {
                        button type="button" class=(class(send.emphasis)) data-ws=(send.message) data-ws-go="1" {
                            (send.label)
                        }
                    }
                }
            }
            "\n"
        }
    };
    if bp.shadow {
        html! { st-actions { template { (drawn) } } "\n" }
    } else {
        drawn
    }
}

/// A control that only moves on.
fn go(bp: &Blueprint, go: &Go, page_origin: Origin, framed: bool) -> Markup {
    let href = url(Origin::Site, &go.to, page_origin);
    let target = framed.then_some("_top");
    let class = class(go.emphasis);
    html! {
        @match (bp.spa.is_some(), go.style) {
            (true, Style::Link) => {
                p { a class=(class) href=(href) data-go=(go.to) { (go.label) } }
            }
            (true, Style::Button) => {
                p { button type="button" class=(class) data-go=(go.to) { (go.label) } }
            }
            (false, Style::Link) => {
                p { a class=(class) href=(href) target=[target] { (go.label) } }
            }
            (false, Style::Button) => {
                form method="get" action=(href) target=[target] {
                    button class=(class) type="submit" { (go.label) }
                }
            }
        }
        @if let Some(note) = &go.note {
            span class="note" { (note) }
        }
    }
}

fn form(bp: &Blueprint, form: &Form, page_origin: Origin, framed: bool) -> Markup {
    let action = url(form.origin, &form.action, page_origin);
    let confirm = form.dialog.as_deref();
    let target = framed.then_some("_top");
    let class = class(form.emphasis);
    if form.as_link {
        let query: Vec<String> = form
            .fields
            .iter()
            .filter_map(|f| match f {
                Field::Hidden { name, value } => Some(format!("{name}={value}")),
                _ => None,
            })
            .collect();
        return html! {
            p {
                a class=(class) href={ (action) "?" (query.join("&")) } data-confirm=[confirm] target=[target] {
                    (form.submit)
                }
            }
        };
    }
    let inside = html! {
        @for field in &form.fields {
            (self::field(field))
        }
        p {
            button class=(class) type="submit" { (form.submit) }
            @if let Some(note) = &form.note {
                span class="note" { (note) }
            }
        }
    };
    html! {
        @match (bp.spa.is_some(), form.method) {
            (true, Method::Get) => {
                form data-spa="get" data-to=(form.action) data-confirm=[confirm] { (inside) }
            }
            (true, _) => {
                form data-spa="post" data-url=(action) data-confirm=[confirm] { (inside) }
            }
            (false, method) => {
                form method=(method.as_str().to_ascii_lowercase()) action=(action)
                    data-confirm=[confirm] target=[target] data-follow=[form.follow.as_deref()] {
                    (inside)
                }
            }
        }
    }
}

fn field(field: &Field) -> Markup {
    match field {
        Field::Select {
            name,
            label,
            options,
            required,
        } => html! {
            label for=(name) { (label) }
            select id=(name) name=(name) required[*required] {
                option value="" { "—" }
                @for option in options {
                    option { (option) }
                }
            }
        },
        Field::Radios {
            name,
            legend,
            options,
        } => html! {
            fieldset {
                legend { (legend) }
                @for (i, (value, label, checked)) in options.iter().enumerate() {
                    @let id = format!("{name}-{i}");
                    p {
                        input type="radio" id=(id) name=(name) value=(value) required checked[*checked];
                        label for=(id) { (label) }
                    }
                }
            }
        },
        Field::Password { name, label } => html! {
            label for=(name) { (label) }
            input id=(name) name=(name) type="password" autocomplete="current-password" required;
        },
        Field::Text {
            name,
            label,
            value,
            email,
        } => html! {
            label for=(name) { (label) }
            input id=(name) name=(name) type=(if *email { "email" } else { "text" }) value=(value) required;
        },
        Field::Hidden { name, value } => html! {
            input type="hidden" name=(name) value=(value);
        },
    }
}

fn class(emphasis: Emphasis) -> &'static str {
    match emphasis {
        Emphasis::Primary => "button primary",
        Emphasis::Secondary => "button secondary",
        Emphasis::Quiet => "quiet",
    }
}

/// A path on `origin`, written so a page served by `page_origin` reaches
/// it: relative on the same origin, absolute across.
fn url(origin: Origin, path: &str, page_origin: Origin) -> String {
    match (origin, page_origin) {
        (a, b) if a == b => path.to_owned(),
        (Origin::Api, _) => format!("{API_ORIGIN}{path}"),
        (Origin::Site, _) => format!("{SITE_ORIGIN}{path}"),
    }
}

/// Also the report's: its hostile word and check (`only_escaped`).
#[cfg(test)]
pub(crate) mod tests;
