//! One captured page, as `plugin test` reads it: `NN-<slug>.yaml`, the
//! accessibility tree as Playwright gave it (masked), and `NN-<slug>.toml`,
//! what the plugin must say about that page. The capture cannot know the
//! answers, so the `[expect]` keys are written commented out, with their
//! allowed values, for the author to fill in.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use subterminator_core::error::{Error, Result};
use subterminator_core::page::mask;
use subterminator_core::page::{Element, Snapshot};

/// Longest slug in a fixture's file name, in characters: long enough to
/// tell pages apart, short enough to read in a listing.
pub const SLUG_MAX_CHARS: usize = 40;

/// What makes a page a different page to the recorder: its URL, its title
/// and which named elements it has. Bare text is left out, so that a clock
/// or a "saving…" line does not make every poll a new page; values are left
/// out, so that typing into a field does not either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageKey {
    url: String,
    title: String,
    elements: BTreeSet<(String, String)>,
}

impl PageKey {
    pub fn of(snapshot: &Snapshot) -> Self {
        Self {
            url: snapshot.url.clone(),
            title: snapshot.title.clone(),
            elements: snapshot
                .elements
                .iter()
                .filter(|e| !e.name.is_empty() && e.role != "text")
                .map(|e| (e.role.clone(), e.name.clone()))
                .collect(),
        }
    }
}

/// Decides which pages are saved.
#[derive(Debug, Default)]
pub struct Changes {
    saved: Option<PageKey>,
    previous: Option<PageKey>,
}

impl Changes {
    /// One poll of the page a person is using: true when it should be saved
    /// now, because it differs from the page saved last and looked the same
    /// on the poll before (a page still loading is not saved half-drawn).
    pub fn poll(&mut self, key: PageKey) -> bool {
        let stable = self.previous.as_ref() == Some(&key);
        self.previous = Some(key.clone());
        stable && self.settled(key)
    }

    /// A page already known to be settled (the walker waited for it): true
    /// when it differs from the page saved last.
    pub fn settled(&mut self, key: PageKey) -> bool {
        if self.saved.as_ref() == Some(&key) {
            return false;
        }
        self.saved = Some(key);
        true
    }
}

/// Whether a snapshot shows a page at all: the browser's blank start page
/// and an empty tree have nothing to test.
pub fn is_page(snapshot: &Snapshot) -> bool {
    !snapshot.url.starts_with("about:") && !snapshot.content.trim().is_empty()
}

/// A file-name part from the page's title (or, without one, its URL's path):
/// lower-case ASCII letters and digits joined by '-'.
pub fn slug(title: &str, url: &str) -> String {
    let source = if title.trim().is_empty() {
        url::Url::parse(url)
            .map(|u| u.path().to_owned())
            .unwrap_or_default()
    } else {
        title.to_owned()
    };
    let mut slug = String::new();
    for c in source.chars() {
        if slug.len() >= SLUG_MAX_CHARS {
            break;
        }
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "page".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The number after the highest `NN-` prefix among `names`: capturing into a
/// plugin's folder again adds pages after those already there.
pub fn next_number<I, S>(names: I) -> u32
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    names
        .into_iter()
        .filter_map(|n| n.as_ref().split_once('-')?.0.parse::<u32>().ok())
        .max()
        .map_or(1, |n| n.saturating_add(1))
}

/// The expectation file for one page, `[expect]` left for the author. The
/// commented checkpoint names the page's first button (or link), the likely
/// thing to check.
pub fn expectation(tree_file: &str, url: &str, title: &str, elements: &[Element]) -> String {
    let example = ["button", "link"]
        .iter()
        .find_map(|role| {
            elements
                .iter()
                .find(|e| e.role == *role && !e.name.is_empty())
        })
        .map_or(("button", "Continue".to_owned()), |e| {
            (e.role.as_str(), e.name.clone())
        });
    let (role, name) = example;
    format!(
        "# What the plugin must say about one recorded page. Fill in [expect]: uncomment\n\
         # the keys that apply and set their values.\n\
         snapshot = {tree}      # Playwright's accessibility snapshot, beside this file\n\
         url = {url}\n\
         title = {title}\n\
         \n\
         [expect]\n\
         # verify = \"unknown\"             # success | failure | unknown | already-cancelled; omit to not check\n\
         # auth = \"none\"                  # none | login-required | two-factor | captcha | session-expired; omit to not check\n\
         \n\
         # [[expect.checkpoint]]          # one per browser call to check\n\
         # action = \"browser_click\"       # the browser tool\n\
         # role = {role}                # the target element's role…\n\
         # name = {name}   # …and accessible name, as in the snapshot\n\
         # ask = false                    # true: the plugin must ask before it; false: it must not\n",
        tree = toml_string(tree_file),
        url = toml_string(url),
        title = toml_string(title),
        role = toml_string(role),
        name = toml_string(&name),
    )
}

/// `s` as a TOML basic string, quotes and escapes included.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A page written to disk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Saved {
    /// `NN-<slug>`: the tree is `<stem>.yaml`, the expectations `<stem>.toml`.
    pub stem: String,
    pub url: String,
    pub title: String,
}

