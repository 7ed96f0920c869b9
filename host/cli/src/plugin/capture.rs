//! `plugin record`: opens a browser on a service's page and saves each page
//! the person reaches as a test fixture (`fixtures/NN-<slug>.yaml` and
//! `.toml`, see [`crate::scaffold::capture`]). With `--walk` a scripted
//! walker takes the person's place, so that tests and CI can record too.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;

use crate::console::Console;
use crate::scaffold;
use crate::scaffold::capture::{self, Changes, PageKey, Saved};
use crate::scaffold::walk;
use crate::table::print_table;
use subterminator_core::browser::{Browser, BrowserError, BrowserOptions, UserData, tools};
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::memory::Step;
use subterminator_core::page::Snapshot;
use subterminator_core::page::mask;
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::HintAction;
use subterminator_core::session;
use subterminator_core::text::{ELLIPSIS, sanitize, truncate};

/// How often the page is read while a person walks the flow: quick enough
/// to catch a page shown for a second, slow enough to leave the browser be.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// After a scripted step, how often the page is read until it holds still.
pub const SETTLE_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Longest wait for a page to hold still after a scripted step; one that
/// never does (a clock in the tree) is saved as it is then.
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Failed reads in a row before the browser counts as gone: a read during a
/// navigation can fail once with nothing wrong.
pub const FAILED_POLLS_MAX: u32 = 4;

/// Longest title shown in the summary table, in characters.
const TITLE_SHOWN_MAX_CHARS: usize = 40;

