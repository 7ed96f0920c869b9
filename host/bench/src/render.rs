//! HTML from a blueprint: a page per screen (or one single-page app for all
//! of them), the frame a framed last step lives in, every control drawn as
//! the flow's shapes say. Pages keep their placeholders (`{end_date}`,
//! `{{api_origin}}`…); the site fills them when it serves.

mod script;

use std::fmt::Write as _;

use crate::blueprint::{
    API_ORIGIN, Block, Blueprint, Control, Emphasis, Field, Form, Method, PageScript, SITE_ORIGIN,
    Screen, Style,
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

/// The page of one screen, whole.
pub(crate) fn page(bp: &Blueprint, screen: &Screen) -> String {
    let mut body = String::new();
    blocks(&mut body, &screen.blocks);
    match &screen.frame {
        Some(frame) => {
            let src = match frame.origin {
                Origin::Api => format!("{API_ORIGIN}{}", frame.path),
                Origin::Site => frame.path.clone(),
            };
            let _ = write!(
                body,
                "<iframe title=\"{}\" src=\"{}\"></iframe>",
                esc(&frame.title),
                esc(&src)
            );
        }
        None => controls(&mut body, bp, &screen.controls, Origin::Site, false),
    }
    let own: String = screen
        .scripts
        .iter()
        .map(|s| format!("<script>{}</script>\n", page_script(s)))
        .collect();
    document(bp, &screen.title, &body, &own)
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

/// A JavaScript string literal of `s`, safe inside a `<script>`.
fn js(s: &str) -> String {
    serde_json::Value::String(s.to_owned())
        .to_string()
        .replace("</", "<\\/")
}

/// The frame a framed last step is drawn in: its controls alone, every
/// form and link leaving the frame for the whole window.
pub(crate) fn frame(bp: &Blueprint, screen: &Screen, origin: Origin) -> String {
    let mut body = String::new();
    controls(&mut body, bp, &screen.controls, origin, true);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html><html lang=\"{}\" dir=\"{}\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style id=\"st-style\">:root {{ --brand: {}; }}{STYLE} body {{ background: #fff; }}</style></head>\
         <body>{body}{}</body></html>",
        esc(&bp.lang),
        dir(bp),
        esc(&screen.title),
        esc(&bp.color),
        scripts(bp, &body),
    );
    out
}

/// The single-page app: every screen a hidden section, shown by path.
pub(crate) fn spa(bp: &Blueprint) -> String {
    let mut body = String::new();
    for screen in &bp.screens {
        let _ = write!(
            body,
            "<section data-path=\"{}\" data-title=\"{}\" hidden>",
            esc(&screen.path),
            esc(&screen.title)
        );
        blocks(&mut body, &screen.blocks);
        controls(&mut body, bp, &screen.controls, Origin::Site, false);
        body.push_str("</section>");
    }
    let title = bp.screens.first().map(|s| s.title.as_str()).unwrap_or("");
    document(bp, title, &body, "")
}

fn document(bp: &Blueprint, title: &str, body: &str, own: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"{lang}\" dir=\"{dir}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style id=\"st-style\">:root {{ --brand: {color}; }}{STYLE}</style>\n</head>\n\
         <body>\n<header><strong>{brand}</strong></header>\n<main>\n{body}\n</main>\n\
         <footer>{footer}</footer>\n{scripts}{own}</body>\n</html>\n",
        lang = esc(&bp.lang),
        dir = dir(bp),
        title = esc(title),
        color = esc(&bp.color),
        brand = esc(&bp.brand),
        footer = esc(&bp.footer),
        scripts = scripts(bp, body),
    )
}

fn dir(bp: &Blueprint) -> &'static str {
    if bp.rtl { "rtl" } else { "ltr" }
}

