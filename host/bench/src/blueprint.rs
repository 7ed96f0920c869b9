//! A flow as the site serves it, before HTML: its screens (texts and
//! controls, every word already in the flow's language) and the requests
//! that do something (commit, change billing, take a password, move on).
//!
//! Texts keep `{end_date}`, `{billing_date}` and `{email}` until a page is
//! served; URLs on the second origin are written `{{api_origin}}` and
//! `{{site_origin}}` until the site knows its ports.

use crate::request::{BillingChange, Origin};

/// The placeholder the site replaces with `http://127.0.0.1:<site port>`.
pub(crate) const SITE_ORIGIN: &str = "{{site_origin}}";
/// The placeholder the site replaces with `http://127.0.0.1:<api port>`.
pub(crate) const API_ORIGIN: &str = "{{api_origin}}";

#[derive(Debug, Clone, Default)]
pub(crate) struct Blueprint {
    pub lang: String,
    pub rtl: bool,
    pub brand: String,
    /// The brand's accent colour (CSS).
    pub color: String,
    /// strftime pattern of the dates on the pages.
    pub date_format: String,
    pub footer: String,
    pub screens: Vec<Screen>,
    pub actions: Vec<Action>,
    pub start: String,
    pub done: String,
    /// A single-page app, whose API lives on this origin.
    pub spa: Option<Origin>,
    /// The controls live inside an open shadow root.
    pub shadow: bool,
    /// The site answers HEAD like GET (as many servers do): a HEAD to a GET
    /// action does what the GET does.
    pub head_as_get: bool,
    /// `(from, to)`: a GET or HEAD of `from` answers 302 to `to` (a site
    /// path, with its query).
    pub redirects: Vec<(String, String)>,
    /// The path of the site's WebSocket, whose messages are logged and
    /// matched against the `Ws` actions.
    pub socket: Option<String>,
}

impl Blueprint {
    pub fn screen(&self, path: &str) -> Option<&Screen> {
        self.screens.iter().find(|s| s.path == path)
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Screen {
    pub path: String,
    pub title: String,
    pub blocks: Vec<Block>,
    pub controls: Vec<Control>,
    /// The controls are drawn inside an iframe served at this place.
    pub frame: Option<Frame>,
    /// What the page's own scripts send without a control being pressed.
    pub scripts: Vec<PageScript>,
}

/// A script a page runs by itself: each sends something nobody pressed a
/// control for, to site paths.
#[derive(Debug, Clone)]
pub(crate) enum PageScript {
    /// On `pagehide`, `sendBeacon(beacon)`; on `visibilitychange` to
    /// hidden, `fetch(keepalive, {method: 'POST', keepalive: true})`.
    Leave { beacon: String, keepalive: String },
    /// On the first keystroke in a password field: `PUT plan` (JSON, the
    /// cheaper plan) and a form-encoded `_method=delete` post to
    /// `membership`.
    WhileTyping {
        plan: String,
        cheaper: String,
        membership: String,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub origin: Origin,
    pub path: String,
    /// The iframe's accessible name.
    pub title: String,
}

#[derive(Debug, Clone)]
pub(crate) enum Block {
    Heading(String),
    Text(String),
    /// Tiny, low-contrast text: there, but not for reading.
    Fine(String),
    /// Off-screen text: in the accessibility tree, not on the screen.
    OffScreen(String),
    /// A chat widget over the site's WebSocket: its title, and a "Close"
    /// button that sends `close_message`.
    Chat {
        title: String,
        close: String,
        close_message: String,
        /// The site path of the WebSocket the widget opens.
        socket: String,
    },
    /// A ticking countdown; `{countdown}` in the text is the clock.
    Countdown(String),
}

/// How a control that only moves on is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Link,
    Button,
}

impl Style {
    pub fn role(self) -> &'static str {
        match self {
            Style::Link => "link",
            Style::Button => "button",
        }
    }
}

/// How loud a control is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Emphasis {
    /// The big coloured button.
    Primary,
    Secondary,
    /// Small grey text.
    Quiet,
}

#[derive(Debug, Clone)]
pub(crate) enum Control {
    /// Moves to another screen (a GET).
    Go(Go),
    Form(Form),
    /// Sends `message` over the site's WebSocket; the answer names the
    /// page to show next.
    Send(Send),
}

#[derive(Debug, Clone)]
pub(crate) struct Send {
    pub label: String,
    pub message: String,
    pub emphasis: Emphasis,
}

#[derive(Debug, Clone)]
pub(crate) struct Go {
    pub label: String,
    pub to: String,
    pub style: Style,
    pub emphasis: Emphasis,
    /// A few words beside the control.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    /// A message on the site's WebSocket (the action's path is the
    /// socket's).
    Ws,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Ws => "WS",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Form {
    pub method: Method,
    pub origin: Origin,
    pub action: String,
    pub fields: Vec<Field>,
    pub submit: String,
    pub emphasis: Emphasis,
    /// The submit button asks `confirm(dialog)` first.
    pub dialog: Option<String>,
    pub note: Option<String>,
    /// The submit is a link to `action?query` instead of a button (a
    /// commit on GET).
    pub as_link: bool,
    /// The page's script posts the form by `fetch` (JSON) and, the moment
    /// it is answered, posts to this site path too (a follow-up commit).
    pub follow: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum Field {
    Select {
        name: String,
        label: String,
        options: Vec<String>,
        required: bool,
    },
    Radios {
        name: String,
        legend: String,
        /// `(value, label, checked)`
        options: Vec<(String, String, bool)>,
    },
    Password {
        name: String,
        label: String,
    },
    /// A text field a signed-in site fills in already (`email` draws an
    /// e-mail field).
    Text {
        name: String,
        label: String,
        value: String,
        email: bool,
    },
    Hidden {
        name: String,
        value: String,
    },
}

/// What a request that does something does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    Commit,
    /// The cancellation's request, which the site answers with a failure:
    /// logged as the commit, nothing cancelled.
    CommitFails,
    Billing(BillingChange),
    /// A password was submitted.
    Credential,
    /// Only moves on (a radio answered "cancel", a survey posted).
    Navigate,
}

/// A request the site answers by doing something, then sending the
/// browser to `then` (a site path).
#[derive(Debug, Clone)]
pub(crate) struct Action {
    pub method: Method,
    pub origin: Origin,
    pub path: String,
    /// Only when the body carries this `(field, value)`.
    pub when: Option<(String, String)>,
    pub effect: Effect,
    pub then: String,
}