const WALK_HELP: &str = "\
Walk the flow from a TOML file instead of by hand (for tests and CI; works \
without a display or a terminal). Each step acts on the first element of the \
latest page with exactly that role and a name containing `name` (ignoring \
case); the page is saved after each step once it holds still, and recording \
stops after the last one. A missing element ends the walk with an error that \
lists what the page had. Unknown keys are refused.

  [[step]]
  click = { role = \"button\", name = \"Cancel subscription\" }
  [[step]]
  select = { role = \"combobox\", name = \"Reason\", value = \"Other\" }
  [[step]]
  fill = { role = \"textbox\", name = \"Email\", value = \"a@example.com\" }";

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
        subterminator plugin record acme --start-url https://acme.tv/account  walk it by hand\n  \
        subterminator plugin record acme --start-url https://acme.tv/account --out .  into ./fixtures\n  \
        subterminator plugin record acme --start-url https://acme.tv/ --walk w.toml --headless  scripted")]
pub struct CaptureArgs {
    /// The plugin's id; the default folder is ./<id>.
    pub id: String,

    /// The page the flow starts on (http or https).
    #[arg(long, value_name = "URL")]
    pub start_url: String,

    /// The plugin's folder; pages are saved in its fixtures/. Default: ./<id>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Run the browser without a window (only with --walk: nobody could use it).
    #[arg(long)]
    pub headless: bool,

    /// Walk the flow from a TOML file instead of by hand.
    #[arg(long, value_name = "FILE", hide_short_help = true, long_help = WALK_HELP)]
    pub walk: Option<PathBuf>,
}

/// Why capture ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stop {
    Enter,
    Interrupted,
    /// The browser stopped answering: its window was closed (or it died).
    Closed(String),
    Walked,
}

impl Stop {
    fn code(&self) -> &'static str {
        match self {
            Stop::Enter => "enter",
            Stop::Interrupted => "interrupted",
            Stop::Closed(_) => "browser-closed",
            Stop::Walked => "walk-done",
        }
    }
}

pub async fn run(args: CaptureArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    scaffold::check_id(&args.id)?;
    let start_url = check_start_url(&args.start_url)?;
    let steps = args.walk.as_deref().map(walk::load).transpose()?;
    let display = session::has_display();
    if steps.is_none() && !display {
        return Err(Error::Configuration(
            "`plugin record` opens a browser window for you to walk the flow in, and there is no \
             display here. Run it on a desktop, or script the walk with --walk FILE \
             (see `subterminator plugin record --help`)."
                .into(),
        ));
    }
    if steps.is_none() && args.headless {
        return Err(Error::Configuration(
            "--headless hides the browser, so nobody could walk the flow in it. Drop --headless, \
             or script the walk with --walk FILE."
                .into(),
        ));
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(&args.id));
    let fixtures = out.join("fixtures");
    std::fs::create_dir_all(&fixtures)
        .map_err(|e| Error::io("cannot create the fixtures folder", &fixtures, e))?;
    let first_number = capture::next_number(file_names(&fixtures)?);

    let config = Config::load(&dirs.config_file())?;
    // The server's scratch files (its snapshots) go to a folder of their own
    // that disappears with the capturing.
    let scratch = tempfile::tempdir()
        .map_err(|e| Error::io("cannot create a temporary folder", std::env::temp_dir(), e))?;
    let mut options = BrowserOptions::new(UserData::Isolated, scratch.path().join("browser"));
    options.headless = args.headless || !display;
    options.executable_path = config.browser.executable.clone();
    options.command = config.browser.command.clone();

    let terminal = std::io::stdin().is_terminal();
    if !json {
        let how = match (&steps, terminal) {
            (Some(steps), _) => format!(
                "Walking the {} step{} of the walk file",
                steps.len(),
                if steps.len() == 1 { "" } else { "s" }
            ),
            (None, true) => "Walk the flow in the browser window. Press Enter here, press Ctrl+C \
                             or close the window when you are done"
                .to_owned(),
            (None, false) => {
                "Walk the flow in the browser window. Press Ctrl+C or close the window when you \
                 are done"
                    .to_owned()
            }
        };
        anstream::println!("Recording {} into {}. {how}.", args.id, fixtures.display());
    }
    // One watcher from the start on: a Ctrl+C while the browser starts, or
    // between two polls, must not be lost.
    let interrupted = session::interrupted();
    tokio::pin!(interrupted);
    let browser = tokio::select! {
        browser = Browser::start(options) => browser?,
        () = &mut interrupted => return Err(Error::Interrupted),
    };
    let mut capturer = Capturer {
        browser: &browser,
        dir: fixtures.clone(),
        next: first_number,
        changes: Changes::default(),
        secrets: Vec::new(),
        saved: Vec::new(),
        json,
    };
    let outcome = tokio::select! {
        outcome = capturer.capture(&start_url, steps.as_deref(), terminal) => outcome,
        () = &mut interrupted => Ok(Stop::Interrupted),
    };
    let saved = std::mem::take(&mut capturer.saved);
    if let Err(e) = browser.shutdown().await {
        tracing::warn!("browser shutdown: {e}");
    }
    drop(scratch);
    report(&args.id, &out, &saved, outcome.as_ref().ok(), json);
    outcome.map(|_| 0)
}

/// The start URL, refused unless it is http(s).
fn check_start_url(url: &str) -> Result<String> {
    let parsed = url::Url::parse(url).map_err(|e| {
        Error::Configuration(format!(
            "--start-url {url:?} is not a URL ({e}); give a whole one, e.g. https://www.example.com/account"
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Error::Configuration(format!(
            "--start-url {url:?} must be an http or https URL, e.g. https://www.example.com/account"
        )));
    }
    Ok(parsed.to_string())
}

/// The names of the files in `dir`, to number new pages after them.
fn file_names(dir: &Path) -> Result<Vec<String>> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Error::io("cannot list the fixtures folder", dir, e))?;
    Ok(entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect())
}

struct Capturer<'a> {
    browser: &'a Browser,
    dir: PathBuf,
    next: u32,
    changes: Changes,
    /// Every value seen in a password input so far, masked in every page
    /// saved after it.
    secrets: Vec<String>,
    saved: Vec<Saved>,
    json: bool,
}

