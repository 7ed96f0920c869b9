//! The tables the command line prints: `services`, `plugin list`, `plugin
//! test`, `plugin record`. One table crate for all of them, so columns line
//! up whatever the length of a name and whatever the characters in it.

use comfy_table::presets::NOTHING;
use comfy_table::{CellAlignment, ContentArrangement, Table};

/// `rows` under `header`, columns as wide as their widest cell, two spaces
/// apart, no borders: plain text that `grep` and `cut` still handle.
pub fn render<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let mut table = Table::new();
    table
        .load_preset(NOTHING)
        // A pipe has no width to fit; never wrap a cell.
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().copied());
    for row in rows {
        table.add_row(row.iter().map(String::as_str));
    }
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
        column.set_cell_alignment(CellAlignment::Left);
    }
    table
        .lines()
        .map(|line| line.trim_end().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints [`render`]'s table on stdout.
pub fn print_table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) {
    anstream::println!("{}", render(header, rows));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The display column where `needle` starts in `line`.
    fn column(line: &str, needle: &str) -> Option<usize> {
        line.find(needle).map(|at| line[..at].chars().count())
    }

    #[test]
    fn columns_line_up_whatever_the_length_of_a_name() {
        let rows = [
            [
                "netflix".to_owned(),
                "Netflix".to_owned(),
                "0.1.0".to_owned(),
            ],
            [
                "practice".to_owned(),
                "StreamFlix (practice site)".to_owned(),
                "0.1.0".to_owned(),
            ],
            [
                "x".to_owned(),
                "Ünïcödé ✓ name".to_owned(),
                "10.20.30".to_owned(),
            ],
            ["y".to_owned(), String::new(), "1".to_owned()],
        ];
        let text = render(&["ID", "NAME", "VERSION"], &rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        let version_at = column(lines[0], "VERSION");
        for (line, version) in lines[1..].iter().zip(["0.1.0", "0.1.0", "10.20.30", "1"]) {
            assert_eq!(column(line, version), version_at, "{text}");
        }
        assert!(lines.iter().all(|l| !l.ends_with(' ')), "{text}");
    }
}
