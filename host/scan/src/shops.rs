//! Shops: merchants whose charges are baskets, whatever their amounts
//! happen to do. A monthly prescription refill at CVS, a weekly shop at
//! Sainsbury's that comes to the same total, a Target order repeated: each
//! can look like a price charged on a cadence, and none is a subscription
//! anyone could cancel. A merchant named here is never reported unless a
//! service's own pattern matches the charge.

/// Leading words of shop descriptors, as normalised (upper-case). Matched
/// as a prefix at a word boundary, so `TARGET` matches `TARGET T-1234` and
/// not `TARGETED ADS`.
const SHOPS: &[&str] = &[
    // United States
    "CVS",
    "CVS/PHARMACY",
    "CVS/PHARM",
    "WALGREENS",
    "RITE AID",
    "TARGET",
    "WAL-MART",
    "WALMART",
    "WM SUPERCENTER",
    "KROGER",
    "SAFEWAY",
    "PUBLIX",
    "ALBERTSONS",
    "WHOLEFDS",
    "WHOLE FOODS",
    "TRADER JOE",
    "HEB",
    "H-E-B",
    "MEIJER",
    "STOP & SHOP",
    "7-ELEVEN",
    "DOLLAR TREE",
    "DOLLAR GENERAL",
    "HOME DEPOT",
    "THE HOME DEPOT",
    "LOWE'S",
    "LOWES",
    "BEST BUY",
    // United Kingdom and Ireland
    "SAINSBURY'S",
    "SAINSBURYS",
    "J SAINSBURY",
    "TESCO",
    "ASDA",
    "MORRISONS",
    "WM MORRISON",
    "WAITROSE",
    "ALDI",
    "LIDL",
    "CO-OP",
    "BOOTS",
    "ICELAND",
    "M&S",
    "MARKS & SPENCER",
    "DUNNES",
    // Continental Europe
    "REWE",
    "EDEKA",
    "KAUFLAND",
    "NETTO",
    "PENNY",
    "DM",
    "DM-DROGERIE",
    "ROSSMANN",
    "CARREFOUR",
    "AUCHAN",
    "LECLERC",
    "ALBERT HEIJN",
    "JUMBO",
    "MERCADONA",
    "MIGROS",
    "COOP",
];

/// Whether `normalised` is a shop's descriptor.
pub(crate) fn is_shop(normalised: &str) -> bool {
    SHOPS.iter().any(|shop| {
        normalised
            .strip_prefix(shop)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '#', '*', '/', '-', '.']))
    })
}

#[cfg(test)]
mod tests {
    use super::is_shop;

    #[test]
    fn shops_are_told_by_their_first_words() {
        let cases = [
            ("CVS/PHARMACY", true),
            ("CVS", true),
            ("TARGET", true),
            ("TARGET T-1234", true),
            ("SAINSBURY'S S/MKTS", true),
            ("SAINSBURYS", true),
            ("TARGETED ADS", false),
            ("NETFLIX.COM", false),
            ("DMV RENEWAL", false),
        ];
        for (name, want) in cases {
            assert_eq!(is_shop(name), want, "{name}");
        }
    }
}
