//! Reading a plugin's string views ([`GapscoreStr`]) on the ABI v2 hot path: every view is
//! checked (null pointer with a length, corrupt length, UTF-8) on every call, so the checks are
//! made cheap rather than skipped. A view that is absent costs two comparisons; a short string
//! (the ids, names and suites of nearly every test) is checked as ASCII a word at a time and
//! only falls back to the full validator when a byte is not ASCII, which then also gives the
//! position of the first bad byte for the error.

use gapscore_adapter_sdk::abi::GapscoreStr;
use gapscore_adapter_sdk::text::{TEXT_CAP, push_capped};

/// The longest string a plugin may pass (16 MiB): a longer one is taken as a corrupt length.
/// Texts (message, expected, actual, output) are cut at the SDK's text cap as they are copied.
pub const MAX_STR_LEN: usize = 16 * 1024 * 1024;

/// Strings up to this many bytes try the ASCII check first. Longer ones go straight to the
/// standard validator, whose own ASCII fast path wins on long runs, so a long non-ASCII text
/// is never scanned twice.
const SHORT: usize = 64;

/// Why a view was refused, and the bytes it pointed to when they were readable (for
/// `--plugin-debug`).
pub(super) type Rejection<'v> = (String, Option<&'v [u8]>);

/// True when every byte is below 0x80. Reads whole words, the last one overlapping the one
/// before, so there is no byte-by-byte tail loop.
#[inline(always)]
fn is_ascii_words(b: &[u8]) -> bool {
    const HIGH8: u64 = 0x8080_8080_8080_8080;
    const HIGH4: u32 = 0x8080_8080;
    let n = b.len();
    if let Some(last) = b.last_chunk::<8>() {
        let (words, _) = b.as_chunks::<8>();
        let all = words.iter().fold(u64::from_ne_bytes(*last), |acc, w| {
            acc | u64::from_ne_bytes(*w)
        });
        all & HIGH8 == 0
    } else if let (Some(first), Some(last)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        (u32::from_ne_bytes(*first) | u32::from_ne_bytes(*last)) & HIGH4 == 0
    } else if n > 0 {
        // 1 to 3 bytes: indices 0, n/2 and n-1 cover them all.
        (b[0] | b[n / 2] | b[n - 1]) < 0x80
    } else {
        true
    }
}

/// `bytes` as a `str`, or the length of its longest valid UTF-8 prefix.
#[inline(always)]
pub(super) fn utf8(bytes: &[u8]) -> Result<&str, usize> {
    if bytes.len() <= SHORT && is_ascii_words(bytes) {
        // SAFETY: every byte is below 0x80 (checked just above), and ASCII is valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).map_err(|e| e.valid_up_to())
}

/// Reads a borrowed string view: `Ok(None)` when absent, an error for a null pointer with a
/// length, a corrupt length or bytes that are not UTF-8 (with the bytes, for the debug view).
///
/// The returned borrow is valid only during the callback that received the view. Only the
/// absence test is inlined (a test has nine views, most of them absent: two comparisons each);
/// a present view is checked by one shared out-of-line function. Inlining all of it into the
/// callback made `test_finished` 8 KiB of code, and on the plugin path every test runs through
/// the plugin's parser and the host's sinks as well, more code than the instruction cache
/// holds: the misses cost more than the call (docs/abi.md, "Measured").
#[inline(always)]
pub(super) fn view<'v>(s: &'v GapscoreStr, field: &str) -> Result<Option<&'v str>, Rejection<'v>> {
    if s.ptr.is_null() && s.len == 0 {
        return Ok(None);
    }
    present(s, field)
}

/// [`view`] of a view that is not absent: a null pointer here has a length.
#[inline(never)]
fn present<'v>(s: &'v GapscoreStr, field: &str) -> Result<Option<&'v str>, Rejection<'v>> {
    if s.ptr.is_null() {
        return Err(null_with_len(field, s.len));
    }
    if s.len > MAX_STR_LEN {
        return Err(too_long(field, s.len));
    }
    if s.len == 0 {
        return Ok(Some(""));
    }
    // SAFETY: non-null, length bounded above; the contract says the plugin's view points to
    // `len` readable bytes for the duration of the callback, which this borrow does not outlive
    // (callers copy what they keep before returning).
    let bytes = unsafe { std::slice::from_raw_parts(s.ptr, s.len) };
    match utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(at) => Err(not_utf8(field, at, bytes)),
    }
}

// The refusals are built out of line: the checks above stay small enough to inline into every
// callback, and the formatting runs only for a broken plugin.

#[cold]
#[inline(never)]
fn null_with_len<'v>(field: &str, len: usize) -> Rejection<'v> {
    (format!("`{field}` is NULL with length {len}"), None)
}

