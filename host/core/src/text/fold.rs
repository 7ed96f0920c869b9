//! Text as the tables read it: Unicode-lowercased, accents folded,
//! invisible characters dropped, punctuation turned into word breaks, and a
//! URL's path split into words. Scripts are read as their writers write
//! them: Cyrillic and Greek letters that look Latin are read as Latin only
//! inside a word that has Latin letters too (a disguised "Fіnish"), never in
//! a Russian word; Chinese and Japanese, written without spaces, are read a
//! character a word (the tables' phrases are split the same way, so "解約する"
//! matches those four characters in a row and not "解約しない"); Arabic and
//! Hebrew lose their vowel marks and Arabic its letter variants.

/// French and Italian elisions ("l'abonnement", "dell'abbonamento") break a
/// word; other apostrophes join it ("don't" is one word, "dont").
pub const ELISIONS: &[&str] = &[
    "qu", "dell", "all", "nell", "dall", "sull", "quell", "jusqu", "lorsqu", "puisqu", "quelqu",
];

/// Text as words, for the safety floor's tables and for plan targets: lowercased, accents and look-alikes
/// folded, "cancell…" spelled "cancel…" (British and American spellings are
/// one word), punctuation a word break.
pub fn words(text: &str) -> Vec<String> {
    let mut folded = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match fold(c) {
            Fold::Keep(k) => folded.push(k),
            Fold::Text(t) => folded.push_str(t),
            Fold::Apostrophe => folded.push('\''),
            Fold::Break => folded.push(' '),
            Fold::Alone(k) => {
                folded.push(' ');
                folded.push(k);
                folded.push(' ');
            }
            Fold::Drop => {}
        }
    }
    let mut out = Vec::new();
    for token in folded.split(' ').filter(|t| !t.is_empty()) {
        split_apostrophes(&latin_if_disguised(token), &mut out);
    }
    for token in &mut out {
        if let Some(rest) = token.strip_prefix("cancell") {
            *token = format!("cancel{rest}");
        }
    }
    out
}

/// A word with Latin letters in it has its Cyrillic and Greek look-alikes
/// read as Latin ("Fіnish" with a Cyrillic і is "finish"); a word with none
/// (Russian, Greek) is left in its own script.
fn latin_if_disguised(token: &str) -> std::borrow::Cow<'_, str> {
    if !token.chars().any(|c| c.is_ascii_lowercase()) {
        return std::borrow::Cow::Borrowed(token);
    }
    std::borrow::Cow::Owned(token.chars().map(|c| look_alike(c).unwrap_or(c)).collect())
}

/// The Latin letter a Cyrillic or Greek letter (lowercased) is made to
/// look like.
fn look_alike(c: char) -> Option<char> {
    Some(match c {
        'а' | 'α' => 'a',
        'в' | 'β' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' | 'ε' => 'e',
        'һ' | 'η' => 'h',
        'і' | 'ї' | 'ι' => 'i',
        'ј' => 'j',
        'к' | 'κ' => 'k',
        'ӏ' => 'l',
        'м' | 'μ' => 'm',
        'н' => 'h',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' => 'u',
        'у' => 'y',
        'ԝ' => 'w',
        'х' | 'χ' => 'x',
        _ => return None,
    })
}

/// Whether `c` belongs to a script written without spaces between words
/// (Chinese characters, Japanese kana): each is read as a word of its own.
fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{ff66}'..='\u{ff9f}'
        | '\u{31f0}'..='\u{31ff}')
}

fn split_apostrophes(token: &str, out: &mut Vec<String>) {
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
pub fn url_words(url: &str) -> Vec<String> {
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
fn percent_decode(s: &str) -> String {
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

enum Fold {
    Keep(char),
    /// A character read as a word of its own (Chinese, Japanese).
    Alone(char),
    Text(&'static str),
    Apostrophe,
    Break,
    Drop,
}

/// One lowercased character as the tables read it. A page that writes
/// "Fіnish" with a Cyrillic і, "ﬁnish" with a ligature, "𝐅𝐢𝐧𝐢𝐬𝐡" in
/// mathematical bold or "fin\u{200b}ish" with a zero-width space shows the
/// person "finish", so the floor must read "finish" too.
fn fold(c: char) -> Fold {
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
        // Arabic: vowel marks and the elongation stroke are not letters;
        // the alef's and the ya's variants are one letter each.
        '\u{064b}'..='\u{065f}' | '\u{0670}' | '\u{0640}' => Fold::Drop,
        'أ' | 'إ' | 'آ' | 'ٱ' => keep('ا'),
        'ى' => keep('ي'),
        // Hebrew: the vowel points and cantillation marks.
        '\u{0591}'..='\u{05bd}' | '\u{05bf}'..='\u{05c7}' => Fold::Drop,
        c if unspaced(c) => Fold::Alone(c),
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
