//! Showing a file the person asked for (a receipt, a scan's report) in
//! their browser, when there is a person at a screen to see it: on a
//! terminal with a display. In a pipe, over SSH without a display, or in a
//! test, the path is what is useful, and nothing is started.

use std::io::IsTerminal;
use std::path::Path;

/// The desktop's own "open this file" command.
const OPENER: &str = if cfg!(target_os = "macos") {
    "open"
} else {
    "xdg-open"
};

/// What became of the file.
#[derive(Debug)]
pub enum Shown {
    /// Handed to the desktop's opener.
    Opened,
    /// No terminal or no display: only its path is said.
    NoScreen,
    /// The opener would not start; the reason, for the line that says so.
    Failed(String),
}

/// Opens `path` in the browser if a person at a screen asked for it.
pub fn in_browser(path: &Path) -> Shown {
    if !(std::io::stdout().is_terminal() && subterminator_core::session::has_display()) {
        return Shown::NoScreen;
    }
    // Not waited for: the opener may stay for as long as the browser does.
    let mut opener = std::process::Command::new(OPENER);
    opener
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // A process group of its own: when this command ends and its terminal
    // hangs up (`ssh -t host subterminator …`, a terminal that closes with
    // it), the hang-up goes to the terminal's foreground group and not to
    // an opener that has not handed the file to the browser yet (seen in
    // CI: the opener killed before it ran, the page never opened).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut opener, 0);
    match opener.spawn() {
        Ok(_) => Shown::Opened,
        Err(e) => Shown::Failed(format!("cannot start {OPENER}: {e}; open it in a browser")),
    }
}

/// One line for a person: where the file is, and whether it was opened.
pub fn said(path: &Path, shown: &Shown) -> String {
    match shown {
        Shown::Opened => format!("Opened {} in your browser.", path.display()),
        Shown::NoScreen => path.display().to_string(),
        Shown::Failed(why) => format!("{} ({why})", path.display()),
    }
}