#[cold]
#[inline(never)]
fn too_long<'v>(field: &str, len: usize) -> Rejection<'v> {
    (
        format!("`{field}` has length {len} (more than the {MAX_STR_LEN}-byte limit)"),
        None,
    )
}

#[cold]
#[inline(never)]
fn not_utf8<'v>(field: &str, at: usize, bytes: &'v [u8]) -> Rejection<'v> {
    (
        format!("`{field}` is not UTF-8 (at byte {at})"),
        Some(bytes),
    )
}

/// A capped copy of a text field.
pub(super) fn capped(s: Option<&str>) -> Option<String> {
    s.map(|s| {
        let mut t = String::with_capacity(s.len().min(TEXT_CAP));
        push_capped(&mut t, s);
        t
    })
}

/// A text field as the sink sees it: the plugin's view when it fits the text cap (one length
/// comparison), otherwise a copy cut at the cap made in `slot` (a buffer reused from test to
/// test), exactly what [`capped`] makes.
#[inline]
pub(super) fn text<'v>(s: Option<&'v str>, slot: &'v mut String) -> Option<&'v str> {
    match s {
        Some(s) if s.len() > TEXT_CAP => {
            slot.clear();
            push_capped(slot, s);
            Some(slot.as_str())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings of every length up to past the ASCII path's limit, and a long one.
    fn lengths() -> impl Iterator<Item = usize> {
        (0..=SHORT + 20).chain([200, 4099])
    }

    #[test]
    fn ascii_of_every_length_is_accepted_as_is() {
        for n in lengths() {
            let s: String = (0..n).map(|i| char::from(b'!' + (i % 90) as u8)).collect();
            assert_eq!(utf8(s.as_bytes()), Ok(s.as_str()), "length {n}");
        }
    }

    #[test]
    fn a_bad_byte_at_every_position_is_refused_with_its_place() {
        for n in lengths().filter(|n| *n > 0) {
            for at in 0..n {
                for bad in [0x80, 0xbf, 0xc0, 0xf8, 0xff] {
                    let mut b = vec![b'a'; n];
                    b[at] = bad;
                    assert_eq!(utf8(&b), Err(at), "length {n}, byte {bad:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn non_ascii_utf8_is_accepted_and_cut_sequences_refused() {
        for n in lengths() {
            for at in 0..n.saturating_sub(1) {
                let mut b = vec![b'a'; n];
                b[at..at + 2].copy_from_slice("é".as_bytes());
                let expected = String::from_utf8(b.clone()).unwrap();
                assert_eq!(utf8(&b), Ok(expected.as_str()), "length {n}, é at {at}");
                // The lead byte alone, followed by ASCII: invalid at the lead byte.
                b[at + 1] = b'a';
                assert_eq!(utf8(&b), Err(at), "length {n}, cut é at {at}");
            }
            if n > 0 {
                // A multi-byte sequence cut by the end of the string.
                let mut b = vec![b'a'; n];
                b[n - 1] = 0xe2;
                assert_eq!(utf8(&b), Err(n - 1), "length {n}, cut at the end");
            }
        }
    }

    #[test]
    fn views_absent_empty_and_broken() {
        assert_eq!(view(&GapscoreStr::ABSENT, "f"), Ok(None));
        let empty = GapscoreStr {
            ptr: std::ptr::NonNull::<u8>::dangling().as_ptr(),
            len: 0,
        };
        assert_eq!(view(&empty, "f"), Ok(Some("")));
        let null = GapscoreStr {
            ptr: std::ptr::null(),
            len: 3,
        };
        assert_eq!(
            view(&null, "f"),
            Err(("`f` is NULL with length 3".to_owned(), None))
        );
        let bytes = b"ab\xffc".as_slice();
        assert_eq!(
            view(
                &GapscoreStr {
                    ptr: bytes.as_ptr(),
                    len: bytes.len()
                },
                "name"
            ),
            Err(("`name` is not UTF-8 (at byte 2)".to_owned(), Some(bytes)))
        );
    }

    #[test]
    fn long_texts_are_cut_in_the_reused_slot_short_ones_borrowed() {
        let mut slot = String::from("left over from an earlier test");
        let short = "short";
        assert_eq!(text(Some(short), &mut slot), Some(short));
        assert_eq!(text(None, &mut slot), None);
        let long = "x".repeat(TEXT_CAP + 10);
        let cut = text(Some(&long), &mut slot).map(str::to_owned);
        assert_eq!(cut, capped(Some(&long)));
        assert!(slot.ends_with(gapscore_adapter_sdk::text::CUT_NOTE));
    }
}