impl Capturer<'_> {
    async fn capture(
        &mut self,
        start_url: &str,
        steps: Option<&[Step]>,
        terminal: bool,
    ) -> Result<Stop> {
        self.browser.navigate(start_url).await?;
        let page = self.settle().await?;
        self.keep_settled(&page).await?;
        match steps {
            Some(steps) => self.walk(steps, page).await,
            None => {
                let console = terminal.then(Console::stdin);
                self.by_hand(console).await
            }
        }
    }

    /// Polls the page a person is using until they say they are done.
    async fn by_hand(&mut self, mut console: Option<Console>) -> Result<Stop> {
        let mut failed = 0;
        loop {
            let enter = async {
                match console.as_mut() {
                    Some(console) => console.read_line().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = enter => return Ok(Stop::Enter),
                () = tokio::time::sleep(POLL_INTERVAL) => {}
            }
            // Closing the window ends the browser, so the next read fails:
            // that is one of the ways to say "done".
            let page = match self.browser.snapshot().await {
                Ok(page) => page,
                Err(e) => {
                    failed += 1;
                    if browser_gone(&e) || failed >= FAILED_POLLS_MAX {
                        return Ok(Stop::Closed(e.to_string()));
                    }
                    tracing::debug!("reading the page failed ({failed} in a row): {e}");
                    continue;
                }
            };
            failed = 0;
            if capture::is_page(&page) && self.changes.poll(PageKey::of(&page)) {
                self.save(&page).await?;
            }
        }
    }

    /// Takes each step on the latest page, saving each new page after it.
    async fn walk(&mut self, steps: &[Step], mut page: Snapshot) -> Result<Stop> {
        for (index, step) in steps.iter().enumerate() {
            let Some(reference) = walk::find(step, &page).and_then(|e| e.reference.clone()) else {
                return Err(Error::Configuration(walk::missing(step, index, &page)));
            };
            let value = step.value.as_deref().unwrap_or_default();
            let acted = match step.action {
                HintAction::Click => self.browser.click(&reference).await,
                HintAction::Select => self.browser.select_option(&reference, &[value]).await,
                HintAction::Fill => self.browser.type_text(&reference, value, false).await,
            };
            if step.action == HintAction::Fill {
                // Typing rarely changes the page enough to save it; the
                // next page may still show what was typed.
                self.remember_secrets().await;
            }
            if let Err(e) = acted {
                return Err(Error::Configuration(format!(
                    "walk step {} ({}) failed: {e}. Check that the step can be done by hand on {}.",
                    index + 1,
                    step.describe(),
                    page.url
                )));
            }
            page = self.settle().await?;
            self.keep_settled(&page).await?;
        }
        Ok(Stop::Walked)
    }

    /// The page once two reads in a row show the same page (or when
    /// [`SETTLE_TIMEOUT`] has passed).
    async fn settle(&self) -> Result<Snapshot> {
        let deadline = Instant::now() + SETTLE_TIMEOUT;
        let mut last = self.browser.snapshot().await?;
        loop {
            tokio::time::sleep(SETTLE_POLL_INTERVAL).await;
            let now = self.browser.snapshot().await?;
            if PageKey::of(&now) == PageKey::of(&last) || Instant::now() >= deadline {
                return Ok(now);
            }
            last = now;
        }
    }

    async fn keep_settled(&mut self, page: &Snapshot) -> Result<()> {
        if capture::is_page(page) && self.changes.settled(PageKey::of(page)) {
            self.save(page).await?;
        }
        Ok(())
    }

    async fn save(&mut self, page: &Snapshot) -> Result<()> {
        self.remember_secrets().await;
        let saved = capture::save(&self.dir, self.next, page, &self.secrets)?;
        self.next += 1;
        if !self.json {
            anstream::println!(
                "  saved {}  {}",
                saved.stem,
                sanitize(&truncate(&saved.url, 100, ELLIPSIS))
            );
        }
        self.saved.push(saved);
        Ok(())
    }

    /// Adds what the page's password inputs hold to the secrets. A page
    /// that cannot be read this way still has its named password fields
    /// masked.
    async fn remember_secrets(&mut self) {
        for value in self.password_values().await {
            if !self.secrets.contains(&value) {
                self.secrets.push(value);
            }
        }
    }

    async fn password_values(&self) -> Vec<String> {
        let called = self
            .browser
            .call(
                tools::EVALUATE,
                serde_json::json!({ "function": mask::PASSWORD_VALUES_JS }),
            )
            .await;
        match called {
            Ok(output) => mask::parse_secrets(output.result.as_deref()).unwrap_or_else(|| {
                tracing::warn!("the password fields' values could not be read");
                Vec::new()
            }),
            Err(e) => {
                tracing::warn!("the password fields' values could not be read: {e}");
                Vec::new()
            }
        }
    }
}