/// Writes one page into `dir` as number `number`, with every secret masked
/// (see [`mask`]): `secrets` are the values password inputs held during the
/// capturing, on this page or an earlier one (a page can show, or a form
/// put into the next URL, what was typed before). Never overwrites: a file
/// already there is an error.
pub fn save(dir: &Path, number: u32, snapshot: &Snapshot, secrets: &[String]) -> Result<Saved> {
    let url = mask::anywhere(&mask::url(&snapshot.url), secrets);
    let title = mask::anywhere(&snapshot.title, secrets);
    let stem = format!("{number:02}-{}", slug(&title, &url));
    let tree_file = format!("{stem}.yaml");
    let mut tree = mask::tree(&snapshot.content, secrets);
    if !tree.ends_with('\n') {
        tree.push('\n');
    }
    let elements = subterminator_core::browser::tree::parse_tree(&tree);
    let expect = expectation(&tree_file, &url, &title, &elements);
    create_new(&dir.join(&tree_file), &tree)?;
    create_new(&dir.join(format!("{stem}.toml")), &expect)?;
    Ok(Saved { stem, url, title })
}

fn create_new(path: &Path, contents: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io("cannot create the fixture", path, e))?;
    file.write_all(contents.as_bytes())
        .map_err(|e| Error::io("cannot write the fixture", path, e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn page(url: &str, title: &str, tree: &str) -> Snapshot {
        Snapshot {
            url: url.into(),
            title: title.into(),
            elements: subterminator_core::browser::tree::parse_tree(tree),
            content: tree.into(),
            screenshot_path: None,
        }
    }

    #[test]
    fn slugs_table() {
        let long = "A very long title that goes on and on about nothing at all";
        let cases = [
            ("Your account", "https://x.com/a", "your-account"),
            (
                "  StreamFlix — Before you go!  ",
                "",
                "streamflix-before-you-go",
            ),
            (
                "",
                "https://x.com/account/cancel/confirm?x=1",
                "account-cancel-confirm",
            ),
            ("", "https://x.com/", "page"),
            ("", "not a url", "page"),
            ("Kündigen", "", "k-ndigen"),
            ("***", "", "page"),
            (long, "", "a-very-long-title-that-goes-on-and-on-ab"),
        ];
        for (title, url, want) in cases {
            let got = slug(title, url);
            assert_eq!(got, want, "{title:?} {url:?}");
            assert!(got.len() <= SLUG_MAX_CHARS, "{got}");
        }
    }

    #[test]
    fn numbering_continues_after_what_is_there() {
        let cases: [(&[&str], u32); 5] = [
            (&[], 1),
            (&["account.toml", "account.yaml"], 1),
            (&["01-your-account.yaml", "01-your-account.toml"], 2),
            (&["03-a.toml", "12-b.yaml", "7.yaml", "x-1.toml"], 13),
            (&["99-z.toml"], 100),
        ];
        for (names, want) in cases {
            assert_eq!(next_number(names.iter()), want, "{names:?}");
        }
    }

    #[test]
    fn change_detection_table() {
        let account = page(
            "https://x.com/a",
            "Account",
            "- heading \"Account\" [ref=e1]\n- button \"Cancel\" [ref=e2]",
        );
        let retyped = page(
            "https://x.com/a",
            "Account",
            "- heading \"Account\" [ref=e7]\n- button \"Cancel\" [ref=e8]\n- text: 12:01",
        );
        let typed = page(
            "https://x.com/a",
            "Account",
            "- heading \"Account\" [ref=e1]\n- button \"Cancel\" [ref=e2]\n- textbox \"Email\" [ref=e3]: a@b.c",
        );
        let renamed = page(
            "https://x.com/a",
            "Account",
            "- heading \"Account\" [ref=e1]\n- button \"Keep\" [ref=e2]",
        );
        let moved = page(
            "https://x.com/b",
            "Account",
            "- heading \"Account\" [ref=e1]\n- button \"Cancel\" [ref=e2]",
        );
        let retitled = page(
            "https://x.com/a",
            "Sure?",
            "- heading \"Account\" [ref=e1]\n- button \"Cancel\" [ref=e2]",
        );
        let key = PageKey::of;
        let cases = [
            ("new refs and bare text", &retyped, true),
            ("a new field", &typed, false),
            ("a renamed button", &renamed, false),
            ("another URL", &moved, false),
            ("another title", &retitled, false),
        ];
        for (name, other, same) in cases {
            assert_eq!(key(&account) == key(other), same, "{name}");
        }
        // Two equal polls in a row save; the same page again does not.
        let mut changes = Changes::default();
        let polls = [
            (&account, false),
            (&retyped, true),
            (&account, false),
            (&moved, false),
            (&moved, true),
            (&moved, false),
            (&account, false),
            (&account, true),
        ];
        for (i, (page, want)) in polls.into_iter().enumerate() {
            assert_eq!(changes.poll(key(page)), want, "poll {i}");
        }
        let mut changes = Changes::default();
        assert!(changes.settled(key(&account)));
        assert!(!changes.settled(key(&retyped)));
        assert!(changes.settled(key(&moved)));
    }

    #[test]
    fn blank_pages_are_not_pages() {
        assert!(!is_page(&page("about:blank", "", "- generic [ref=e1]")));
        assert!(!is_page(&page("https://x.com/", "X", "  \n")));
        assert!(is_page(&page("https://x.com/", "X", "- generic [ref=e1]")));
    }

    #[test]
    fn a_saved_page_is_a_fixture_with_its_answers_left_open() {
        let dir = tempfile::tempdir().unwrap();
        let tree = "- heading \"Cancel \\\"now\\\"\" [level=1] [ref=e1]\n- button \"Finish cancellation\" [ref=e2]";
        let snapshot = page("https://x.com/cancel?a=\"b\"", "Cancel \"now\"", tree);
        let saved = save(dir.path(), 3, &snapshot, &[]).unwrap();
        assert_eq!(saved.stem, "03-cancel-now");
        let fixture =
            subterminator_core::fixture::load(&dir.path().join("03-cancel-now.toml")).unwrap();
        assert_eq!(fixture.snapshot.url, snapshot.url);
        assert_eq!(fixture.snapshot.title, "Cancel \"now\"");
        assert_eq!(
            fixture.expect,
            subterminator_core::fixture::Expect::default()
        );
        assert_eq!(fixture.snapshot.elements.len(), 2);
        let text = std::fs::read_to_string(dir.path().join("03-cancel-now.toml")).unwrap();
        for line in [
            "# verify = \"unknown\"",
            "# auth = \"none\"",
            "# [[expect.checkpoint]]",
            "# name = \"Finish cancellation\"",
            "success | failure | unknown | already-cancelled",
        ] {
            assert!(text.contains(line), "{line:?} missing:\n{text}");
        }
        // Uncommenting the example gives a fixture that loads.
        let filled = text
            .replace("# verify", "verify")
            .replace("# [[", "[[")
            .replace("# action", "action")
            .replace("# role", "role")
            .replace("# name", "name")
            .replace("# ask", "ask");
        std::fs::write(dir.path().join("03-cancel-now.toml"), filled).unwrap();
        let fixture =
            subterminator_core::fixture::load(&dir.path().join("03-cancel-now.toml")).unwrap();
        assert_eq!(fixture.expect.checkpoint.len(), 1);
        // The same number again would overwrite: refused.
        assert!(save(dir.path(), 3, &snapshot, &[]).is_err());
    }

    /// The escape test for the expectation file: a password typed on an
    /// earlier page and carried into this page's URL or title stays out.
    #[test]
    fn a_secret_in_the_url_or_title_is_masked() {
        let dir = tempfile::tempdir().unwrap();
        let snapshot = page(
            "https://bob:pw@x.com/confirm?pw=hunter2-x",
            "Welcome hunter2-x",
            "- heading \"Hi\" [ref=e1]",
        );
        let saved = save(dir.path(), 1, &snapshot, &["hunter2-x".to_owned()]).unwrap();
        assert_eq!(saved.url, "https://masked@x.com/confirm?pw=(masked)");
        assert_eq!(saved.title, "Welcome (masked)");
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            assert!(!text.contains("hunter2"), "{text}");
            assert!(!text.contains("bob:pw"), "{text}");
        }
    }
}
