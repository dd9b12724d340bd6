//! Unit tests of the scanner (`scan.rs`), kept beside it.

use super::*;

/// A JSON array of `n` small objects, generated as it is read.
struct Generated {
    n: usize,
    i: usize,
    chunk: Vec<u8>,
    at: usize,
}

impl io::Read for Generated {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(out.len());
        out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Generated {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.chunk.len() && self.i <= self.n {
            self.chunk.clear();
            self.at = 0;
            let open = if self.i == 0 { "[" } else { "," };
            self.chunk.extend_from_slice(open.as_bytes());
            if self.i == self.n {
                self.chunk.extend_from_slice(b"{}]");
            } else {
                let text = format!("{{\"title\":\"test {} é\",\"status\":\"passed\"}}", self.i);
                self.chunk.extend_from_slice(text.as_bytes());
            }
            self.i += 1;
        }
        Ok(&self.chunk[self.at..])
    }
    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

#[test]
fn the_plain_prefix_stops_at_the_first_eight_bytes_holding_a_stop_byte() {
    let naive = |t: &[u8]| {
        let first = t
            .iter()
            .position(|&b| STRING_STOP[usize::from(b)] || b >= 0x80)
            .unwrap_or(t.len());
        first - first % 8
    };
    let mut text = b"abcdefgh".repeat(5);
    assert_eq!(plain_ascii_prefix(&text), 40);
    for (at, stop) in [
        (0, b'"'),
        (9, b'\\'),
        (17, 0x1F),
        (23, 0x80),
        (31, 0x00),
        (39, b'\n'),
    ] {
        let mut t = text.clone();
        t[at] = stop;
        assert_eq!(plain_ascii_prefix(&t), naive(&t), "{at}");
    }
    // Bytes just outside the stop set pass.
    text[3] = b' ';
    text[12] = 0x7F;
    text[20] = b'#';
    text[21] = b']';
    assert_eq!(plain_ascii_prefix(&text), 40);
}

#[test]
fn memory_does_not_grow_with_the_document() {
    let mut r = Generated {
        n: 400_000, // About 18 MB.
        i: 0,
        chunk: Vec::new(),
        at: 0,
    };
    let mut scan = Scanner::new(&mut r);
    assert!(scan.skip_value(0).is_ok());
    assert!(scan.skip_ws().ok().flatten().is_none());
    assert!(scan.base > 15_000_000, "{}", scan.base);
    assert!(scan.buf.capacity() <= 4 * CHUNK, "{}", scan.buf.capacity());
    assert!(scan.keys.arena.capacity() < 1024);
}
