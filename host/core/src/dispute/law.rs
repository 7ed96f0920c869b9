//! Which rules a regulator's letter names for each kind of obstacle, by
//! jurisdiction, in the letter's language. The United States' and the
//! UK's are the audit's own (`audit::Rule`); the EU's and Germany's are
//! the unfair-commercial-practices provisions that name barriers to
//! terminating a contract, and Germany's statutory cancellation button.
//! As everywhere the audit speaks: rules that speak to what was observed,
//! not a finding that one was broken.

use super::{Jurisdiction, Language};
use crate::audit::{Kind, Rule};

/// A rule as the letter cites it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    pub name: &'static str,
    pub says: &'static str,
}

/// The rules of `jurisdiction` that speak to `kind`, the closest first.
pub fn citations(kind: Kind, jurisdiction: Jurisdiction, language: Language) -> Vec<Citation> {
    let ours: Vec<Rule> = match jurisdiction {
        Jurisdiction::Us => kind
            .rules()
            .iter()
            .copied()
            .filter(|r| matches!(r, Rule::Rosca | Rule::FtcAmazon2025))
            .chain([Rule::Rosca])
            .collect(),
        Jurisdiction::UsCa => kind
            .rules()
            .iter()
            .copied()
            .filter(|r| *r != Rule::UkDmcc)
            .chain([Rule::CaliforniaArl])
            .collect(),
        Jurisdiction::Uk => vec![Rule::UkDmcc],
        Jurisdiction::Eu | Jurisdiction::De => Vec::new(),
    };
    let mut cited: Vec<Citation> = Vec::new();
    for rule in ours {
        let c = audit_rule(rule, language);
        if !cited.contains(&c) {
            cited.push(c);
        }
    }
    if jurisdiction == Jurisdiction::De {
        if kind == Kind::PhoneOrChatOnly {
            cited.push(bgb_312k(language));
        }
        cited.push(uwg_4a(language));
    }
    if matches!(jurisdiction, Jurisdiction::Eu | Jurisdiction::De) {
        cited.push(ucpd_9d(language));
        if matches!(
            kind,
            Kind::Confirmshaming | Kind::Preselected | Kind::HardToSee
        ) {
            cited.push(dsa_25(language));
        }
    }
    cited
}

/// The audit's rules, in English as the audit writes them and in German.
fn audit_rule(rule: Rule, language: Language) -> Citation {
    match language {
        Language::En => Citation {
            name: rule.name(),
            says: rule.says(),
        },
        Language::De => match rule {
            Rule::Rosca => Citation {
                name: "FTC: Restore Online Shoppers' Confidence Act (ROSCA)",
                says: "Für wiederkehrende Zahlungen muss es einen einfachen Weg geben, sie zu beenden.",
            },
            Rule::FtcAmazon2025 => Citation {
                name: "FTC v. Amazon (Prime), Vergleich 2025",
                says: "Gegenstand des Verfahrens war ein Kündigungsweg, der über Angebote und zusätzliche Seiten führte, bevor er zum Ausgang kam.",
            },
            Rule::CaliforniaArl => Citation {
                name: "California Automatic Renewal Law, in der Fassung ab 1. Juli 2025",
                says: "Ein online abgeschlossenes Abonnement muss online über einen gut sichtbaren Link oder Button kündbar sein; ein Halteangebot darf nur zusammen mit der Möglichkeit gezeigt werden, sofort zu kündigen.",
            },
            Rule::UkDmcc => Citation {
                name: "UK Digital Markets, Competition and Consumers Act 2024",
                says: "Der Ausstieg aus einem Abonnement muss unkompliziert sein, ohne unnötige Schritte.",
            },
        },
    }
}

fn bgb_312k(language: Language) -> Citation {
    match language {
        Language::En => Citation {
            name: "German Civil Code (BGB) § 312k",
            says: "A continuing contract that can be concluded on a website must be cancellable there, through a button labelled \"Verträge hier kündigen\" (\"cancel contracts here\") or with words as clear.",
        },
        Language::De => Citation {
            name: "§ 312k BGB (Kündigungsbutton)",
            says: "Wer den Abschluss von Dauerschuldverhältnissen über eine Webseite ermöglicht, muss dort eine Kündigungsschaltfläche bereitstellen, beschriftet mit „Verträge hier kündigen“ oder einer entsprechend eindeutigen Formulierung.",
        },
    }
}

fn uwg_4a(language: Language) -> Citation {
    match language {
        Language::En => Citation {
            name: "German Act against Unfair Competition (UWG) § 4a(2) no. 4",
            says: "Burdensome or disproportionate non-contractual barriers to exercising contractual rights, the right to terminate included, are a sign of an aggressive commercial practice.",
        },
        Language::De => Citation {
            name: "§ 4a Abs. 2 Satz 1 Nr. 4 UWG",
            says: "Belastende oder unverhältnismäßige Hindernisse nichtvertraglicher Art, mit denen der Unternehmer Verbraucher an der Ausübung ihrer vertraglichen Rechte hindert, einschließlich des Rechts zu kündigen, sprechen für eine aggressive geschäftliche Handlung.",
        },
    }
}

fn ucpd_9d(language: Language) -> Citation {
    match language {
        Language::En => Citation {
            name: "EU Unfair Commercial Practices Directive 2005/29/EC, Article 9(d)",
            says: "Onerous or disproportionate non-contractual barriers a trader puts in the way of terminating a contract count towards an aggressive commercial practice.",
        },
        Language::De => Citation {
            name: "Richtlinie 2005/29/EG über unlautere Geschäftspraktiken, Artikel 9 Buchstabe d",
            says: "Belastende oder unverhältnismäßige Hindernisse nichtvertraglicher Art, die ein Gewerbetreibender der Kündigung eines Vertrags in den Weg legt, sind bei der Beurteilung einer aggressiven Geschäftspraxis zu berücksichtigen.",
        },
    }
}

fn dsa_25(language: Language) -> Citation {
    match language {
        Language::En => Citation {
            name: "EU Digital Services Act (Regulation 2022/2065), Article 25",
            says: "Online platforms may not design their interfaces to deceive or manipulate users, including by making terminating a service more difficult than subscribing to it.",
        },
        Language::De => Citation {
            name: "Gesetz über digitale Dienste (Verordnung (EU) 2022/2065), Artikel 25",
            says: "Online-Plattformen dürfen ihre Oberflächen nicht so gestalten, dass sie Nutzer täuschen oder manipulieren, auch nicht, indem sie die Kündigung eines Dienstes schwieriger machen als seine Bestellung.",
        },
    }
}
