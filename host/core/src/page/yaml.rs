//! Playwright's YAML scalars and keys, read the same way wherever the host
//! reads an accessibility tree: the browser layer's parser and the safety
//! layer's visible text.

/// Splits an unquoted `key: value` / `key:` / `key` at the colon that ends the
/// key, skipping colons inside the JSON-quoted name and the `[…]` attributes.
pub(crate) fn split_key(item: &str) -> (&str, Option<&str>) {
    let bytes = item.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    let mut in_attr = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' if !in_attr => in_string = !in_string,
            b'[' if !in_string => in_attr = true,
            b']' if !in_string => in_attr = false,
            b':' if !in_string && !in_attr => return (&item[..i], Some(&item[i + 1..])),
            _ => {}
        }
        i += 1;
    }
    (item, None)
}

/// `'it''s a key': value` → (`it's a key`, `: value`).
pub(crate) fn single_quoted(item: &str) -> Option<(String, &str)> {
    let body = item.strip_prefix('\'')?;
    let mut key = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if chars.peek().is_some_and(|(_, n)| *n == '\'') {
                chars.next();
                key.push('\'');
                continue;
            }
            return Some((key, &body[i + 1..]));
        }
        key.push(c);
    }
    None
}

/// A YAML scalar as Playwright writes it: plain, `"double"` or `'single'`.
pub(crate) fn scalar(raw: &str) -> String {
    let raw = raw.trim();
    let unquoted = if raw.starts_with('"') {
        json_string(raw).map(|(s, _)| s)
    } else if raw.starts_with('\'') {
        single_quoted(raw).map(|(s, _)| s)
    } else {
        None
    };
    unquoted.unwrap_or_else(|| raw.to_owned())
}

/// A double-quoted string at the start of `s` (JSON escapes plus YAML's
/// `\xNN`), and what follows it.
pub(crate) fn json_string(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    '0' => out.push('\0'),
                    'x' => out.push(hex_char(&mut chars, 2)?),
                    'u' => {
                        let high = hex_code(&mut chars, 4)?;
                        if (0xD800..0xDC00).contains(&high) {
                            // A surrogate pair: `\uD83D\uDE00`.
                            let (_, b) = chars.next()?;
                            let (_, u) = chars.next()?;
                            if b != '\\' || u != 'u' {
                                return None;
                            }
                            let low = hex_code(&mut chars, 4)?;
                            let code =
                                0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?);
                            out.push(char::from_u32(code)?);
                        } else {
                            out.push(char::from_u32(high).unwrap_or('\u{fffd}'));
                        }
                    }
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    None
}

fn hex_code(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Option<u32> {
    let mut code = 0;
    for _ in 0..digits {
        let (_, c) = chars.next()?;
        code = code * 16 + c.to_digit(16)?;
    }
    Some(code)
}

fn hex_char(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Option<char> {
    char::from_u32(hex_code(chars, digits)?)
}
