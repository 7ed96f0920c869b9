//! One-based line numbers from byte offsets, for skip records: "line 14"
//! is what a person looks for in a statement opened in an editor.

/// Turns byte offsets into one-based line numbers. Offsets are asked for in
/// increasing order while reading, so each newline is counted once.
pub(crate) struct LineCounter<'t> {
    text: &'t [u8],
    offset: usize,
    line: usize,
}

impl<'t> LineCounter<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        LineCounter {
            text: text.as_bytes(),
            offset: 0,
            line: 1,
        }
    }

    /// The line holding byte `offset` (an offset behind the last one asked
    /// for is answered with the last line: readers only move forward).
    pub(crate) fn line_at(&mut self, offset: impl TryInto<usize>) -> usize {
        let offset = offset.try_into().unwrap_or(usize::MAX).min(self.text.len());
        if offset > self.offset {
            let newlines = self
                .text
                .get(self.offset..offset)
                .map_or(0, |bytes| bytes.iter().filter(|&&b| b == b'\n').count());
            self.line += newlines;
            self.offset = offset;
        }
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::LineCounter;

    #[test]
    fn lines_count_forward() {
        let mut lines = LineCounter::new("a\nb\nc");
        assert_eq!(lines.line_at(0usize), 1);
        assert_eq!(lines.line_at(2usize), 2);
        assert_eq!(lines.line_at(1usize), 2);
        assert_eq!(lines.line_at(100usize), 3);
    }
}
