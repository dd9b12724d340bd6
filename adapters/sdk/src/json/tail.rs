//! [`Tail`]: a reader to stream through that notes how the input ends, for a reader that
//! describes a document cut short in its own words (where its content stops, what it stopped
//! on). The stream's [`Outcome::Truncated`](super::stream::Outcome::Truncated) gives serde_json's
//! place for the end; this gives the bytes.

use std::io::{self, BufRead, Read};

/// Passes a [`BufRead`] through unchanged, noting the last two bytes that are not whitespace,
/// where the last of them ends, and whether the input opened with a UTF-8 byte order mark.
/// The notes cost nothing extra: they are taken from the bytes as they are consumed.
#[derive(Debug)]
pub struct Tail<'r, R: ?Sized> {
    inner: &'r mut R,
    consumed: u64,
    content_end: u64,
    last: [u8; 2],
    bom: bool,
}

impl<'r, R: BufRead + ?Sized> Tail<'r, R> {
    /// Reads through `inner`.
    pub fn new(inner: &'r mut R) -> Self {
        Tail {
            inner,
            consumed: 0,
            content_end: 0,
            last: [b' '; 2],
            bom: false,
        }
    }

    /// The bytes before the end of the last byte that is not whitespace, a byte order mark
    /// not counted.
    pub fn content_end(&self) -> u64 {
        self.content_end
            .saturating_sub(if self.bom { 3 } else { 0 })
    }

    /// The last two bytes that are not whitespace, the later last (`b' '` for none yet).
    pub fn last(&self) -> [u8; 2] {
        self.last
    }
}

impl<R: BufRead + ?Sized> Read for Tail<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead + ?Sized> BufRead for Tail<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        // The bytes consumed are still the front of the inner buffer: no read happens here.
        if let Ok(buf) = self.inner.fill_buf() {
            let taken = &buf[..n.min(buf.len())];
            if self.consumed == 0 {
                self.bom = taken.starts_with(b"\xEF\xBB\xBF");
            }
            let mut seen = taken
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, b)| !b.is_ascii_whitespace());
            if let Some((i, &b)) = seen.next() {
                self.content_end = self.consumed + i as u64 + 1;
                self.last = [seen.next().map_or(self.last[1], |(_, &a)| a), b];
            }
        }
        self.consumed += n as u64;
        self.inner.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_the_end_however_the_bytes_are_consumed() {
        let input = b"\xEF\xBB\xBF{\"a\": [1,\n 2 \n\n";
        for step in 1..=input.len() {
            let mut src = &input[..];
            let mut tail = Tail::new(&mut src);
            // The byte order mark is consumed whole, as `encoding::skip_bom` does.
            tail.consume(3);
            let mut out = vec![0; step];
            while tail.read(&mut out).unwrap() > 0 {}
            assert_eq!(tail.last(), [b',', b'2'], "reads of {step}");
            // `{"a": [1,\n 2` is 12 bytes after the mark.
            assert_eq!(tail.content_end(), 12, "reads of {step}");
        }
    }
}
