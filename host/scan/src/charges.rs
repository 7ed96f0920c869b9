//! Every charge of a service with a plugin, one by one, whether or not it
//! recurs: the question "was this service charged after it was cancelled?"
//! is about any charge, and a single one after a cancellation is the one
//! that matters.
//!
//! The same walk over the statements as the subscriptions' (copies from an
//! overlapping export counted once, a far-ahead typo left out) and the same
//! matching of descriptors, so a charge belongs to the same service here as
//! in the report.

use std::collections::HashMap;
use std::fmt;

use chrono::NaiveDate;

use crate::descriptor::normalise;
use crate::money::Money;
use crate::recurring;
use crate::services::{Matched, Matcher, ServiceDescriptors};
use crate::statement::Statement;

/// One charge (money out) whose descriptor is a service's.
#[derive(Clone, PartialEq, Eq)]
pub struct ServiceCharge {
    /// The service id (`netflix`).
    pub service: String,
    /// Its name for people (`Netflix`).
    pub service_name: String,
    /// The day the statement gives it.
    pub date: NaiveDate,
    /// What was charged: always positive.
    pub amount: Money,
    /// The descriptor as the statement gives it, trimmed (inert, as every
    /// string from a statement).
    pub descriptor: String,
}

/// Redacted: date, descriptor and amount are the private part.
impl fmt::Debug for ServiceCharge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServiceCharge {{ service: {}, .. }}", self.service)
    }
}

/// Every charge in `statements` that `services`' descriptors name, oldest
/// first. A charge a billing company collects (Apple, Google Play) is that
/// company's, not a service's, as in the report. Refunds and other money in
/// are never charges.
pub fn service_charges(
    statements: &[Statement],
    services: &[ServiceDescriptors],
) -> Vec<ServiceCharge> {
    let matcher = Matcher::new(services);
    // One match per distinct descriptor: a statement repeats a few dozen.
    let mut known: HashMap<&str, Option<(String, String)>> = HashMap::new();
    let mut found = Vec::new();
    recurring::walk(statements, |transaction, _| {
        if transaction.amount.minor <= 0 {
            return;
        }
        let raw = transaction.description.as_str();
        let service =
            known
                .entry(raw)
                .or_insert_with(|| match matcher.find(&normalise(raw), raw) {
                    Some(Matched::Service { id, name }) => Some((id.clone(), name.clone())),
                    _ => None,
                });
        if let Some((id, name)) = service {
            found.push(ServiceCharge {
                service: id.clone(),
                service_name: name.clone(),
                date: transaction.date,
                amount: transaction.amount,
                descriptor: raw.trim().to_owned(),
            });
        }
    });
    found.sort_by(|a, b| (a.date, &a.service).cmp(&(b.date, &b.service)));
    found
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::read::read_statement_bytes;
    use crate::services::known_descriptors;
    use crate::statement::ScanOptions;

    const HEADER: &str = "Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n";

    fn statement(name: &str, rows: &[&str]) -> Statement {
        let csv = format!("{HEADER}{}\n", rows.join("\n"));
        read_statement_bytes(name, csv.as_bytes(), &ScanOptions::default()).unwrap()
    }

    /// One charge each, whether it recurs or not; refunds, billing
    /// companies and unknown merchants are nobody's; a row two overlapping
    /// exports share is one charge.
    #[test]
    fn each_charge_of_a_service_once() {
        let a = statement(
            "a.csv",
            &[
                "05/03/2024,05/04/2024,NETFLIX.COM,,Sale,-15.49,",
                "05/20/2024,05/21/2024,Spotify USA,,Sale,-11.99,",
                "05/21/2024,05/21/2024,Spotify USA,,Return,11.99,",
                "05/22/2024,05/23/2024,APPLE.COM/BILL 866-712-7753 CA,,Sale,-2.99,",
                "05/23/2024,05/23/2024,GOOGLE *YouTubePremium g.co/helppay#,,Sale,-13.99,",
                "05/24/2024,05/24/2024,SQ *BLUE BOTTLE COFFEE,,Sale,-5.75,",
            ],
        );
        let b = statement(
            "b.csv",
            &[
                "05/03/2024,05/04/2024,NETFLIX.COM,,Sale,-15.49,",
                "06/03/2024,06/04/2024,NETFLIX.COM,,Sale,-15.49,",
            ],
        );
        let got: Vec<(String, String, String)> = service_charges(&[a, b], &known_descriptors())
            .into_iter()
            .map(|c| (c.date.to_string(), c.service, c.amount.to_string()))
            .collect();
        let want = [
            ("2024-05-03", "netflix", "15.49 USD"),
            ("2024-05-20", "spotify", "11.99 USD"),
            ("2024-05-23", "youtube-premium", "13.99 USD"),
            ("2024-06-03", "netflix", "15.49 USD"),
        ]
        .map(|(d, s, a)| (d.to_owned(), s.to_owned(), a.to_owned()));
        assert_eq!(got, want);
    }

    #[test]
    fn debug_names_the_service_only() {
        let charges = service_charges(
            &[statement(
                "a.csv",
                &["05/03/2024,05/04/2024,NETFLIX.COM,,Sale,-15.49,"],
            )],
            &known_descriptors(),
        );
        let shown = format!("{charges:?}");
        assert!(shown.contains("netflix"), "{shown}");
        for private in ["NETFLIX.COM", "15.49", "2024"] {
            assert!(!shown.contains(private), "{shown}");
        }
    }
}
