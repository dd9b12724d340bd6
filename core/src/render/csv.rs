//! CSV: RFC 4180 through the `csv` crate, so a field with a comma, a quote or a line break is
//! quoted (and its quotes doubled) by the one writer that reads it back the same way.

use std::io;

/// A CSV table of `N` columns written as it goes: the header first, then one record per row.
/// A row has exactly `N` fields by its type, so no record can be ragged.
#[derive(Debug)]
pub struct CsvTable<W: io::Write, const N: usize> {
    writer: csv::Writer<W>,
}

impl<W: io::Write, const N: usize> CsvTable<W, N> {
    /// Starts a table in `out` with its header line.
    pub fn new(out: W, header: [&str; N]) -> io::Result<Self> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        writer.write_record(header)?;
        Ok(CsvTable { writer })
    }

    /// Writes one row.
    pub fn row<F: AsRef<[u8]>>(&mut self, fields: [F; N]) -> io::Result<()> {
        Ok(self.writer.write_record(fields)?)
    }

    /// Flushes what is buffered into the output.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    fn table(rows: &[[&str; 2]]) -> String {
        let mut out = Vec::new();
        let mut t = CsvTable::new(&mut out, ["name", "note"]).unwrap();
        for r in rows {
            t.row(*r).unwrap();
        }
        t.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn plain_fields_are_written_as_they_are() {
        assert_eq!(
            table(&[["a", ""], ["b c", "x:y z"]]),
            "name,note\na,\nb c,x:y z\n"
        );
    }

    #[test]
    fn commas_quotes_and_line_breaks_are_quoted() {
        assert_eq!(
            table(&[["a,b", "say \"hi\""], ["line\nbreak", "cr\r"]]),
            "name,note\n\"a,b\",\"say \"\"hi\"\"\"\n\"line\nbreak\",\"cr\r\"\n"
        );
    }

    #[test]
    fn what_is_written_reads_back_field_for_field() {
        let rows = [["a,\"b\"\n", "\r,"], ["", "ünï"]];
        let text = table(&rows);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let back: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        assert_eq!(back, rows.map(|r| r.map(str::to_owned).to_vec()).to_vec());
    }
}
