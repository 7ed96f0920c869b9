//! Entity references in OFX and CAMT text, resolved by quick-xml's own
//! rules (the five XML entities, character references), plus `&nbsp;`,
//! which banks' OFX files use though XML has no such entity.

use std::borrow::Cow;

use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::BytesRef;

/// The text of an entity reference's name (`amp`, `#38`, `#x26`). Unknown
/// names, and character references quick-xml refuses (`#0`), are kept as
/// written, `&name;`: a bank's odd entity is still part of the descriptor,
/// and dropping it could merge two merchants.
pub(crate) fn resolve_entity(name: &str) -> Cow<'static, str> {
    if let Ok(Some(c)) = BytesRef::new(name).resolve_char_ref() {
        return Cow::Owned(c.to_string());
    }
    match (resolve_xml_entity(name), name) {
        (Some(text), _) => Cow::Borrowed(text),
        (None, "nbsp") => Cow::Borrowed(" "),
        (None, _) => Cow::Owned(format!("&{name};")),
    }
}

/// Replaces entity references in SGML text (`AT&amp;T`). A bare `&` that
/// starts no reference stays, as OFX 1.x files often write one unescaped.
pub(crate) fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .unwrap_or(after.len());
        if name_end > 0 && after[name_end..].starts_with(';') {
            out.push_str(&resolve_entity(&after[..name_end]));
            rest = &after[name_end + 1..];
        } else {
            out.push('&');
            rest = after;
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_resolve() {
        let cases = [
            ("AT&amp;T", "AT&T"),
            ("AT&T", "AT&T"),
            ("A &lt;B&gt; &#38; &#x26; &quot;x&quot;", "A <B> & & \"x\""),
            ("odd &foo; &", "odd &foo; &"),
            (
                "nul &#0; kept, space&nbsp;made",
                "nul &#0; kept, space made",
            ),
            ("plain", "plain"),
        ];
        for (text, want) in cases {
            assert_eq!(unescape(text), want, "{text}");
        }
    }
}
