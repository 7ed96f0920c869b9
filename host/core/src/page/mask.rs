//! Secrets in a page's tree. Playwright's tree shows what a person typed
//! into a field, password fields included: a password typed while signing in
//! would otherwise reach the model and the run record (every snapshot goes
//! through [`tree`] as it is read), and a recorded fixture, which is made to
//! be committed beside a plugin's code and shared.
//!
//! Two nets, because each alone has a hole:
//! - a field's accessible name (`textbox "Password"`) catches the usual
//!   sign-in form, even when the page hid the input type;
//! - the values the page's password inputs hold, read from the DOM by the
//!   recorder, catch a field with no name or one in another language, and a
//!   page that shows the typed text elsewhere.
//!
//! A link with credentials in it (`https://user:pass@host/`) loses them too.

use crate::page::yaml::{json_string, scalar, split_key};

/// What a secret is replaced with. A plain YAML scalar, so the tree still
/// parses.
pub const MASK: &str = "(masked)";

/// The user name left in a URL whose credentials were removed.
const MASKED_USER: &str = "masked";

/// Words in a field's name that mean what is typed into it is secret,
/// matched ignoring case.
const SECRET_NAME_WORDS: &[&str] = &[
    "password",
    "passwort",
    "passwd",
    "passcode",
    "passphrase",
    "mot de passe",
    "contraseña",
    "senha",
    "wachtwoord",
    "pin",
    "one-time code",
    "verification code",
    "security code",
    "cvv",
    "cvc",
];

/// Roles a person types a value into.
const TYPED_ROLES: &[&str] = &["textbox", "searchbox", "spinbutton"];

/// Secrets shorter than this, in bytes, are masked only where they are a
/// field's value: replacing every "ab" on the page would shred the tree.
pub const SECRET_ANYWHERE_MIN_BYTES: usize = 4;

/// Whether the tree shows any typed field with a value: only then can a
/// password be in it, and only then is the page asked for its passwords.
pub fn has_typed_value(yaml: &str) -> bool {
    yaml.lines().any(|line| {
        let Some(item) = line.trim_start().strip_prefix("- ") else {
            return false;
        };
        // A value inline (`textbox "E-mail": me@x`) or as a child (`textbox:`).
        let (key, value) = split_key(item);
        value.is_some() && TYPED_ROLES.contains(&role_and_name(key).0)
    })
}

/// Whether the tree shows any field a person types into, filled or not:
/// only then can the page be asking for a password.
pub fn has_typed_field(yaml: &str) -> bool {
    yaml.lines().any(|line| {
        line.trim_start()
            .strip_prefix("- ")
            .is_some_and(|item| TYPED_ROLES.contains(&role_and_name(split_key(item).0).0))
    })
}

/// Whether a field named `name` holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_lowercase();
    SECRET_NAME_WORDS.iter().any(|w| {
        // "pin" alone, not "shipping" or "spinner".
        if *w == "pin" {
            name.split(|c: char| !c.is_alphanumeric())
                .any(|word| word == "pin")
        } else {
            name.contains(w)
        }
    })
}

/// Playwright's YAML tree with every secret replaced by [`MASK`]: the value
/// of a typed field whose name is secret or whose value is one of `secrets`,
/// each of `secrets` anywhere else, and credentials in `/url` properties.
pub fn tree(yaml: &str, secrets: &[String]) -> String {
    let secrets: Vec<&str> = secrets
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    let mut out = String::with_capacity(yaml.len());
    // The indent and secrecy of the typed field whose children we are in:
    // its value may be a `- text:` child rather than inline.
    let mut field: Option<(usize, bool)> = None;
    for line in yaml.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let indent = body.len() - body.trim_start_matches(' ').len();
        if field.is_some_and(|(at, _)| indent <= at) {
            field = None;
        }
        let masked = match body[indent..].strip_prefix("- ") {
            Some(item) => mask_item(item, indent, &mut field, &secrets)
                .map(|item| format!("{}- {item}", &body[..indent])),
            None => None,
        };
        let masked = masked.unwrap_or_else(|| body.to_owned());
        out.push_str(&anywhere(&masked, &secrets));
        out.push_str(ending);
    }
    out
}

/// `text` with each secret long enough to be told from ordinary text
/// replaced by [`MASK`], wherever it stands.
pub fn anywhere<S: AsRef<str>>(text: &str, secrets: &[S]) -> String {
    let mut masked = text.to_owned();
    for secret in secrets
        .iter()
        .map(AsRef::as_ref)
        .filter(|s| s.len() >= SECRET_ANYWHERE_MIN_BYTES)
    {
        if masked.contains(secret) {
            masked = masked.replace(secret, MASK);
        }
    }
    masked
}