/// Only the scripts a page uses: a page with none is plain HTML.
fn scripts(bp: &Blueprint, body: &str) -> String {
    let mut wanted = Vec::new();
    if body.contains("data-countdown") {
        wanted.push(script::COUNTDOWN);
    }
    if bp.spa.is_some() {
        wanted.push(script::SPA);
    } else if body.contains("data-confirm") {
        wanted.push(script::DIALOG);
    }
    if body.contains("<st-actions>") {
        wanted.push(script::SHADOW);
    }
    if body.contains("data-socket=") {
        wanted.push(script::SOCKET);
    }
    if body.contains("data-follow=") {
        wanted.push(script::FOLLOW);
    }
    wanted
        .iter()
        .map(|s| format!("<script>{s}</script>\n"))
        .collect()
}

fn blocks(out: &mut String, blocks: &[Block]) {
    let mut headings = 0;
    for block in blocks {
        match block {
            Block::Heading(text) => {
                headings += 1;
                let level = if headings == 1 { 1 } else { 2 };
                let _ = writeln!(out, "<h{level}>{}</h{level}>", esc(text));
            }
            Block::Text(text) => {
                let _ = writeln!(out, "<p>{}</p>", esc(text));
            }
            Block::Fine(text) => {
                let _ = writeln!(out, "<p class=\"fine\">{}</p>", esc(text));
            }
            Block::OffScreen(text) => {
                let _ = writeln!(out, "<div class=\"offscreen\">{}</div>", esc(text));
            }
            Block::Chat {
                title,
                close,
                close_message,
                socket,
            } => {
                let _ = writeln!(
                    out,
                    "<aside class=\"chat\" role=\"dialog\" aria-label=\"{t}\" data-socket=\"{}\"><p><strong>{t}</strong></p>\
                     <button type=\"button\" class=\"button secondary\" data-ws=\"{}\">{}</button></aside>",
                    esc(socket),
                    esc(close_message),
                    esc(close),
                    t = esc(title),
                );
            }
            Block::Countdown(text) => {
                let clock = format!("<span class=\"clock\">{}</span>", clock(COUNTDOWN_SECONDS));
                let text = esc(text).replace("{countdown}", &clock);
                let _ = writeln!(
                    out,
                    "<p class=\"countdown\" role=\"timer\" data-countdown=\"{COUNTDOWN_SECONDS}\">{text}</p>"
                );
            }
        }
    }
}

fn clock(seconds: u32) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

/// The controls of a screen, on a page served by `page_origin`; `framed`
/// when that page is a frame (everything then targets the whole window).
fn controls(
    out: &mut String,
    bp: &Blueprint,
    controls: &[Control],
    page_origin: Origin,
    framed: bool,
) {
    let mut html = String::new();
    for control in controls {
        match control {
            Control::Go(go) => {
                let href = url(Origin::Site, &go.to, page_origin);
                let target = if framed { " target=\"_top\"" } else { "" };
                let class = class(go.emphasis);
                let label = esc(&go.label);
                match (bp.spa.is_some(), go.style) {
                    (true, Style::Link) => {
                        let _ = write!(
                            html,
                            "<p><a class=\"{class}\" href=\"{}\" data-go=\"{}\">{label}</a></p>",
                            esc(&href),
                            esc(&go.to)
                        );
                    }
                    (true, Style::Button) => {
                        let _ = write!(
                            html,
                            "<p><button type=\"button\" class=\"{class}\" data-go=\"{}\">{label}</button></p>",
                            esc(&go.to)
                        );
                    }
                    (false, Style::Link) => {
                        let _ = write!(
                            html,
                            "<p><a class=\"{class}\" href=\"{}\"{target}>{label}</a></p>",
                            esc(&href)
                        );
                    }
                    (false, Style::Button) => {
                        let _ = write!(
                            html,
                            "<form method=\"get\" action=\"{}\"{target}><button class=\"{class}\" type=\"submit\">{label}</button></form>",
                            esc(&href)
                        );
                    }
                }
                if let Some(note) = &go.note {
                    let _ = write!(html, "<span class=\"note\">{}</span>", esc(note));
                }
            }
            Control::Form(form) => self::form(&mut html, bp, form, page_origin, framed),
            Control::Send(send) => {
                let _ = write!(
                    html,
                    "<p><button type=\"button\" class=\"{}\" data-ws=\"{}\" data-ws-go=\"1\">{}</button></p>",
                    class(send.emphasis),
                    esc(&send.message),
                    esc(&send.label)
                );
            }
        }
        html.push('\n');
    }
    if bp.shadow {
        let _ = writeln!(out, "<st-actions><template>{html}</template></st-actions>");
    } else {
        out.push_str(&html);
    }
}

