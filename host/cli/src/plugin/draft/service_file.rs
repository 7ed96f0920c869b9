//! The drafted `service.toml`: a declarative plugin that walks the path a
//! verified run took, asks before the step its person approved, and
//! believes the words the host verified at the end.
//!
//! Everything copied from the run's pages passes [`scrub`] first; a fill's
//! text is never copied, and a password field is never a step.

use subterminator_core::memory::url_pattern;
use subterminator_core::page::mask::is_secret_name;
use subterminator_core::safety::success::{Claim, success_claim};
use subterminator_declarative::API_VERSION;
use subterminator_declarative::limits::{MAX_PATTERN_CHARS, MAX_TEXT_CHARS};

use super::DraftError;
use super::scrub;
use super::walk::{Action, Page, Step, Walk};

/// What a fill's target gets for its value: the run's own text is never
/// copied (it may be a name, an address, a reason in the person's words).
pub(crate) const FILL_PLACEHOLDER: &str = "TODO: what to type here";

/// Sentences of the confirmation used as the success rule's words.
const MAX_SUCCESS_PHRASES: usize = 3;
/// A success phrase shorter than this is too common to prove anything.
const MIN_PHRASE_CHARS: usize = 12;
/// ... and one longer is one the site will reword soon.
const MAX_PHRASE_CHARS: usize = 120;

/// The steps a plan will hold: every action but one on a password field.
pub(crate) fn plan_steps(walk: &Walk) -> Vec<&Step> {
    walk.steps
        .iter()
        .filter(|step| !is_secret_name(&step.name))
        .collect()
}

