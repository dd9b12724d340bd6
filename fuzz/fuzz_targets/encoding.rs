//! The decoders the host puts in front of every adapter (`gapscore_adapter_sdk::encoding`):
//! `Utf16Reader` checked against the standard library's `char::decode_utf16` on the same bytes
//! (the same text, or an error exactly where the reference finds an unpaired surrogate inside
//! the text), and `Latin1Reader`, which must always give UTF-8 with every ASCII byte kept,
//! and give valid UTF-8 input back unchanged. The first byte picks the byte order and how many
//! bytes each read of the source hands out (1–64), so code units, surrogate pairs and UTF-8
//! sequences fall across reads.
#![no_main]

use std::io::Read;

use gapscore_adapter_sdk::encoding::{Encoding, Latin1Reader, Utf16Reader, sniff};
use libfuzzer_sys::fuzz_target;

/// A source that hands out at most `step` bytes per read.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// What the decoder must give: `Some(text)`, or `None` for an error.
fn reference(data: &[u8], big_endian: bool) -> Option<String> {
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|p| {
            if big_endian {
                u16::from_be_bytes([p[0], p[1]])
            } else {
                u16::from_le_bytes([p[0], p[1]])
            }
        })
        .collect();
    let mut out = String::new();
    let mut cut = data.len() % 2 == 1;
    let decoded: Vec<_> = char::decode_utf16(units.iter().copied()).collect();
    let last = decoded.len().saturating_sub(1);
    for (i, c) in decoded.into_iter().enumerate() {
        match c {
            Ok(c) => out.push(c),
            // A high surrogate as the very last unit: the file was cut inside a pair.
            Err(e) if i == last && (0xD800..=0xDBFF).contains(&e.unpaired_surrogate()) => {
                cut = true;
            }
            Err(_) => return None,
        }
    }
    if let Some(rest) = out.strip_prefix('\u{FEFF}') {
        out = rest.to_owned();
    }
    if cut {
        out.push('\u{FFFD}');
    }
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, data)) = data.split_first() else {
        return;
    };
    let _ = sniff(data);
    let big_endian = knobs & 1 == 1;
    let step = usize::from(knobs >> 1) % 64 + 1;
    let mut got = String::new();
    let result = Utf16Reader::new(Trickle(data, step), big_endian).read_to_string(&mut got);
    match (reference(data, big_endian), result) {
        (Some(want), Ok(_)) => assert_eq!(got, want, "decoded text differs (step {step})"),
        (None, Err(e)) => assert!(e.to_string().starts_with("invalid UTF-16 at byte ")),
        (want, got) => panic!("reference {want:?}, decoder {got:?} (step {step})"),
    }
    let mut latin1 = Vec::new();
    Latin1Reader::new(Trickle(data, step))
        .read_to_end(&mut latin1)
        .expect("windows-1252 decoding cannot fail");
    let text = std::str::from_utf8(&latin1).expect("windows-1252 decoding gives UTF-8");
    assert!(text.chars().count() >= data.len() - data.iter().filter(|b| **b >= 0x80).count());
    if std::str::from_utf8(data).is_ok() {
        assert_eq!(
            latin1, data,
            "valid UTF-8 changed by the windows-1252 decoder"
        );
    }
    if let Encoding::Utf16 { big_endian } = sniff(data) {
        let mut sink = Vec::new();
        let _ = Utf16Reader::new(data, big_endian).read_to_end(&mut sink);
    }
});
