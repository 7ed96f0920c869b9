//! Explicit CSV columns, for a bank whose export is not among the known
//! layouts: `date=Posted,amount=Amount,description=Payee`.

use crate::error::ScanError;

/// Which columns of a CSV hold what, by header name (matched without regard
/// to case or surrounding spaces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnMap {
    /// The date column.
    pub date: String,
    /// The description (payee, merchant) column.
    pub description: String,
    /// Where the amount is.
    pub amount: AmountColumns,
    /// A column holding each row's ISO 4217 currency code, if any.
    pub currency: Option<String>,
}

/// Where a CSV keeps its amounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AmountColumns {
    /// One signed column.
    Signed {
        /// Its header name.
        column: String,
        /// Which sign a charge (money out) has in it.
        charges: ChargeSign,
    },
    /// Money out and money in in two columns, both unsigned (Capital One).
    DebitCredit {
        /// The money-out column.
        debit: String,
        /// The money-in column.
        credit: String,
    },
}

/// The sign a bank gives a charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChargeSign {
    /// A charge is negative (most bank accounts, Chase cards).
    Negative,
    /// A charge is positive (American Express, most card-only statements).
    Positive,
    /// Not said (`--columns` without `charges=`): the rows decide, money
    /// out being the commoner sign on any statement; when the two signs
    /// are as common, the scan stops and asks.
    FromRows,
}

/// Parses a column map: comma-separated `key=Header name` pairs. Keys:
/// `date`, `description`, and either `amount` or both `debit` and `credit`;
/// optionally `currency` (a column) and `charges=negative|positive` (the
/// sign of money out in `amount`; unless said, the sign most rows have).
pub fn parse_columns(spec: &str) -> Result<ColumnMap, ScanError> {
    let bad = |reason: String| ScanError::BadColumns { reason };
    let (mut date, mut description, mut amount, mut debit, mut credit, mut currency) =
        (None, None, None, None, None, None);
    let mut charges = ChargeSign::FromRows;
    for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(bad(format!("{pair:?} is not key=column")));
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim().to_owned());
        if value.is_empty() {
            return Err(bad(format!("{key} names no column")));
        }
        let slot = match key.as_str() {
            "date" => &mut date,
            "description" => &mut description,
            "amount" => &mut amount,
            "debit" => &mut debit,
            "credit" => &mut credit,
            "currency" => &mut currency,
            "charges" => {
                charges = match value.to_ascii_lowercase().as_str() {
                    "negative" => ChargeSign::Negative,
                    "positive" => ChargeSign::Positive,
                    _ => return Err(bad("charges= takes negative or positive".to_owned())),
                };
                continue;
            }
            _ => {
                return Err(bad(format!(
                    "unknown key {key:?} (date, description, amount, debit, credit, currency, charges)"
                )));
            }
        };
        if slot.replace(value).is_some() {
            return Err(bad(format!("{key} given twice")));
        }
    }
    let date = date.ok_or_else(|| bad("no date=".to_owned()))?;
    let description = description.ok_or_else(|| bad("no description=".to_owned()))?;
    let amount = match (amount, debit, credit) {
        (Some(column), None, None) => AmountColumns::Signed { column, charges },
        (None, Some(debit), Some(credit)) => AmountColumns::DebitCredit { debit, credit },
        (None, None, None) => return Err(bad("no amount= (or debit= and credit=)".to_owned())),
        _ => {
            return Err(bad(
                "give amount= alone, or debit= and credit= together".to_owned()
            ));
        }
    };
    Ok(ColumnMap {
        date,
        description,
        amount,
        currency,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_maps_parse() {
        let map = parse_columns(" date=Posted , amount=Amount,description=Payee,currency=Währung");
        let Ok(map) = map else {
            unreachable!("{map:?}")
        };
        assert_eq!(map.date, "Posted");
        assert_eq!(map.currency.as_deref(), Some("Währung"));
        assert_eq!(
            map.amount,
            AmountColumns::Signed {
                column: "Amount".into(),
                charges: ChargeSign::FromRows
            }
        );
        let split = parse_columns("date=D,description=X,debit=Out,credit=In");
        assert!(matches!(
            split.map(|m| m.amount),
            Ok(AmountColumns::DebitCredit { .. })
        ));
        let positive = parse_columns("date=D,description=X,amount=A,charges=positive");
        assert!(matches!(
            positive.map(|m| m.amount),
            Ok(AmountColumns::Signed {
                charges: ChargeSign::Positive,
                ..
            })
        ));
    }

    #[test]
    fn bad_column_maps_say_why() {
        let cases = [
            ("", "no date="),
            ("date=D,amount=A", "no description="),
            ("date=D,description=X", "no amount="),
            ("date=D,description=X,amount=A,debit=B", "amount= alone"),
            ("date=D,description=X,debit=B", "amount= alone"),
            ("date=D,date=E,description=X,amount=A", "given twice"),
            ("date", "not key=column"),
            ("date=,description=X,amount=A", "names no column"),
            ("when=D", "unknown key"),
            (
                "date=D,description=X,amount=A,charges=up",
                "negative or positive",
            ),
        ];
        for (spec, want) in cases {
            match parse_columns(spec) {
                Err(ScanError::BadColumns { reason }) => {
                    assert!(reason.contains(want), "{spec:?}: {reason}")
                }
                other => unreachable!("{spec:?}: {other:?}"),
            }
        }
    }
}
