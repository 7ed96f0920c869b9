//! The letters' words in English and German. Templates name what goes in
//! them as `{service}`, `{date}`, `{time}`, `{account}`, `{obstacle}`;
//! `html.rs` fills them with escaped values, so no page-supplied text can
//! become markup.

use chrono::{DateTime, Datelike, Utc};

use super::{Jurisdiction, Language};
use crate::audit::Kind;

/// One language's words.
pub struct Words {
    pub salutation: &'static str,
    pub closing: &'static str,
    pub name_blank: &'static str,
    pub address_blank: &'static str,
    pub account_blank: &'static str,
    pub bank: &'static str,
    pub merchant_dept: &'static str,
    pub subject_bank_cancelled: &'static str,
    pub subject_bank_no_way: &'static str,
    pub subject_merchant_cancelled: &'static str,
    pub subject_merchant_no_way: &'static str,
    pub subject_regulator: &'static str,
    pub no_way_phone: &'static str,
    pub no_way_sign_in: &'static str,
    pub open_bank_cancelled: &'static str,
    pub open_bank_no_way: &'static str,
    pub open_merchant_cancelled: &'static str,
    pub open_merchant_no_way: &'static str,
    pub open_regulator_cancelled: &'static str,
    pub open_regulator_no_way: &'static str,
    pub ask_bank_cancelled: &'static str,
    pub ask_bank_no_way: &'static str,
    pub ask_merchant_cancelled: &'static str,
    pub ask_merchant_no_way: &'static str,
    pub ask_regulator: &'static str,
    pub facts: &'static str,
    pub service: &'static str,
    pub account_page: &'static str,
    pub approved_at: &'static str,
    pub confirmed_at: &'static str,
    pub confirmation_page: &'static str,
    pub confirmation_words: &'static str,
    pub attempted_at: &'static str,
    pub stopped_on: &'static str,
    pub site_said: &'static str,
    pub charges: &'static str,
    pub charges_blank: &'static str,
    pub findings: &'static str,
    pub no_findings: &'static str,
    pub found_on: &'static str,
    pub record: &'static str,
    pub run: &'static str,
    pub head: &'static str,
    pub lines: &'static str,
    pub signed_by: &'static str,
    pub signed_at: &'static str,
    pub signature: &'static str,
    pub receipt_files: &'static str,
    pub check_signed: &'static str,
    pub check_unsigned: &'static str,
    pub check_no_receipt: &'static str,
    pub on_request: &'static str,
    pub pictures: &'static str,
    pub shot_confirmation: &'static str,
    pub shot_approval: &'static str,
    pub shot_stopped: &'static str,
    pub shot_missing: &'static str,
    pub enclosed: &'static str,
    pub not_advice: &'static str,
    pub months: [&'static str; 12],
}

pub fn of(language: Language) -> &'static Words {
    match language {
        Language::En => &EN,
        Language::De => &DE,
    }
}

/// A day as the language writes it in a letter: `29 November 2026`,
/// `29. November 2026`.
pub fn day(language: Language, at: &DateTime<Utc>) -> String {
    let month = of(language).months[at.month0() as usize];
    match language {
        Language::En => format!("{} {month} {}", at.day(), at.year()),
        Language::De => format!("{}. {month} {}", at.day(), at.year()),
    }
}

/// A moment to the minute, in UTC, which the record keeps.
pub fn moment(language: Language, at: &DateTime<Utc>) -> String {
    match language {
        Language::En => format!("{}, {} UTC", day(language, at), at.format("%H:%M:%S")),
        Language::De => format!("{}, {} Uhr UTC", day(language, at), at.format("%H:%M:%S")),
    }
}