/// The item (after `- `) with its secret masked, or `None` to keep it.
fn mask_item(
    item: &str,
    indent: usize,
    field: &mut Option<(usize, bool)>,
    secrets: &[&str],
) -> Option<String> {
    if let Some(prop) = item.strip_prefix("/url:") {
        let link = scalar(prop);
        let masked = url(&link);
        return (masked != link).then(|| format!("/url: {masked}"));
    }
    let (key, value) = split_key(item);
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    if key == "text" {
        // A typed field's value, when Playwright writes it as a child.
        let (_, secret) = (*field)?;
        let text = scalar(value?);
        return (secret || is_secret_value(&text, secrets)).then(|| format!("text: {MASK}"));
    }
    let (role, name) = role_and_name(key);
    if !TYPED_ROLES.contains(&role) {
        return None;
    }
    let secret =
        is_secret_name(&name) || value.is_some_and(|v| is_secret_value(&scalar(v), secrets));
    *field = Some((indent, secret));
    (secret && value.is_some()).then(|| format!("{key}: {MASK}"))
}

/// Whether a field's value is (part of) a secret. Part, because the page
/// is read a moment before the secrets are: the person may have typed on.
fn is_secret_value(value: &str, secrets: &[&str]) -> bool {
    !value.is_empty() && secrets.iter().any(|s| s.contains(value))
}

/// `textbox "Password" [ref=e5]` → (`textbox`, `Password`).
fn role_and_name(key: &str) -> (&str, String) {
    let key = key.trim();
    let end = key.find([' ', '"', '[']).unwrap_or(key.len());
    let name = json_string(key[end..].trim_start())
        .map(|(name, _)| name)
        .unwrap_or_default();
    (&key[..end], name)
}

/// `url` without the user name and password it carries, if any.
pub fn url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.username().is_empty() && parsed.password().is_none() {
        return url.to_owned();
    }
    if parsed.set_password(None).is_err() || parsed.set_username(MASKED_USER).is_err() {
        return MASK.to_owned();
    }
    parsed.to_string()
}

/// For `browser_evaluate`: the values the page's password inputs hold now,
/// in every same-origin frame, the empty ones left out.
pub const PASSWORD_VALUES_JS: &str = r#"() => {
  const values = [];
  const visit = (doc) => {
    for (const input of doc.querySelectorAll('input[type=password]')) {
      if (input.value) values.push(String(input.value));
    }
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      try { if (frame.contentDocument) visit(frame.contentDocument); } catch (e) {}
    }
  };
  visit(document);
  return values;
}"#;

