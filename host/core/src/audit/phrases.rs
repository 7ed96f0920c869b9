//! The audit's phrase tables, in the floor's phrase syntax (`cancel*` a
//! word's start, `~` up to three words, `#` a number) and read on the
//! floor's folded words, so "I don’t" and "I don't", "économies" and
//! "economies" are one. Latin-script languages only: the folding splits
//! words at spaces, and Chinese, Japanese or Korean text has none.

use std::sync::LazyLock;

use crate::safety::floor::{Pattern, words};

/// The way on, worded to shame whoever takes it: "No, I don't want to save
/// money", "I'd rather pay full price". Read on the names of controls only,
/// never on page text (a page may well say "save money" to sell).
const SHAMING: &[&str] = &[
    // English.
    "don't want ~ sav*",
    "do not want ~ sav*",
    "don't like ~ sav*",
    "don't care about ~ sav*",
    "don't care about ~ money",
    "rather pay ~ full price",
    "rather pay more",
    "prefer ~ pay* ~ full price",
    "prefer paying more",
    "like paying more",
    "pay* full price",
    "wast* ~ money",
    "don't like ~ deal*",
    // German.
    "kein geld sparen",
    "nicht sparen",
    "lieber ~ vollen preis",
    "zahle ~ gerne mehr",
    // French.
    "veux pas ~ econom*",
    "payer ~ plein tarif",
    "payer ~ prix fort",
    // Spanish.
    "no quiero ahorrar",
    "pagar ~ precio completo",
    // Italian.
    "non voglio risparmiare",
    "pagare ~ prezzo pieno",
    // Portuguese.
    "nao quero economizar",
    "nao quero poupar",
    "pagar ~ preco cheio",
    // Dutch.
    "geen geld besparen",
    "wil niet besparen",
    "betaal ~ volle prijs",
    "betalen ~ volle prijs",
    // Swedish, Polish, Turkish.
    "vill inte spara",
    "nie chce oszczedzac",
    "biriktirmek istemiyorum",
    "tasarruf etmek istemiyorum",
];

/// A control that takes a save offer, besides the floor's billing-change
/// words ("accept offer", "claim discount", "pause"): "Yes, keep my
/// discount", in the words of several languages.
const TAKES_OFFER: &[&str] = &[
    "keep ~ discount*",
    "keep ~ offer",
    "keep ~ deal",
    "take ~ offer",
    "take ~ discount*",
    "take ~ deal",
    "get ~ discount*",
    "rabatt ~ behalten",
    "behalte* ~ rabatt",
    "angebot ~ nehmen",
    "garde* ~ reduction",
    "garde* ~ remise",
    "profiter ~ offre",
    "quiero ~ descuento",
    "mantener ~ descuento",
    "tengo ~ sconto",
    "mantieni ~ sconto",
    "quero ~ desconto",
    "manter ~ desconto",
    "houd ~ korting",
    "behoud ~ korting",
    "behall* ~ rabatt",
    "zachowuje ~ znizke",
    "indirim* ~ koru",
];

/// A radio or checkbox that keeps the person paying when it is left as it
/// is: besides the floor's billing-change words (pause, switch, offer).
const KEEPING: &[&str] = &[
    "keep*",
    "stay*",
    "offer*",
    "discount*",
    "behalten",
    "bleiben",
    "garder",
    "conserver",
    "rester",
    "mantener",
    "mantenere",
    "manter",
    "behouden",
    "blijven",
];

/// A question the page will not go on without, as pages say it.
const REQUIRED: &[&str] = &[
    "required",
    "mandatory",
    "please answer",
    "answer ~ to continue",
    "answer ~ before ~ continu*",
    "must answer",
    "select ~ reason ~ to continue",
    "choose ~ reason ~ to continue",
    "pflichtfeld*",
    "erforderlich",
    "obligatoire",
    "requis",
    "obligatorio",
    "obbligatori*",
    "verplicht",
    "obrigatori*",
    "wymagan*",
    "obligatorisk",
    "zorunlu",
];

/// A reason for "cannot be cancelled here" that sends the person to a phone
/// or a chat. "Billed through your phone carrier" is not one: the way out
/// is another company's, not a call.
const PHONE_OR_CHAT: &[&str] = &[
    "chat ~ or ~ phone",
    "phone ~ or ~ chat",
    "chat ~ or ~ call",
    "by phone",
    "by chat",
    "by telephone",
    "phone only",
    "chat only",
    "call us",
    "call #",
    "can't be cancel* online",
    "cannot be cancel* online",
    "not ~ cancel* online",
    "telefonisch",
    "par telephone",
    "por telefono",
    "per telefono",
    "pelo telefone",
    "telefonicamente",
];

struct Tables {
    shaming: Vec<Pattern>,
    takes_offer: Vec<Pattern>,
    keeping: Vec<Pattern>,
    required: Vec<Pattern>,
    phone_or_chat: Vec<Pattern>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let compile =
        |table: &'static [&'static str]| table.iter().map(|p| Pattern::new(p)).collect::<Vec<_>>();
    Tables {
        shaming: compile(SHAMING),
        takes_offer: compile(TAKES_OFFER),
        keeping: compile(KEEPING),
        required: compile(REQUIRED),
        phone_or_chat: compile(PHONE_OR_CHAT),
    }
});

/// The first phrase of `table` found in `text`, as the table writes it.
fn first(table: &[Pattern], text: &str) -> Option<&'static str> {
    let tokens = words(text);
    table
        .iter()
        .find(|p| p.find(&tokens, 0).is_some())
        .map(|p| p.phrase)
}

pub(super) fn shaming(text: &str) -> Option<&'static str> {
    first(&TABLES.shaming, text)
}

pub(super) fn takes_offer(text: &str) -> Option<&'static str> {
    first(&TABLES.takes_offer, text)
}

pub(super) fn keeping(text: &str) -> Option<&'static str> {
    first(&TABLES.keeping, text)
}

pub(super) fn required(text: &str) -> Option<&'static str> {
    first(&TABLES.required, text)
}

pub(super) fn phone_or_chat(text: &str) -> Option<&'static str> {
    first(&TABLES.phone_or_chat, text)
}