/// Who a regulator's letter is addressed to.
pub fn regulator(jurisdiction: Jurisdiction, language: Language) -> &'static str {
    match (jurisdiction, language) {
        (Jurisdiction::Us, Language::En) => "Federal Trade Commission\nReportFraud.ftc.gov",
        (Jurisdiction::Us, Language::De) => "Federal Trade Commission (USA)\nReportFraud.ftc.gov",
        (Jurisdiction::UsCa, Language::En) => {
            "Office of the Attorney General, California Department of Justice\nPublic Inquiry Unit: oag.ca.gov/contact/consumer-complaint-against-business-or-company"
        }
        (Jurisdiction::UsCa, Language::De) => {
            "Office of the Attorney General, California Department of Justice (USA)\nPublic Inquiry Unit: oag.ca.gov/contact/consumer-complaint-against-business-or-company"
        }
        (Jurisdiction::Eu, Language::En) => {
            "[The consumer protection authority of your country]\nFor a trader in another EU country: your country's European Consumer Centre (ECC-Net)"
        }
        (Jurisdiction::Eu, Language::De) => {
            "[Verbraucherschutzbehörde Ihres Landes]\nBei einem Anbieter in einem anderen EU-Land: das Europäische Verbraucherzentrum (ECC-Net)"
        }
        (Jurisdiction::Uk, Language::En) => {
            "Citizens Advice consumer service\n(it passes reports to Trading Standards and the Competition and Markets Authority)"
        }
        (Jurisdiction::Uk, Language::De) => {
            "Citizens Advice consumer service (Vereinigtes Königreich)\n(leitet Meldungen an Trading Standards und die Competition and Markets Authority weiter)"
        }
        (Jurisdiction::De, Language::En) => {
            "Verbraucherzentrale [of your federal state]\nComplaints"
        }
        (Jurisdiction::De, Language::De) => "Verbraucherzentrale [Ihres Bundeslandes]\nBeschwerde",
    }
}

/// A finding's kind as the letter names it.
pub fn kind_title(kind: Kind, language: Language) -> &'static str {
    match language {
        Language::En => kind.title(),
        Language::De => match kind {
            Kind::SaveOffer => "Halteangebot auf dem Weg zur Kündigung",
            Kind::Confirmshaming => "Beschämende Formulierung (Confirmshaming)",
            Kind::Preselected => "Vorausgewählte Option",
            Kind::HardToSee => "Schwer erkennbares Bedienelement",
            Kind::CompulsorySurvey => "Pflichtfrage vor der Kündigung",
            Kind::PhoneOrChatOnly => "Kündigung nur per Telefon oder Chat",
        },
    }
}

/// What the finding observed, in German (the audit's own sentence is
/// English); `{e}` is the element or the words, `{d}` the detail.
pub fn kind_sentence_de(kind: Kind) -> &'static str {
    match kind {
        Kind::SaveOffer => {
            "{e} bot an, das Abonnement zu anderen Bedingungen zu behalten; der Vorgang ging daran vorbei."
        }
        Kind::Confirmshaming => "Der Weg weiter war beschämend formuliert: {e}.",
        Kind::Preselected => "{e} war beim Öffnen der Seite bereits ausgewählt.",
        Kind::HardToSee => "{e} war schwer zu erkennen ({d}).",
        Kind::CompulsorySurvey => "Der Ablauf ging erst weiter, nachdem {e} beantwortet war ({d}).",
        Kind::PhoneOrChatOnly => {
            "Es gab keinen Weg, online zu kündigen; der Dienst verwies auf Telefon oder Chat (Wortlaut seines Plugins: „{e}“)."
        }
    }
}

