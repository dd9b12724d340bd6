//! Property tests of the UTF-16 decoder the host puts in front of every adapter: any text comes
//! back whole whatever the byte order, mark and read sizes; any bytes at all give text or an
//! error, never a panic; and a cut inside a character always shows as U+FFFD at the end.

use std::io::{self, Read};

use gapscore_adapter_sdk::encoding::{Encoding, Utf16Reader, sniff};
use proptest::prelude::*;

/// A source that hands out the next read size from `steps` (cycled), so code units and
/// surrogate pairs fall across reads.
struct Uneven<'a> {
    data: &'a [u8],
    steps: Vec<usize>,
    at: usize,
}

impl Read for Uneven<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let step = self.steps[self.at % self.steps.len()];
        self.at += 1;
        let n = step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn encode(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
    units
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

fn decode(data: &[u8], big_endian: bool, steps: Vec<usize>) -> io::Result<String> {
    let mut out = String::new();
    Utf16Reader::new(Uneven { data, steps, at: 0 }, big_endian).read_to_string(&mut out)?;
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_text_comes_back_whole(
        text in "\\PC{0,100}",
        big_endian: bool,
        bom: bool,
        steps in prop::collection::vec(1usize..9, 1..5),
    ) {
        // A text that itself starts with U+FEFF loses it when there is no mark before it.
        prop_assume!(bom || !text.starts_with('\u{FEFF}'));
        let bytes = encode(&text, big_endian, bom);
        prop_assert_eq!(decode(&bytes, big_endian, steps).unwrap(), text);
    }

    #[test]
    fn a_cut_anywhere_ends_in_a_replacement_character_or_at_a_character(
        text in "[a-z\u{e9}\u{4e2d}\u{1F600}]{1,40}",
        big_endian: bool,
        cut in any::<prop::sample::Index>(),
        steps in prop::collection::vec(1usize..9, 1..5),
    ) {
        let bytes = encode(&text, big_endian, true);
        let cut = 2 + cut.index(bytes.len() - 1);
        let got = decode(&bytes[..cut], big_endian, steps).unwrap();
        // The characters wholly inside the cut, and whether it fell inside one.
        let (mut whole, mut used) = (String::new(), 2);
        for c in text.chars() {
            if used + 2 * c.len_utf16() > cut { break; }
            used += 2 * c.len_utf16();
            whole.push(c);
        }
        let want = if used == cut { whole } else { format!("{whole}\u{FFFD}") };
        prop_assert_eq!(got, want);
    }

    #[test]
    fn any_bytes_give_text_or_an_error_naming_the_byte(
        data in prop::collection::vec(any::<u8>(), 0..300),
        big_endian: bool,
        steps in prop::collection::vec(1usize..9, 1..5),
    ) {
        let _ = sniff(&data);
        match decode(&data, big_endian, steps) {
            Ok(_) => {}
            Err(e) => prop_assert!(e.to_string().starts_with("invalid UTF-16 at byte "), "{e}"),
        }
    }

    #[test]
    fn ascii_text_is_recognised_in_either_byte_order_with_or_without_a_mark(
        text in "[ -~]{2,40}",
        big_endian: bool,
        bom: bool,
    ) {
        prop_assert_eq!(sniff(&encode(&text, big_endian, bom)), Encoding::Utf16 { big_endian });
        prop_assert_eq!(sniff(text.as_bytes()), Encoding::Utf8);
    }
}
