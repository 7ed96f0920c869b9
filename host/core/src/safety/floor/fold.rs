//! Text as the tables read it: Unicode-lowercased, accents folded,
//! look-alike letters from other scripts mapped to Latin, invisible
//! characters dropped, punctuation turned into word breaks, and a URL's path
//! split into words.

/// French and Italian elisions ("l'abonnement", "dell'abbonamento") break a
/// word; other apostrophes join it ("don't" is one word, "dont").
pub(super) const ELISIONS: &[&str] = &[
    "qu", "dell", "all", "nell", "dall", "sull", "quell", "jusqu", "lorsqu", "puisqu", "quelqu",
];

/// Text as words, for the tables: lowercased, accents and look-alikes
/// folded, "cancell…" spelled "cancel…" (British and American spellings are
/// one word), punctuation a word break.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut folded = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match fold(c) {
            Fold::Keep(k) => folded.push(k),
            Fold::Text(t) => folded.push_str(t),
            Fold::Apostrophe => folded.push('\''),
            Fold::Break => folded.push(' '),
            Fold::Drop => {}
        }
    }
    let mut out = Vec::new();
    for token in folded.split(' ').filter(|t| !t.is_empty()) {
        split_apostrophes(token, &mut out);
    }
    for token in &mut out {
        if let Some(rest) = token.strip_prefix("cancell") {
            *token = format!("cancel{rest}");
        }
    }
    out
}

pub(super) fn split_apostrophes(token: &str, out: &mut Vec<String>) {
    let mut current = String::new();
    let mut previous = "";
    for part in token.split('\'').filter(|p| !p.is_empty()) {
        let elides = previous.chars().count() <= 2 || ELISIONS.contains(&previous);
        if !current.is_empty() && elides {
            out.push(std::mem::take(&mut current));
        }
        current.push_str(part);
        previous = part;
    }
    if !current.is_empty() {
        out.push(current);
    }
}

/// A URL's path, query and fragment as words: percent-escapes decoded,
/// camelCase split ("confirmCancel" is "confirm cancel").
pub(super) fn url_words(url: &str) -> Vec<String> {
    let rest = match url.split_once("://") {
        Some((_, after_scheme)) => after_scheme
            .find(['/', '?', '#'])
            .map_or("", |i| &after_scheme[i..]),
        None => url,
    };
    let decoded = percent_decode(rest);
    let mut split = String::with_capacity(decoded.len());
    let mut previous_lower = false;
    for c in decoded.chars() {
        if previous_lower && c.is_uppercase() {
            split.push(' ');
        }
        previous_lower = c.is_lowercase();
        split.push(c);
    }
    words(&split)
}

/// `%C3%BC` → `ü`, `+` → space; malformed escapes are kept as written.
pub(super) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escaped = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (escaped, b) {
            (Some(decoded), _) => {
                out.push(decoded);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(super) enum Fold {
    Keep(char),
    Text(&'static str),
    Apostrophe,
    Break,
    Drop,
}

/// One lowercased character as the tables read it. A page that writes
/// "Fіnish" with a Cyrillic і, "ﬁnish" with a ligature, "𝐅𝐢𝐧𝐢𝐬𝐡" in
/// mathematical bold or "fin\u{200b}ish" with a zero-width space shows the
/// person "finish", so the floor must read "finish" too.
pub(super) fn fold(c: char) -> Fold {
    let keep = Fold::Keep;
    match c {
        '\'' | '’' | '‘' | 'ʼ' | '`' | '´' | '′' => Fold::Apostrophe,
        // Invisible: soft hyphen, zero-width and joiner characters, BOM,
        // variation selectors, combining marks (a decomposed "ü").
        '\u{00ad}'
        | '\u{034f}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2060}'..='\u{2064}'
        | '\u{feff}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{0300}'..='\u{036f}' => Fold::Drop,
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => keep('a'),
        'ç' | 'ć' | 'č' => keep('c'),
        'ď' | 'đ' => keep('d'),
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => keep('e'),
        'ğ' => keep('g'),
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => keep('i'),
        'ł' => keep('l'),
        'ñ' | 'ń' | 'ň' => keep('n'),
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => keep('o'),
        'ř' => keep('r'),
        'ś' | 'š' | 'ş' => keep('s'),
        'ť' | 'ţ' => keep('t'),
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => keep('u'),
        'ý' | 'ÿ' => keep('y'),
        'ź' | 'ż' | 'ž' => keep('z'),
        'ß' => Fold::Text("ss"),
        'æ' => Fold::Text("ae"),
        'œ' => Fold::Text("oe"),
        'ﬀ' => Fold::Text("ff"),
        'ﬁ' => Fold::Text("fi"),
        'ﬂ' => Fold::Text("fl"),
        'ﬃ' => Fold::Text("ffi"),
        'ﬄ' => Fold::Text("ffl"),
        'ﬅ' | 'ﬆ' => Fold::Text("st"),
        // Cyrillic and Greek letters that look Latin (lowercased already).
        'а' | 'α' => keep('a'),
        'в' | 'β' => keep('b'),
        'с' | 'ϲ' => keep('c'),
        'ԁ' => keep('d'),
        'е' | 'ё' | 'ε' => keep('e'),
        'һ' | 'η' => keep('h'),
        'і' | 'ї' | 'ι' => keep('i'),
        'ј' => keep('j'),
        'к' | 'κ' => keep('k'),
        'ӏ' => keep('l'),
        'м' | 'μ' => keep('m'),
        'н' => keep('h'),
        'о' | 'ο' => keep('o'),
        'р' | 'ρ' => keep('p'),
        'ԛ' => keep('q'),
        'ѕ' => keep('s'),
        'т' | 'τ' => keep('t'),
        'υ' => keep('u'),
        'у' => keep('y'),
        'ԝ' => keep('w'),
        'х' | 'χ' => keep('x'),
        'ａ'..='ｚ' | '０'..='９' => keep(char::from_u32(u32::from(c) - 0xfee0).unwrap_or(' ')),
        '\u{1d400}'..='\u{1d6a3}' => {
            // Mathematical alphanumerics: thirteen alphabets of A–Z a–z.
            let index = (u32::from(c) - 0x1d400) % 52 % 26;
            keep(char::from_u32(u32::from('a') + index).unwrap_or(' '))
        }
        '\u{1d7ce}'..='\u{1d7ff}' => {
            let digit = (u32::from(c) - 0x1d7ce) % 10;
            keep(char::from_digit(digit, 10).unwrap_or(' '))
        }
        c if c.is_alphanumeric() => keep(c),
        _ => Fold::Break,
    }
}