static EN: Words = Words {
    salutation: "Dear Sir or Madam,",
    closing: "Yours faithfully,",
    name_blank: "[Your name]",
    address_blank: "[Your address]",
    account_blank: "[Your customer or account number with the service, or the e-mail address of the account]",
    bank: "[Your bank or card issuer]\nCard and payment disputes",
    merchant_dept: "Customer service",
    subject_bank_cancelled: "Dispute of charges by {service} after my cancellation on {date}",
    subject_bank_no_way: "{service}: recurring payments I could not stop online",
    subject_merchant_cancelled: "My cancellation on {date}: no further charges, and a refund",
    subject_merchant_no_way: "Cancellation of my subscription",
    subject_regulator: "Complaint about how {service} handles cancellation",
    no_way_phone: "it offered no way to cancel online and sent me to a phone line or a chat instead (the page is pictured below)",
    no_way_sign_in: "it required a sign-in I could not complete, and offered no other way to cancel online",
    open_bank_cancelled: "I dispute the charges by {service} listed below. I cancelled this subscription on {date}, and the service confirmed the cancellation on its own website on {time}. I did not authorise any charge dated after that.",
    open_bank_no_way: "{service} charges me for a subscription that I tried to cancel on its website on {date}; {obstacle}. I am cancelling in writing with the merchant as well.",
    open_merchant_cancelled: "On {date} I cancelled my {service} subscription on your website, and your page confirmed the cancellation on {time} with the words quoted below.",
    open_merchant_no_way: "I hereby cancel my {service} subscription with effect from the earliest possible date. I tried to cancel on your website on {date}; {obstacle}.",
    open_regulator_cancelled: "I report how {service} ({account}) let me cancel my subscription on {date}. I cancelled with a tool that recorded every page on the way; what it observed standing in the way is listed below, each with the rule that speaks to it.",
    open_regulator_no_way: "I report {service} ({account}). On {date} I tried to cancel my subscription on its website; {obstacle}. A tool recorded every page of the attempt; what it observed is listed below, each with the rule that speaks to it.",
    ask_bank_cancelled: "Please reverse the charges listed below. For a card payment this is a cancelled recurring transaction (Visa reason code 13.2; Mastercard reason code 4841). Please also stop any further payments to {service}.",
    ask_bank_no_way: "Please stop further recurring payments to {service} from my account or card, and tell me what you need from me to do so. I know that blocking payments does not end the contract; I am cancelling with the merchant too, and I enclose what its website showed.",
    ask_merchant_cancelled: "Please make no further charges, and refund every charge dated after the cancellation (listed below) to the payment method it was taken from. Please confirm both in writing.",
    ask_merchant_no_way: "Please confirm the cancellation and the date the contract ends in writing, and make no charge after that date.",
    ask_regulator: "I ask you to look into how {service} lets its customers cancel. I can provide the signed record of what happened.",
    facts: "The facts, as the record shows them",
    service: "Service",
    account_page: "Account page",
    approved_at: "Cancellation approved by me",
    confirmed_at: "Cancellation confirmed by the service",
    confirmation_page: "Confirmation page",
    confirmation_words: "The confirmation's words",
    attempted_at: "Attempt to cancel",
    stopped_on: "Where the attempt stopped",
    site_said: "Why the attempt stopped, as the service's plugin recorded it (the page itself is pictured below)",
    charges: "Charges disputed",
    charges_blank: "[The date and amount of each charge. `subterminator scan <statement> --since-cancel` lists the charges of a cancelled service dated after its cancellation.]",
    findings: "What stood in the way, and the rules that speak to it",
    no_findings: "The record shows nothing in the way of the cancellation.",
    found_on: "on the page",
    record: "The record",
    run: "Run",
    head: "Hash of the record's last line (SHA-256)",
    lines: "lines",
    signed_by: "Signed by",
    signed_at: "Signed at",
    signature: "Signature (ed25519)",
    receipt_files: "Receipt files (SHA-256)",
    check_signed: "Every fact above comes from a record written while it happened, and signed on my computer with the key {key}. The enclosed receipt carries that record and its signature; anyone can check both with the free tool subterminator: subterminator runs verify receipt.pdf --key {key}",
    check_unsigned: "Every fact above comes from a record written while it happened. The record is hash-chained, but it was not signed.",
    check_no_receipt: "Every fact above comes from a record written while it happened, and signed on my computer with the key {key}. I can send that record (run {run}) on request; anyone can check it with the free tool subterminator: subterminator runs verify {run} --key {key}",
    on_request: "Available on request: the signed record of the attempt (run {run}).",
    pictures: "What the pages showed",
    shot_confirmation: "The service's confirmation page",
    shot_approval: "The page when I approved the step that cancels",
    shot_stopped: "The page the attempt stopped on",
    shot_missing: "(the picture is missing from the run's folder)",
    enclosed: "Enclosed: the receipt (receipt.pdf), which carries the signed record.",
    not_advice: "This letter was drafted by subterminator from the record of the run. It states facts the record shows; the rules it names speak to what was observed. It is not legal advice, nor a finding that any law was broken.",
    months: [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
};

static DE: Words = Words {
    salutation: "Sehr geehrte Damen und Herren,",
    closing: "Mit freundlichen Grüßen",
    name_blank: "[Ihr Name]",
    address_blank: "[Ihre Anschrift]",
    account_blank: "[Ihre Kunden- oder Vertragsnummer beim Anbieter, oder die E-Mail-Adresse des Kontos]",
    bank: "[Ihre Bank oder Ihr Kartenherausgeber]\nReklamationen im Zahlungsverkehr",
    merchant_dept: "Kundenservice",
    subject_bank_cancelled: "Reklamation von Belastungen durch {service} nach meiner Kündigung vom {date}",
    subject_bank_no_way: "{service}: wiederkehrende Zahlungen, die ich online nicht beenden konnte",
    subject_merchant_cancelled: "Meine Kündigung vom {date}: keine weiteren Abbuchungen, Erstattung",
    subject_merchant_no_way: "Kündigung meines Abonnements",
    subject_regulator: "Beschwerde über den Kündigungsweg von {service}",
    no_way_phone: "die Website bot keinen Weg, online zu kündigen, sondern verwies auf Telefon oder Chat (die Seite ist unten abgebildet)",
    no_way_sign_in: "die Website verlangte eine Anmeldung, die ich nicht abschließen konnte, und bot keinen anderen Weg, online zu kündigen",
    open_bank_cancelled: "ich reklamiere die unten aufgeführten Belastungen durch {service}. Ich habe dieses Abonnement am {date} gekündigt; der Anbieter hat die Kündigung am {time} auf seiner eigenen Website bestätigt. Belastungen nach diesem Zeitpunkt habe ich nicht autorisiert.",
    open_bank_no_way: "{service} belastet mich für ein Abonnement, das ich am {date} auf der Website des Anbieters kündigen wollte; {obstacle}. Ich kündige zusätzlich schriftlich beim Anbieter.",
    open_merchant_cancelled: "am {date} habe ich mein Abonnement bei {service} auf Ihrer Website gekündigt; Ihre Seite hat die Kündigung am {time} mit dem unten zitierten Wortlaut bestätigt.",
    open_merchant_no_way: "hiermit kündige ich mein Abonnement bei {service} zum nächstmöglichen Zeitpunkt. Am {date} wollte ich auf Ihrer Website kündigen; {obstacle}.",
    open_regulator_cancelled: "ich möchte mich darüber beschweren, wie {service} ({account}) mich am {date} mein Abonnement kündigen ließ. Ich habe mit einem Programm gekündigt, das jede Seite des Weges aufgezeichnet hat; was ihm dabei im Weg stand, ist unten aufgeführt, jeweils mit der Regel, die dazu etwas sagt.",
    open_regulator_no_way: "ich möchte mich über {service} ({account}) beschweren. Am {date} wollte ich mein Abonnement auf der Website kündigen; {obstacle}. Ein Programm hat jede Seite des Versuchs aufgezeichnet; was es beobachtet hat, ist unten aufgeführt, jeweils mit der Regel, die dazu etwas sagt.",
    ask_bank_cancelled: "Bitte erstatten Sie die unten aufgeführten Belastungen. Bei einer Kartenzahlung handelt es sich um eine gekündigte wiederkehrende Zahlung (Visa Reason Code 13.2; Mastercard Reason Code 4841). Bei einer SEPA-Lastschrift kann ich die Erstattung innerhalb von acht Wochen nach der Belastung ohne Angabe von Gründen verlangen (§ 675x Abs. 2 und 4 BGB). Bitte lassen Sie außerdem keine weiteren Zahlungen an {service} mehr zu.",
    ask_bank_no_way: "Bitte lassen Sie keine weiteren wiederkehrenden Zahlungen an {service} von meinem Konto oder meiner Karte mehr zu, und teilen Sie mir mit, was Sie dafür von mir benötigen. Mir ist bewusst, dass eine Zahlungssperre den Vertrag nicht beendet; ich kündige zusätzlich beim Anbieter und lege bei, was dessen Website zeigte.",
    ask_merchant_cancelled: "Bitte buchen Sie nichts mehr ab und erstatten Sie jede nach der Kündigung erfolgte Belastung (unten aufgeführt) auf das Zahlungsmittel, von dem sie abgebucht wurde. Bitte bestätigen Sie mir beides in Textform.",
    ask_merchant_no_way: "Bitte bestätigen Sie mir den Eingang der Kündigung und das Vertragsende in Textform, und buchen Sie danach nichts mehr ab.",
    ask_regulator: "Ich bitte Sie, den Kündigungsweg von {service} zu prüfen. Die signierte Aufzeichnung des Vorgangs stelle ich gern zur Verfügung.",
    facts: "Die Fakten, wie die Aufzeichnung sie zeigt",
    service: "Dienst",
    account_page: "Kontoseite",
    approved_at: "Kündigung von mir freigegeben",
    confirmed_at: "Kündigung vom Anbieter bestätigt",
    confirmation_page: "Bestätigungsseite",
    confirmation_words: "Wortlaut der Bestätigung",
    attempted_at: "Kündigungsversuch",
    stopped_on: "Seite, auf der der Versuch endete",
    site_said: "Grund des Abbruchs, wie das Plugin des Dienstes ihn festhielt (die Seite selbst ist unten abgebildet)",
    charges: "Reklamierte Belastungen",
    charges_blank: "[Datum und Betrag jeder Belastung. `subterminator scan <Kontoauszug> --since-cancel` listet die Belastungen eines gekündigten Dienstes nach dessen Kündigung.]",
    findings: "Was im Weg stand, und die Regeln, die dazu etwas sagen",
    no_findings: "Die Aufzeichnung zeigt nichts, was der Kündigung im Weg stand.",
    found_on: "auf der Seite",
    record: "Die Aufzeichnung",
    run: "Vorgang",
    head: "Hash der letzten Zeile der Aufzeichnung (SHA-256)",
    lines: "Zeilen",
    signed_by: "Signiert von",
    signed_at: "Signiert am",
    signature: "Signatur (ed25519)",
    receipt_files: "Belegdateien (SHA-256)",
    check_signed: "Alle Angaben oben stammen aus einer Aufzeichnung, die während des Vorgangs geschrieben und auf meinem Computer mit dem Schlüssel {key} signiert wurde. Der beigefügte Beleg enthält diese Aufzeichnung und ihre Signatur; beides lässt sich mit dem freien Programm subterminator prüfen: subterminator runs verify receipt.pdf --key {key}",
    check_unsigned: "Alle Angaben oben stammen aus einer Aufzeichnung, die während des Vorgangs geschrieben wurde. Sie ist per Hash-Kette gesichert, aber nicht signiert.",
    check_no_receipt: "Alle Angaben oben stammen aus einer Aufzeichnung, die während des Vorgangs geschrieben und auf meinem Computer mit dem Schlüssel {key} signiert wurde. Diese Aufzeichnung (Vorgang {run}) sende ich auf Anfrage gern zu; sie lässt sich mit dem freien Programm subterminator prüfen: subterminator runs verify {run} --key {key}",
    on_request: "Auf Anfrage erhältlich: die signierte Aufzeichnung des Versuchs (Vorgang {run}).",
    pictures: "Was die Seiten zeigten",
    shot_confirmation: "Die Bestätigungsseite des Anbieters",
    shot_approval: "Die Seite, als ich den kündigenden Schritt freigab",
    shot_stopped: "Die Seite, auf der der Versuch endete",
    shot_missing: "(das Bild fehlt im Ordner des Vorgangs)",
    enclosed: "Anlage: der Beleg (receipt.pdf) mit der signierten Aufzeichnung.",
    not_advice: "Dieser Brief wurde von subterminator aus der Aufzeichnung des Vorgangs erstellt. Er gibt Fakten wieder, die die Aufzeichnung zeigt; die genannten Regeln beziehen sich auf das Beobachtete. Er ist keine Rechtsberatung und keine Feststellung, dass gegen ein Gesetz verstoßen wurde.",
    months: [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
};