/// The values [`PASSWORD_VALUES_JS`] returned, from the tool's `### Result`;
/// `None` when the answer is not the list it returns.
pub fn parse_secrets(result: Option<&str>) -> Option<Vec<String>> {
    serde_json::from_str(result?.trim()).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    /// (tree, a field a person types into, one with a value in it).
    #[test]
    fn typed_fields_and_values_table() {
        let cases = [
            ("- textbox \"Email\" [ref=e4]: me@example.com", true, true),
            ("  - textbox [ref=e7]: hunter2", true, true),
            (
                "- textbox \"Reason\" [ref=e2]:\n  - text: too dear",
                true,
                true,
            ),
            ("- textbox \"Email\" [ref=e4]", true, false),
            ("- textbox \"Hasło\" [ref=e4]", true, false),
            ("- searchbox \"Search\" [ref=e2]", true, false),
            ("- combobox \"Reason\" [ref=e2]", false, false),
            ("- text: textbox", false, false),
            ("- text: Your membership ends soon", false, false),
            ("- button \"Cancel\" [ref=e3]", false, false),
        ];
        for (yaml, field, value) in cases {
            assert_eq!(has_typed_field(yaml), field, "field: {yaml}");
            assert_eq!(has_typed_value(yaml), value, "value: {yaml}");
        }
    }

    #[test]
    fn secret_names_table() {
        let cases = [
            ("Password", true),
            ("Confirm your password", true),
            ("Mot de passe", true),
            ("Passwort", true),
            ("PIN", true),
            ("Card PIN code", true),
            ("Security code (CVV)", true),
            ("Email", false),
            ("Shipping address", false),
            ("Spinner", false),
            ("Search", false),
        ];
        for (name, want) in cases {
            assert_eq!(is_secret_name(name), want, "{name:?}");
        }
    }

    /// The escape test: a password typed while recording, in every form
    /// Playwright can show it, never reaches the saved tree.
    #[test]
    fn typed_passwords_never_reach_a_fixture() {
        let secret = "hunter2-Sw0rdfish".to_owned();
        let cases = [
            (
                "named field, inline",
                format!("- textbox \"Password\" [ref=e5]: {secret}"),
            ),
            (
                "named field, quoted",
                format!("- textbox \"Password\" [ref=e5]: \"{secret}\""),
            ),
            (
                "named field, text child",
                format!(
                    "- textbox \"Password\" [ref=e5]:\n  - /placeholder: Your password\n  - text: {secret}"
                ),
            ),
            ("unnamed field", format!("- textbox [ref=e5]: {secret}")),
            (
                "field named in another language",
                format!("- textbox \"Geheimnis\" [ref=e5]: {secret}"),
            ),
            (
                "echoed by the page",
                format!("- paragraph [ref=e9]: You typed {secret}"),
            ),
            (
                "half typed when read",
                "- textbox [ref=e5]: hunter2-Sw".to_owned(),
            ),
            (
                "nested deeper",
                format!(
                    "- generic [ref=e1]:\n  - generic [ref=e2]:\n    - textbox [ref=e3]:\n      - text: {secret}"
                ),
            ),
        ];
        for (name, tree_text) in cases {
            let masked = tree(&tree_text, std::slice::from_ref(&secret));
            assert!(!masked.contains("hunter2"), "{name}: {masked}");
            assert!(masked.contains(MASK), "{name}: {masked}");
        }
        // The name alone is enough, with no value read from the page.
        let masked = tree("- textbox \"Password\" [ref=e5]: letmein", &[]);
        assert_eq!(masked, format!("- textbox \"Password\" [ref=e5]: {MASK}"));
        let masked = tree(
            "- textbox \"Password\" [ref=e5]:\n  - text: letmein\n- button \"Sign in\" [ref=e6]",
            &[],
        );
        assert!(!masked.contains("letmein"), "{masked}");
        assert!(
            masked.ends_with("- button \"Sign in\" [ref=e6]"),
            "{masked}"
        );
    }

    #[test]
    fn everything_else_is_kept_as_it_was() {
        let tree_text = "- generic [active] [ref=e1]:\n  - textbox \"Email\" [ref=e2]: a@example.com\n  - textbox \"Password\" [ref=e3]\n  - combobox \"Change plan\" [ref=e4]:\n    - option \"Basic\" [selected]\n  - link [ref=e5] [cursor=pointer]:\n    - /url: /retention.html\n    - button \"Cancel\" [ref=e6]\n";
        assert_eq!(tree(tree_text, &["ab".to_owned()]), tree_text);
        let masked = tree(tree_text, &[]);
        assert_eq!(masked, tree_text);
        let parsed = crate::browser::tree::parse_tree(&tree(tree_text, &[]));
        assert_eq!(parsed.len(), 7);
    }

    #[test]
    fn credentials_in_links_are_removed() {
        let cases = [
            (
                "https://bob:s3cret@x.com/a?b=1",
                "https://masked@x.com/a?b=1",
            ),
            ("https://token@x.com/", "https://masked@x.com/"),
            ("https://x.com/a", "https://x.com/a"),
            ("/relative/path", "/relative/path"),
        ];
        for (link, want) in cases {
            assert_eq!(url(link), want, "{link}");
        }
        let masked = tree(
            "- link \"Go\" [ref=e1]:\n  - /url: https://bob:s3cret@x.com/",
            &[],
        );
        assert!(!masked.contains("s3cret"), "{masked}");
        assert!(masked.contains("- /url: https://masked@x.com/"), "{masked}");
    }

    #[test]
    fn secrets_anywhere_table() {
        let secrets = ["hunter2-x".to_owned(), "ab".to_owned(), String::new()];
        let cases = [
            (
                "https://x.com/c?pw=hunter2-x&a=b",
                "https://x.com/c?pw=(masked)&a=b",
            ),
            ("hunter2-x hunter2-x", "(masked) (masked)"),
            ("a tab: ab", "a tab: ab"),
            ("nothing here", "nothing here"),
        ];
        for (text, want) in cases {
            assert_eq!(anywhere(text, &secrets), want, "{text}");
        }
    }

    #[test]
    fn secrets_read_from_the_page_table() {
        let cases = [
            (
                Some("[\"a\", \"b\"]"),
                Some(vec!["a".to_owned(), "b".to_owned()]),
            ),
            (Some("\n[]\n"), Some(vec![])),
            (Some("undefined"), None),
            (None, None),
        ];
        for (result, want) in cases {
            assert_eq!(parse_secrets(result), want, "{result:?}");
        }
    }
}