/// The `service.toml` text for `walk`, as plugin `id`.
pub(crate) fn render(
    walk: &Walk,
    id: &str,
    run_id: &str,
    descriptors: &[String],
) -> Result<String, DraftError> {
    let steps = plan_steps(walk);
    let Some(last) = steps.last().filter(|s| s.approved) else {
        return Err(DraftError::Record(
            "the step the person approved acts on a password field; no plan can say it".into(),
        ));
    };
    let display = if walk.display_name.is_empty() {
        id.to_owned()
    } else {
        scrub::text(&walk.display_name)
    };
    let phrases = success_phrases(walk)?;
    let mut out = String::new();
    out.push_str(&format!(
        "# Drafted by `subterminator plugin new {id} --from-run {run_id}` from that verified run\n\
         # of the {service} plugin. It walks the path that run took and nothing else: read every\n\
         # rule against the real site before you rely on it or share it.\n",
        service = walk.service
    ));
    if steps.iter().any(|s| s.action == Action::Fill) {
        out.push_str(&format!(
            "# A fill's text is never copied from the run: each says {FILL_PLACEHOLDER:?}; write what to type.\n"
        ));
    }
    out.push_str(&format!("\napi = {}\n\n[service]\n", quoted(API_VERSION)));
    out.push_str(&format!("id = {}\n", quoted(id)));
    out.push_str(&format!("display-name = {}\n", quoted(&display)));
    out.push_str("version = \"0.1.0\"\n");
    out.push_str(&format!("initial-url = {}\n", quoted(&walk.start_url)));
    out.push_str(&format!(
        "goal = {}\n",
        quoted(&format!(
            "Cancel the {display} subscription, declining every offer. Call complete_task when the page says it has been cancelled."
        ))
    ));
    out.push_str(&format!("allowed-origins = {}\n", list(&origins(walk))));
    let sign_in = sign_in_patterns(walk);
    if !sign_in.is_empty() {
        out.push_str(&format!("login-url-patterns = {}\n", list(&sign_in)));
    }
    match &walk.commit {
        Some(request) => {
            out.push_str(
                "# The request the person's yes let through: the guard holds it unless approved.\n",
            );
            out.push_str(&format!(
                "commit-requests = [{{ method = {}, url-pattern = {} }}]\n",
                quoted(&request.method.to_uppercase()),
                quoted(&path_glob(&request.url))
            ));
        }
        None => {
            out.push_str("# No commit-requests: the record names no request the yes let through.\n")
        }
    }
    out.push_str(
        "# No harmless-requests: the record does not show any request as harmless, and a wrong one\n\
         # would let a commit through unasked.\n",
    );
    if !descriptors.is_empty() {
        out.push_str(&format!("billing-descriptors = {}\n", list(descriptors)));
    }

    for (i, step) in steps.iter().enumerate() {
        let next = steps.get(i + 1).map(|s| &walk.pages[s.page]);
        out.push_str("\n[[plan]]\n");
        out.push_str(&format!(
            "description = {}\n",
            quoted(&cut(&describe(step), MAX_TEXT_CHARS))
        ));
        let done = if step.approved {
            "The page says the subscription has been cancelled".to_owned()
        } else {
            done_when(step, &walk.pages[step.page], next)
        };
        out.push_str(&format!(
            "done-when = {}\n",
            quoted(&cut(&done, MAX_TEXT_CHARS))
        ));
        if step.approved {
            out.push_str("irreversible = true\n");
        }
        out.push_str(&format!("targets = [{}]\n", target(step)));
    }

    let final_name = plan_name(&last.name);
    // An earlier step's element whose name holds the final one's (`Cancel`
    // before `Cancel subscription`'s page) must not be asked about.
    let earlier: Vec<String> = steps
        .iter()
        .filter(|s| !s.approved)
        .map(|s| plan_name(&s.name))
        .filter(|name| name.contains(&final_name) && !final_name.contains(name.as_str()))
        .collect();
    out.push_str("\n[[checkpoint]]\n");
    out.push_str(&format!(
        "reason = {}\n",
        quoted(&cut(
            &format!(
                "This {} \"{}\" finishes the cancellation",
                last.role,
                scrub::text(&last.name)
            ),
            MAX_TEXT_CHARS
        ))
    ));
    out.push_str(&format!(
        "when = {{ target-role = {}, target-name = {} }}\n",
        quoted(&last.role),
        list(std::slice::from_ref(&final_name))
    ));
    if !earlier.is_empty() {
        out.push_str(&format!(
            "unless = {{ target-name = {} }}\n",
            list(&earlier)
        ));
    }

    out.push_str("\n# The words of the confirmation the host verified; never while the final step is still offered.\n");
    out.push_str("[[success]]\n");
    out.push_str(&format!("when = {{ content = {} }}\n", list(&phrases)));
    out.push_str(&format!(
        "unless = {{ element = [{{ name = {} }}] }}\n",
        list(&[final_name])
    ));

    if !sign_in.is_empty() {
        out.push_str("\n[[auth]]\nkind = \"login-required\"\n");
        out.push_str(&format!(
            "message = {}\n",
            quoted(&cut(
                &format!("{display} needs you to sign in. Sign in in the browser window."),
                MAX_TEXT_CHARS
            ))
        ));
        out.push_str(&format!("when = {{ url-glob = {} }}\n", list(&sign_in)));
    }
    Ok(out)
}

/// `click button "Continue"`, in the plan's words.
fn describe(step: &Step) -> String {
    let name = scrub::text(&step.name);
    let base = match (step.action, &step.option) {
        (Action::Select, Some(option)) => {
            format!(
                "Choose \"{}\" in {} \"{name}\"",
                scrub::text(option),
                step.role
            )
        }
        (Action::Select, None) => format!("Choose an option in {} \"{name}\"", step.role),
        (Action::Fill, _) => format!("Fill in {} \"{name}\"", step.role),
        (Action::Click, _) => format!("Click {} \"{name}\"", step.role),
    };
    if step.approved {
        format!("{base}: this commits the cancellation (a person approves it)")
    } else {
        base
    }
}

fn done_when(step: &Step, page: &Page, next: Option<&Page>) -> String {
    match next {
        Some(next) if next.url != page.url || next.title != page.title => {
            format!("The {} page is shown", page_name(next))
        }
        _ => match step.action {
            Action::Select => "The option is chosen".to_owned(),
            Action::Fill => "The field is filled in".to_owned(),
            Action::Click => "The page has changed".to_owned(),
        },
    }
}

/// `"Before you go - Spotify"`, or its path when it has no title.
fn page_name(page: &Page) -> String {
    if page.title.trim().is_empty() {
        url_pattern(&page.url).unwrap_or_default()
    } else {
        format!("\"{}\"", scrub::text(page.title.trim()))
    }
}

