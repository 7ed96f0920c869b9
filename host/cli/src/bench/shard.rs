//! `--shard I/N`: one of N parts of a bench run, as test runners shard:
//! every N-th flow of those the filters leave, from the I-th, so each
//! shard holds each kind of flow and a flow is in exactly one shard.

use std::str::FromStr;

/// The I-th of N shards, counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wrong = || format!("{s:?}: give the shard as I/N, e.g. 2/4 (I from 1 to N)");
        let (i, n) = s.split_once('/').ok_or_else(wrong)?;
        let index: usize = i.trim().parse().map_err(|_| wrong())?;
        let count: usize = n.trim().parse().map_err(|_| wrong())?;
        if count == 0 || index == 0 || index > count {
            return Err(wrong());
        }
        Ok(Shard { index, count })
    }
}

/// The part of `items` that `shard` takes; all of them without one.
pub fn take<T>(items: Vec<T>, shard: Option<Shard>) -> Vec<T> {
    let Some(Shard { index, count }) = shard else {
        return items;
    };
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % count == index - 1)
        .map(|(_, item)| item)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_table() {
        let cases = [
            ("1/1", Some((1, 1))),
            ("2/4", Some((2, 4))),
            (" 3 / 3 ", Some((3, 3))),
            ("0/4", None),
            ("5/4", None),
            ("1/0", None),
            ("2", None),
            ("a/b", None),
            ("-1/4", None),
        ];
        for (given, want) in cases {
            let got = given.parse::<Shard>().ok().map(|s| (s.index, s.count));
            assert_eq!(got, want, "{given}");
        }
    }

    /// Every item in exactly one shard, the shards within one of each
    /// other's size.
    #[test]
    fn the_shards_cover_every_flow_once() {
        let items: Vec<u32> = (0..140).collect();
        for count in 1..=7 {
            let mut seen: Vec<u32> = Vec::new();
            let mut sizes = Vec::new();
            for index in 1..=count {
                let part = take(items.clone(), Some(Shard { index, count }));
                sizes.push(part.len());
                seen.extend(part);
            }
            seen.sort_unstable();
            assert_eq!(seen, items, "{count} shards");
            let (min, max) = (sizes.iter().min(), sizes.iter().max());
            assert!(max.zip(min).is_some_and(|(a, b)| a - b <= 1), "{sizes:?}");
        }
    }
}