fn form(out: &mut String, bp: &Blueprint, form: &Form, page_origin: Origin, framed: bool) {
    let action = url(form.origin, &form.action, page_origin);
    let confirm = form
        .dialog
        .as_ref()
        .map(|d| format!(" data-confirm=\"{}\"", esc(d)))
        .unwrap_or_default();
    let target = if framed { " target=\"_top\"" } else { "" };
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
        let _ = write!(
            out,
            "<p><a class=\"{class}\" href=\"{}?{}\"{confirm}{target}>{}</a></p>",
            esc(&action),
            esc(&query.join("&")),
            esc(&form.submit)
        );
        return;
    }
    match (bp.spa.is_some(), form.method) {
        (true, Method::Get) => {
            let _ = write!(
                out,
                "<form data-spa=\"get\" data-to=\"{}\"{confirm}>",
                esc(&form.action)
            );
        }
        (true, _) => {
            let _ = write!(
                out,
                "<form data-spa=\"post\" data-url=\"{}\"{confirm}>",
                esc(&action)
            );
        }
        (false, method) => {
            let follow = form
                .follow
                .as_ref()
                .map(|f| format!(" data-follow=\"{}\"", esc(f)))
                .unwrap_or_default();
            let _ = write!(
                out,
                "<form method=\"{}\" action=\"{}\"{confirm}{target}{follow}>",
                method.as_str().to_ascii_lowercase(),
                esc(&action)
            );
        }
    }
    for field in &form.fields {
        self::field(out, field);
    }
    let _ = write!(
        out,
        "<p><button class=\"{class}\" type=\"submit\">{}</button>",
        esc(&form.submit)
    );
    if let Some(note) = &form.note {
        let _ = write!(out, "<span class=\"note\">{}</span>", esc(note));
    }
    out.push_str("</p></form>");
}

fn field(out: &mut String, field: &Field) {
    match field {
        Field::Select {
            name,
            label,
            options,
            required,
        } => {
            let required = if *required { " required" } else { "" };
            let _ = write!(
                out,
                "<label for=\"{n}\">{}</label><select id=\"{n}\" name=\"{n}\"{required}><option value=\"\">—</option>",
                esc(label),
                n = esc(name)
            );
            for option in options {
                let _ = write!(out, "<option>{}</option>", esc(option));
            }
            out.push_str("</select>");
        }
        Field::Radios {
            name,
            legend,
            options,
        } => {
            let _ = write!(out, "<fieldset><legend>{}</legend>", esc(legend));
            for (i, (value, label, checked)) in options.iter().enumerate() {
                let checked = if *checked { " checked" } else { "" };
                let _ = write!(
                    out,
                    "<p><input type=\"radio\" id=\"{n}-{i}\" name=\"{n}\" value=\"{}\" required{checked}><label for=\"{n}-{i}\">{}</label></p>",
                    esc(value),
                    esc(label),
                    n = esc(name)
                );
            }
            out.push_str("</fieldset>");
        }
        Field::Password { name, label } => {
            let _ = write!(
                out,
                "<label for=\"{n}\">{}</label><input id=\"{n}\" name=\"{n}\" type=\"password\" autocomplete=\"current-password\" required>",
                esc(label),
                n = esc(name)
            );
        }
        Field::Text {
            name,
            label,
            value,
            email,
        } => {
            let kind = if *email { "email" } else { "text" };
            let _ = write!(
                out,
                "<label for=\"{n}\">{}</label><input id=\"{n}\" name=\"{n}\" type=\"{kind}\" value=\"{}\" required>",
                esc(label),
                esc(value),
                n = esc(name)
            );
        }
        Field::Hidden { name, value } => {
            let _ = write!(
                out,
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                esc(name),
                esc(value)
            );
        }
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

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