/// Whether a failed read means the browser is gone, not busy.
fn browser_gone(error: &BrowserError) -> bool {
    match error {
        BrowserError::ConnectionLost { .. } | BrowserError::Timeout { .. } => true,
        // What Playwright says once the window (its last page) was closed.
        BrowserError::Tool { message, .. } => {
            message.contains("has been closed") || message.contains("Target closed")
        }
        _ => false,
    }
}

/// The table of saved pages (or one JSON object), and what to do next.
fn report(id: &str, out: &Path, saved: &[Saved], stop: Option<&Stop>, json: bool) {
    if json {
        let value = serde_json::json!({
            "id": id,
            "out": out,
            "fixtures": saved.iter().map(|s| serde_json::json!({
                "yaml": format!("fixtures/{}.yaml", s.stem),
                "toml": format!("fixtures/{}.toml", s.stem),
                "url": s.url,
                "title": s.title,
            })).collect::<Vec<_>>(),
            "stopped": stop.map(Stop::code),
        });
        anstream::println!("{value}");
        return;
    }
    if let Some(Stop::Closed(detail)) = stop {
        tracing::debug!("capture ended: {detail}");
        anstream::println!("\nThe browser was closed.");
    }
    if saved.is_empty() {
        anstream::println!(
            "\nNo page was saved. Run it again and wait a second on each page you want kept."
        );
        return;
    }
    let rows: Vec<[String; 3]> = saved
        .iter()
        .map(|s| {
            [
                format!("fixtures/{}.toml", s.stem),
                sanitize(&truncate(&s.title, TITLE_SHOWN_MAX_CHARS, ELLIPSIS)),
                sanitize(&s.url),
            ]
        })
        .collect();
    anstream::println!(
        "\nSaved {} page{} in {}:",
        saved.len(),
        if saved.len() == 1 { "" } else { "s" },
        out.display()
    );
    print_table(&["FIXTURE", "TITLE", "URL"], &rows);
    anstream::println!(
        "\nNext: fill in the [expect] section of each .toml, then run `subterminator plugin test {}`.",
        out.display()
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::time::Duration;

    use super::*;

    #[test]
    fn which_failed_reads_end_the_capture() {
        let tool = |message: &str| BrowserError::Tool {
            tool: tools::SNAPSHOT.into(),
            message: message.into(),
        };
        let cases = [
            (
                tool("browserBackend.callTool: Target page, context or browser has been closed"),
                true,
            ),
            (tool("Target closed"), true),
            (
                tool("Execution context was destroyed, most likely because of a navigation"),
                false,
            ),
            (
                BrowserError::ConnectionLost {
                    tool: tools::SNAPSHOT.into(),
                    detail: "eof".into(),
                    reconnected: false,
                },
                true,
            ),
            (
                BrowserError::Timeout {
                    tool: tools::SNAPSHOT.into(),
                    after: Duration::from_secs(45),
                },
                true,
            ),
            (
                BrowserError::SnapshotValidation {
                    missing: vec!["the page title"],
                    present: vec![],
                },
                false,
            ),
        ];
        for (error, gone) in cases {
            assert_eq!(browser_gone(&error), gone, "{error}");
        }
    }

    #[test]
    fn start_urls_table() {
        let cases = [
            ("https://www.example.com/account", true),
            ("http://127.0.0.1:8765/", true),
            ("ftp://example.com/", false),
            ("javascript:alert(1)", false),
            ("www.example.com", false),
        ];
        for (url, ok) in cases {
            assert_eq!(check_start_url(url).is_ok(), ok, "{url}");
        }
    }
}