/// One plan target, as an inline table.
fn target(step: &Step) -> String {
    let value = match (step.action, &step.option) {
        (Action::Select, Some(option)) => {
            format!(
                ", value = {}",
                quoted(&cut(&scrub::text(option), MAX_PATTERN_CHARS))
            )
        }
        (Action::Fill, _) => format!(", value = {}", quoted(FILL_PLACEHOLDER)),
        _ => String::new(),
    };
    format!(
        "{{ action = {}, role = {}, name = {}{value} }}",
        quoted(step.action.word()),
        quoted(&step.role),
        list(&[plan_name(&step.name)])
    )
}

/// A name as a plan or rule matches it: scrubbed, lower-case, within the
/// pattern bound (a prefix still matches, names are contained).
pub(crate) fn plan_name(name: &str) -> String {
    cut(&scrub::text(name).trim().to_lowercase(), MAX_PATTERN_CHARS)
}

/// The origins of the start URL and every page, in the order seen.
fn origins(walk: &Walk) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let urls =
        std::iter::once(walk.start_url.as_str()).chain(walk.pages.iter().map(|p| p.url.as_str()));
    for url in urls {
        if let Ok(parsed) = url::Url::parse(url) {
            let origin = parsed.origin().ascii_serialization();
            if origin != "null" && !found.contains(&origin) {
                found.push(origin);
            }
        }
    }
    found
}

fn sign_in_patterns(walk: &Walk) -> Vec<String> {
    let mut patterns: Vec<String> = Vec::new();
    for page in walk.pages.iter().filter(|p| p.sign_in) {
        let glob = path_glob(&page.url);
        if !patterns.contains(&glob) {
            patterns.push(glob);
        }
    }
    patterns
}

/// `https://x.com/account/123/cancel?token=…` → `*/account/*/cancel*`: the
/// path with its ids wildcarded, the query (tokens) left out; with the host
/// when the path alone says too little.
pub(crate) fn path_glob(url: &str) -> String {
    let path = url_pattern(url).unwrap_or_default();
    let path = path.trim_end_matches('/');
    let says_enough = path
        .split('/')
        .any(|segment| segment.chars().filter(|c| *c != '*').count() >= 2);
    if says_enough {
        format!("*{path}*")
    } else {
        let host = url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        format!("*{host}{path}*")
    }
}

/// The few sentences of the verified confirmation that are on the last
/// page only and speak of the end: the success rule's words.
pub(crate) fn success_phrases(walk: &Walk) -> Result<Vec<String>, DraftError> {
    let trees: Vec<String> = walk
        .pages
        .iter()
        .map(|p| {
            p.tree
                .as_deref()
                .map(|t| scrub::tree(t).to_lowercase())
                .unwrap_or_default()
        })
        .collect();
    let Some((last, earlier)) = trees.split_last() else {
        return Err(DraftError::Record("the record saved no page".into()));
    };
    let mut phrases: Vec<String> = Vec::new();
    let body = walk
        .confirmation
        .lines()
        .filter(|l| !l.starts_with("URL:") && !l.starts_with("Title:"));
    for line in body {
        for sentence in line.split_inclusive(['.', '!', '?', '。']) {
            let phrase = sentence
                .trim()
                .trim_end_matches(['.', '!', '?', '。'])
                .trim()
                .to_lowercase();
            let chars = phrase.chars().count();
            let usable = (MIN_PHRASE_CHARS..=MAX_PHRASE_CHARS).contains(&chars)
                && !phrase
                    .chars()
                    .any(|c| c.is_ascii_digit() || c == '@' || c == '"')
                // The host's own reading, in the languages it reads: the
                // sentence says, unconditionally, that it ended.
                && matches!(success_claim(&phrase), Claim::Affirmed(_))
                && scrub::text(&phrase) == phrase
                && last.contains(&phrase)
                && !earlier.iter().any(|tree| tree.contains(&phrase))
                && !phrases.contains(&phrase);
            if usable && phrases.len() < MAX_SUCCESS_PHRASES {
                phrases.push(phrase);
            }
        }
    }
    if phrases.is_empty() {
        return Err(DraftError::Record(
            "the confirmation the host verified has no sentence about the cancellation that only the last page shows; nothing to write a success rule from".into(),
        ));
    }
    Ok(phrases)
}

/// `text` as a TOML string.
pub(crate) fn quoted(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// At most `max` characters of `text`.
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
